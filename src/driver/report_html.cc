// --report FILE.html: the run's report as one self-contained page for a person (inline CSS and
// SVG, no script, nothing fetched). Every name from the model is HTML-escaped.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "driver/report.h"

namespace onnxtrim {

namespace {

std::string html_esc(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string html_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string html_node_label(const GraphDiff::NodeRef& n) {
  std::string s = n.op + " " + (n.name.empty() ? std::string("(unnamed)") : "'" + n.name + "'");
  if (!n.outputs.empty()) {
    s += " -> ";
    for (size_t i = 0; i < n.outputs.size(); ++i) s += (i ? ", " : "") + n.outputs[i];
  }
  return html_esc(s);
}

void html_stats_table(std::ostringstream& os, const Report& r) {
  os << "<table id=\"summary\"><thead><tr><th></th><th>before</th><th>after</th></tr></thead><tbody>\n";
  auto row = [&](const char* key, const char* label, int64_t a, int64_t b) {
    os << "<tr data-key=\"" << key << "\"" << (a != b ? " class=\"changed\"" : "") << "><th>" << label << "</th><td>"
       << a << "</td><td>" << b << "</td></tr>\n";
  };
  row("nodes", "nodes (subgraphs included)", r.before.nodes, r.after.nodes);
  row("top_level_nodes", "nodes of the main graph", r.before.top_level_nodes, r.after.top_level_nodes);
  row("initializers", "initializers", r.before.initializers, r.after.initializers);
  row("initializer_bytes", "initializer bytes", r.before.initializer_bytes, r.after.initializer_bytes);
  if (r.before.file_bytes >= 0 || r.after.file_bytes >= 0)
    row("file_bytes", "file bytes", r.before.file_bytes, r.after.file_bytes);
  os << "</tbody></table>\n";
}

void html_ops_table(std::ostringstream& os, const Report& r) {
  std::set<std::string> ops;
  for (const auto& [op, n] : r.before.op_histogram) ops.insert(op);
  for (const auto& [op, n] : r.after.op_histogram) ops.insert(op);
  int64_t top = 1;
  for (const auto& [op, n] : r.before.op_histogram) top = std::max(top, n);
  for (const auto& [op, n] : r.after.op_histogram) top = std::max(top, n);
  auto get = [](const std::map<std::string, int64_t>& h, const std::string& op) {
    auto it = h.find(op);
    return it == h.end() ? int64_t{0} : it->second;
  };
  os << "<table id=\"ops\"><thead><tr><th>op</th><th>before</th><th>after</th><th></th></tr></thead><tbody>\n";
  for (const std::string& op : ops) {
    int64_t a = get(r.before.op_histogram, op), b = get(r.after.op_histogram, op);
    os << "<tr data-op=\"" << html_esc(op) << "\"" << (a != b ? " class=\"changed\"" : "") << "><th>" << html_esc(op)
       << "</th><td>" << a << "</td><td>" << b
       << "</td><td class=\"bars\"><span class=\"bar before\" style=\"width:" << (200 * a / top)
       << "px\"></span><span class=\"bar after\" style=\"width:" << (200 * b / top) << "px\"></span></td></tr>\n";
  }
  os << "</tbody></table>\n";
}

// The first rewrite (row of the diff's rewrites table) of each pass.
std::map<std::string, size_t> html_first_rewrite(const GraphDiff& d) {
  std::map<std::string, size_t> out;
  for (size_t k = 0; k < d.rewrites.size(); ++k) out.emplace(d.rewrites[k].pass, k);
  return out;
}

// A pass's name, linked to its first rewrite when it has one.
std::string html_pass_link(const std::map<std::string, size_t>& first, const std::string& pass) {
  auto it = first.find(pass);
  if (it == first.end()) return html_esc(pass);
  return "<a href=\"#rewrite-" + std::to_string(it->second) + "\">" + html_esc(pass) + "</a>";
}

void html_profile(std::ostringstream& os, const Report& r) {
  const std::map<std::string, size_t> first = html_first_rewrite(r.graph_diff);
  os << "<table id=\"stages\"><thead><tr><th>stage</th><th>seconds</th><th>peak resident "
        "bytes</th></tr></thead><tbody>\n";
  for (const StageProfile& s : r.profile)
    os << "<tr><th>" << html_esc(s.name) << "</th><td>" << html_num(s.seconds) << "</td><td>"
       << (s.peak_bytes < 0 ? std::string("not measured")
                            : std::to_string(s.peak_bytes) + " (" + human_bytes(s.peak_bytes) + ")")
       << "</td></tr>\n";
  os << "</tbody></table>\n";
  os << "<table id=\"passes\"><thead><tr><th>pass</th><th>runs</th><th>changes</th><th>nodes removed</th>"
        "<th>seconds</th></tr></thead><tbody>\n";
  for (const PassStats& p : r.passes)
    os << "<tr data-pass=\"" << html_esc(p.name) << "\"><th>" << html_pass_link(first, p.name) << "</th><td>" << p.runs
       << "</td><td>" << p.changes << "</td><td>" << p.nodes_removed << "</td><td>" << html_num(p.seconds)
       << "</td></tr>\n";
  os << "</tbody></table>\n";
}

void html_check(std::ostringstream& os, const Verification& v) {
  if (!v.ran) {
    os << "<p id=\"check-status\" class=\"skipped\">The check did not run: "
       << html_esc(v.skipped.empty() ? std::string("not asked") : v.skipped) << "</p>\n";
    return;
  }
  os << "<p id=\"check-status\" class=\"" << (v.ok ? "ok" : "failed") << "\">" << (v.ok ? "Equal" : "DIFFERENT")
     << " on " << v.samples << " sample(s), rtol " << html_num(v.rtol) << ", atol " << html_num(v.atol)
     << (v.ok ? "" : ": " + html_esc(v.why)) << "</p>\n";
  if (!v.sizes.empty()) os << "<p>Sizes: " << html_esc(v.sizes) << "</p>\n";
  if (!v.compared.empty()) os << "<p>Compared against: " << html_esc(v.compared) << "</p>\n";
  os << "<table id=\"check\"><thead><tr><th>output</th><th>result</th><th>max abs</th><th>max rel</th><th>rel L2</th>"
        "<th>note</th></tr></thead><tbody>\n";
  std::vector<std::string> not_comparable;
  for (const OutputCheck& c : v.outputs) {
    if (!c.comparable) not_comparable.push_back(c.name);
    os << "<tr data-output=\"" << html_esc(c.name) << "\"><th>" << html_esc(c.name) << "</th><td>"
       << (!c.comparable ? "not compared"
           : c.ok        ? "ok"
                         : "DIFFERENT")
       << "</td><td>" << html_num(c.max_abs) << "</td><td>" << html_num(c.max_rel) << "</td><td>" << html_num(c.rel_l2)
       << "</td><td>" << html_esc(c.why) << "</td></tr>\n";
  }
  os << "</tbody></table>\n";
  if (!not_comparable.empty()) {
    os << "<p>Not comparable (they depend on a random op without a counterpart):</p><ul id=\"not-comparable\">";
    for (const auto& n : not_comparable) os << "<li>" << html_esc(n) << "</li>";
    os << "</ul>\n";
  }
  if (!v.random.empty()) os << "<p>" << html_esc(v.random) << "</p>\n";
}

void html_diff(std::ostringstream& os, const GraphDiff& d) {
  // A removed node whose output name an added node now makes was replaced by that node (a fused
  // block keeps its last output's name); that is the link shown. Other removed nodes have none known.
  std::map<std::string, size_t> added_by_output;
  for (size_t i = 0; i < d.added.size(); ++i)
    for (const auto& o : d.added[i].outputs) added_by_output.emplace(o, i);
  std::map<size_t, std::vector<size_t>> replaced;  // added -> removed
  std::vector<long> replaced_by(d.removed.size(), -1);
  for (size_t i = 0; i < d.removed.size(); ++i)
    for (const auto& o : d.removed[i].outputs) {
      auto it = added_by_output.find(o);
      if (it != added_by_output.end()) {
        replaced_by[i] = static_cast<long>(it->second);
        replaced[it->second].push_back(i);
        break;
      }
    }
  // Provenance: each rewrite's nodes found among the diff's rows (by name and op; an unnamed
  // node by op and outputs), and back from each row to the last rewrite that removed or made it.
  auto row_key = [](const GraphDiff::NodeRef& n) {
    std::string k = n.name.empty() ? "o|" + n.op + "|" : "n|" + n.name + "|" + n.op;
    if (n.name.empty())
      for (const auto& o : n.outputs) k += o + ",";
    return k;
  };
  std::map<std::string, size_t> removed_row, added_row, changed_row;
  for (size_t i = 0; i < d.removed.size(); ++i) removed_row.emplace(row_key(d.removed[i]), i);
  for (size_t i = 0; i < d.added.size(); ++i) added_row.emplace(row_key(d.added[i]), i);
  for (size_t i = 0; i < d.changed.size(); ++i) changed_row.emplace(row_key(d.changed[i].node), i);
  std::vector<long> removed_by(d.removed.size(), -1), added_by(d.added.size(), -1), changed_by(d.changed.size(), -1);
  for (size_t k = 0; k < d.rewrites.size(); ++k) {
    for (const auto& n : d.rewrites[k].removed) {
      auto it = removed_row.find(row_key(n));
      if (it != removed_row.end()) removed_by[it->second] = static_cast<long>(k);
    }
    for (const auto& n : d.rewrites[k].added) {
      auto it = added_row.find(row_key(n));
      if (it != added_row.end()) added_by[it->second] = static_cast<long>(k);
    }
    for (const auto& n : d.rewrites[k].changed) {
      auto it = changed_row.find(row_key(n));
      if (it != changed_row.end()) changed_by[it->second] = static_cast<long>(k);
    }
  }
  auto rewrite_link = [&](long k) {
    if (k < 0) return std::string();
    const auto& w = d.rewrites[static_cast<size_t>(k)];
    return "<a href=\"#rewrite-" + std::to_string(k) + "\">" + html_esc(w.pass) + " (round " + std::to_string(w.round) +
           ")</a>";
  };
  os << "<p id=\"diff-summary\">" << d.kept << " node(s) kept (" << d.changed.size() << " edited in place), "
     << d.removed.size() << " removed, " << d.added.size()
     << " added (main graph; nodes matched by name and op, else by op and inputs).</p>\n";
  if (!d.rewrites.empty()) {
    // A node of a rewrite that no row shows was made and removed by the passes (an intermediate).
    auto cell = [&](const std::vector<GraphDiff::NodeRef>& l, const std::map<std::string, size_t>& rows,
                    const char* anchor, const char* missing_class, const char* missing) {
      std::string c;
      for (const auto& n : l) {
        auto it = rows.find(row_key(n));
        // An edited node is in the edited table, or (made by an earlier pass) in the added one.
        auto ch = changed_row.find(row_key(n));
        if (std::string(anchor) == "changed" && ch != changed_row.end())
          c += "<a href=\"#changed-" + std::to_string(ch->second) + "\">" + html_node_label(n) + "</a><br>";
        else if (std::string(anchor) == "changed" && added_row.count(row_key(n)))
          c += "<a href=\"#added-" + std::to_string(added_row.at(row_key(n))) + "\">" + html_node_label(n) + "</a><br>";
        else if (std::string(anchor) != "changed" && it != rows.end())
          c += "<a href=\"#" + std::string(anchor) + "-" + std::to_string(it->second) + "\">" + html_node_label(n) +
               "</a><br>";
        else
          c += "<span class=\"" + std::string(missing_class) + "\" title=\"" + missing + "\">" + html_node_label(n) +
               "</span><br>";
      }
      return c;
    };
    os << "<h3>Rewrites</h3>\n<p>Each pass run that removed, made or edited nodes of the main graph; a link leads to "
          "the "
          "node's row below; a grey node was made and removed by the passes.</p>\n<table "
          "id=\"diff-rewrites\"><thead><tr>"
          "<th>#</th><th>round</th><th>pass</th><th>removed</th><th>added</th><th>edited</th></tr></thead><tbody>\n";
    for (size_t k = 0; k < d.rewrites.size(); ++k) {
      const auto& w = d.rewrites[k];
      os << "<tr id=\"rewrite-" << k << "\" data-pass=\"" << html_esc(w.pass) << "\"><td>" << k << "</td><td>"
         << w.round << "</td><th>" << html_esc(w.pass) << "</th><td class=\"removed\">"
         << cell(w.removed, removed_row, "removed", "transient", "not in the original: made by an earlier pass")
         << "</td><td class=\"added\">"
         << cell(w.added, added_row, "added", "transient", "not in the result: removed by a later pass")
         << "</td><td class=\"changed\">"
         << cell(w.changed, changed_row, "changed", "kept", "edited again or back by a later pass, or removed by one")
         << "</td></tr>\n";
    }
    os << "</tbody></table>\n";
  }
  os << "<h3>Removed nodes</h3>\n<table id=\"diff-removed\"><thead><tr><th>#</th><th>node</th><th>replaced by</th>"
        "<th>removed by</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < d.removed.size(); ++i) {
    os << "<tr id=\"removed-" << i << "\"><td>" << i << "</td><td>" << html_node_label(d.removed[i]) << "</td><td>";
    if (replaced_by[i] >= 0)
      os << "<a href=\"#added-" << replaced_by[i] << "\">" << html_node_label(d.added[replaced_by[i]]) << "</a>";
    os << "</td><td>" << rewrite_link(removed_by[i]) << "</td></tr>\n";
  }
  os << "</tbody></table>\n";
  os << "<h3>Added nodes</h3>\n<table id=\"diff-added\"><thead><tr><th>#</th><th>node</th><th>replaces</th>"
        "<th>made by</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < d.added.size(); ++i) {
    os << "<tr id=\"added-" << i << "\"><td>" << i << "</td><td>" << html_node_label(d.added[i]) << "</td><td>";
    auto it = replaced.find(i);
    if (it != replaced.end())
      for (size_t k : it->second) os << "<a href=\"#removed-" << k << "\">" << html_node_label(d.removed[k]) << "</a> ";
    os << "</td><td>" << rewrite_link(added_by[i]) << "</td></tr>\n";
  }
  os << "</tbody></table>\n";
  os << "<h3>Nodes edited in place</h3>\n<table id=\"diff-changed\"><thead><tr><th>#</th><th>node</th><th>what "
        "differs</th>"
        "<th>edited by</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < d.changed.size(); ++i)
    os << "<tr id=\"changed-" << i << "\"><td>" << i << "</td><td>" << html_node_label(d.changed[i].node) << "</td><td>"
       << html_esc(d.changed[i].what) << "</td><td>" << rewrite_link(changed_by[i]) << "</td></tr>\n";
  os << "</tbody></table>\n";
  os << "<h3>Op counts that changed</h3>\n<table "
        "id=\"diff-ops\"><thead><tr><th>op</th><th>before</th><th>after</th></tr>"
        "</thead><tbody>\n";
  for (const auto& c : d.ops)
    os << "<tr><th>" << html_esc(c.op) << "</th><td>" << c.before << "</td><td>" << c.after << "</td></tr>\n";
  os << "</tbody></table>\n";
  os << "<h3>Values retyped</h3>\n<table id=\"diff-values\"><thead><tr><th>value</th><th>before</th><th>after</th></tr>"
        "</thead><tbody>\n";
  for (const auto& c : d.values)
    os << "<tr><th>" << html_esc(c.name) << "</th><td>" << html_esc(c.before) << "</td><td>" << html_esc(c.after)
       << "</td></tr>\n";
  os << "</tbody></table>\n";
  auto inits = [&](const char* id, const char* title, const std::vector<GraphDiff::InitChange>& l) {
    os << "<h3>" << title << "</h3>\n<table id=\"" << id << "\"><thead><tr><th>initializer</th><th>bytes before</th>"
       << "<th>bytes after</th></tr></thead><tbody>\n";
    for (const auto& c : l)
      os << "<tr><th>" << html_esc(c.name) << "</th><td>" << (c.bytes_before < 0 ? "" : std::to_string(c.bytes_before))
         << "</td><td>" << (c.bytes_after < 0 ? "" : std::to_string(c.bytes_after)) << "</td></tr>\n";
    os << "</tbody></table>\n";
  };
  inits("diff-init-added", "Initializers added", d.initializers_added);
  inits("diff-init-removed", "Initializers removed", d.initializers_removed);
  inits("diff-init-changed", "Initializers changed", d.initializers_changed);
  auto list = [&](const char* id, const char* title, const std::vector<std::string>& l) {
    if (l.empty()) return;
    os << "<h3>" << title << "</h3><ul id=\"" << id << "\">";
    for (const auto& s : l) os << "<li>" << html_esc(s) << "</li>";
    os << "</ul>\n";
  };
  list("diff-inputs", "Graph inputs", d.inputs);
  list("diff-outputs", "Graph outputs", d.outputs);
}

}  // namespace

std::string report_html(const Report& r) {
  std::ostringstream os;
  const std::string title = "onnxtrim report: " + (r.input_path.empty() ? std::string("model") : r.input_path);
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << html_esc(title)
     << "</title>\n<style>\n"
        "body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}\n"
        "table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
        "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\n"
        "td{font-variant-numeric:tabular-nums}\n"
        "thead th{background:#f0f0f0}\n"
        "tr.changed th{color:#b35000}\n"
        ".bar{display:block;height:6px;margin:1px 0}.bar.before{background:#999}.bar.after{background:#1f77b4}\n"
        ".ok{color:#127a12}.failed{color:#b00;font-weight:bold}.skipped{color:#777}\n"
        "tr:target{background:#fff3b0}\n"
        ".transient{color:#888}\n"
        "nav a{margin-right:1em}\n"
        "</style></head><body>\n";
  os << "<h1>" << html_esc(title) << "</h1>\n";
  if (!r.output_path.empty()) os << "<p>Result: <code>" << html_esc(r.output_path) << "</code></p>\n";
  os << "<nav><a href=\"#sec-summary\">Before / after</a><a href=\"#sec-ops\">Ops</a><a href=\"#sec-rounds\">Rounds</a>"
        "<a href=\"#sec-profile\">Time and memory</a><a href=\"#sec-check\">Check</a><a href=\"#sec-diff\">Graph "
        "diff</a></nav>\n";
  if (!r.warnings.empty()) {
    os << "<h2>Warnings</h2><ul id=\"warnings\">";
    for (const auto& w : r.warnings) os << "<li>" << html_esc(w) << "</li>";
    os << "</ul>\n";
  }
  os << "<h2 id=\"sec-summary\">Before / after</h2>\n";
  html_stats_table(os, r);
  os << "<h2 id=\"sec-ops\">Op histogram</h2>\n";
  html_ops_table(os, r);
  os << "<h2 id=\"sec-rounds\">Nodes per round</h2>\n<div id=\"rounds\">";
  if (r.round_stats.empty()) os << "<p>No pass ran.</p>";
  else os << node_reduction_svg(r.round_stats);
  os << "</div>\n<p>" << r.rounds << " round(s)" << (r.converged ? "" : ", not converged") << ".</p>\n";
  os << "<h2 id=\"sec-profile\">Time and memory</h2>\n";
  html_profile(os, r);
  if (!r.fusions.empty()) {
    os << "<h2 id=\"sec-fusions\">Standard-op fusions</h2>\n<table id=\"fusions\"><thead><tr><th>op</th><th>pass</th>"
          "<th>fused</th><th>would fuse</th></tr></thead><tbody>\n";
    const std::map<std::string, size_t> first = html_first_rewrite(r.graph_diff);
    for (const Fusion& f : r.fusions)
      os << "<tr><th>" << html_esc(f.op) << "</th><td>" << html_pass_link(first, f.pass) << "</td><td>" << f.fused
         << "</td><td>" << f.would_fuse << "</td></tr>\n";
    os << "</tbody></table>\n";
  }
  os << "<h2 id=\"sec-check\">Check</h2>\n";
  html_check(os, r.verification);
  os << "<h2 id=\"sec-diff\">Graph diff</h2>\n";
  if (r.graph_diff.ran) html_diff(os, r.graph_diff);
  else os << "<p>No graph diff.</p>\n";
  os << "</body></html>\n";
  return os.str();
}

}  // namespace onnxtrim
