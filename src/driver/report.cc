#include "driver/report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace onnxtrim {

namespace {
void count_graph(const ir::Graph& g, ModelStats& s, bool top) {
  g.for_each_node([&](const ir::Node* n) {
    ++s.nodes;
    if (top) ++s.top_level_nodes;
    std::string key = n->is_default_domain() ? n->op_type : n->domain + "." + n->op_type;
    ++s.op_histogram[key];
    for (const ir::Graph* sg : n->subgraphs()) count_graph(*sg, s, false);
  });
  for (const ir::Value* v : g.initializers()) {
    ++s.initializers;
    s.initializer_bytes += static_cast<int64_t>(v->initializer()->byte_size());
    for (const auto& str : v->initializer()->strings()) s.initializer_bytes += static_cast<int64_t>(str.size());
  }
}
}  // namespace

ModelStats compute_stats(const ir::Model& m) {
  ModelStats s;
  count_graph(*m.graph, s, true);
  return s;
}

std::string human_bytes(int64_t n) {
  if (n < 0) return "-";
  char buf[64];
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0) std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(n));
  else std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

namespace {

// "standard ops fused: 2 Attention, 4 RotaryEmbedding" and, per opset the model lacks, "--opset
// 23 would fuse 2 Attention (ONNX Runtime >= 1.23)".
std::string fusions_text(const std::vector<Fusion>& fusions) {
  std::string done, out;
  std::map<int64_t, std::pair<std::string, std::string>> would;  // opset -> ops, runtimes
  for (const Fusion& f : fusions) {
    if (f.fused > 0) done += (done.empty() ? "" : ", ") + std::to_string(f.fused) + " " + f.op;
    if (f.would_fuse > 0) {
      auto& [ops, runtimes] = would[f.opset];
      ops += (ops.empty() ? "" : ", ") + std::to_string(f.would_fuse) + " " + f.op;
      runtimes = f.runtimes;
    }
  }
  if (!done.empty()) out += "standard ops fused: " + done + "\n";
  for (const auto& [opset, w] : would)
    out += "--opset " + std::to_string(opset) + " would fuse " + w.first + " (" + w.second + ")\n";
  return out.empty() ? out : "\n" + out;
}

// --graph-diff as text: one line per kind of change, lists capped at 8 with "... N more".
std::string graph_diff_text(const GraphDiff& d) {
  std::ostringstream os;
  const size_t cap = 8;
  auto node = [](const GraphDiff::NodeRef& r) {
    std::string outs;
    for (const auto& o : r.outputs) outs += (outs.empty() ? "" : ",") + o;
    return r.op + (r.name.empty() ? "" : " '" + r.name + "'") + (outs.empty() ? "" : " -> " + outs);
  };
  auto list = [&](const char* title, size_t n, const std::function<std::string(size_t)>& item) {
    if (n == 0) return;
    os << "  " << title << " (" << n << "):";
    for (size_t i = 0; i < n && i < cap; ++i) os << (i ? "; " : " ") << item(i);
    if (n > cap) os << "; ... " << n - cap << " more";
    os << "\n";
  };
  auto bytes = [](int64_t b) { return b < 0 ? std::string("-") : human_bytes(b); };
  os << "\ngraph diff (main graph): " << d.kept << " nodes kept, " << d.removed.size() << " removed, " << d.added.size()
     << " added\n";
  std::string ops;
  for (const auto& c : d.ops)
    ops += (ops.empty() ? "" : ", ") + c.op + " " + std::to_string(c.before) + " -> " + std::to_string(c.after);
  if (!ops.empty()) os << "  op counts: " << ops << "\n";
  list("removed", d.removed.size(), [&](size_t i) { return node(d.removed[i]); });
  list("added", d.added.size(), [&](size_t i) { return node(d.added[i]); });
  list("edited in place", d.changed.size(),
       [&](size_t i) { return node(d.changed[i].node) + " (" + d.changed[i].what + ")"; });
  list("values retyped", d.values.size(),
       [&](size_t i) { return d.values[i].name + ": " + d.values[i].before + " -> " + d.values[i].after; });
  list("initializers removed", d.initializers_removed.size(), [&](size_t i) {
    return d.initializers_removed[i].name + " (" + bytes(d.initializers_removed[i].bytes_before) + ")";
  });
  list("initializers added", d.initializers_added.size(), [&](size_t i) {
    return d.initializers_added[i].name + " (" + bytes(d.initializers_added[i].bytes_after) + ")";
  });
  list("initializers changed", d.initializers_changed.size(), [&](size_t i) {
    const auto& c = d.initializers_changed[i];
    return c.name + " (" + bytes(c.bytes_before) + " -> " + bytes(c.bytes_after) + ")";
  });
  list("graph inputs", d.inputs.size(), [&](size_t i) { return d.inputs[i]; });
  list("graph outputs", d.outputs.size(), [&](size_t i) { return d.outputs[i]; });
  if (d.inputs.empty() && d.outputs.empty()) os << "  graph inputs and outputs unchanged\n";
  list("rewrites (round pass: nodes removed, added, edited)", d.rewrites.size(), [&](size_t i) {
    const auto& w = d.rewrites[i];
    return std::to_string(w.round) + " " + w.pass + ": -" + std::to_string(w.removed.size()) + " +" +
           std::to_string(w.added.size()) + " ~" + std::to_string(w.changed.size());
  });
  return os.str();
}

// --profile as text: the stages (time, peak memory), then the passes by time.
std::string profile_text(const std::vector<StageProfile>& stages, const std::vector<PassStats>& passes) {
  std::ostringstream os;
  char line[256];
  os << "\nprofile:\n";
  std::snprintf(line, sizeof line, "  %-10s %12s %14s\n", "stage", "time", "peak memory");
  os << line;
  for (const auto& s : stages) {
    std::snprintf(line, sizeof line, "  %-10s %9.1f ms %14s\n", s.name.c_str(), s.seconds * 1e3,
                  s.peak_bytes < 0 ? "not measured" : human_bytes(s.peak_bytes).c_str());
    os << line;
  }
  std::vector<const PassStats*> by_time;
  for (const auto& p : passes) by_time.push_back(&p);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const PassStats* a, const PassStats* b) { return a->seconds > b->seconds; });
  if (!by_time.empty()) {
    std::snprintf(line, sizeof line, "  %-34s %9s %5s\n", "pass (slowest first)", "time", "runs");
    os << line;
  }
  for (size_t i = 0; i < by_time.size() && i < 10; ++i) {
    std::snprintf(line, sizeof line, "  %-34s %6.3f ms %5lld\n", by_time[i]->name.c_str(), by_time[i]->seconds * 1e3,
                  static_cast<long long>(by_time[i]->runs));
    os << line;
  }
  if (by_time.size() > 10) os << "  ... " << by_time.size() - 10 << " more (the JSON report lists them all)\n";
  return os.str();
}

}  // namespace

std::string node_reduction_svg(const std::vector<RoundStats>& rounds) {
  // A 640x360 chart: nodes (left axis, blue) and initializer bytes (right axis, orange) per round.
  const double W = 640, H = 360, L = 70, R = 80, T = 40, B = 50;
  const double pw = W - L - R, ph = H - T - B;
  int64_t max_nodes = 1, max_bytes = 1;
  int last = 1;
  for (const auto& r : rounds) {
    max_nodes = std::max(max_nodes, r.nodes);
    max_bytes = std::max(max_bytes, r.initializer_bytes);
    last = std::max(last, r.round);
  }
  auto x = [&](int round) { return L + pw * round / last; };
  auto y = [&](double v, double max) { return T + ph - ph * v / max; };
  std::ostringstream os;
  char buf[256];
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
     << " " << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  os << "<title>nodes and initializer bytes per round</title>\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << "<text x=\"" << W / 2
     << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">Nodes and initializer bytes after each round</text>\n";
  // Axes, ticks at 0, 1/4 .. 1 of each maximum, one tick per round.
  std::snprintf(buf, sizeof buf, "<path d=\"M%.1f %.1f V%.1f H%.1f V%.1f\" fill=\"none\" stroke=\"black\"/>\n", L, T,
                T + ph, L + pw, T);
  os << buf;
  for (int i = 0; i <= 4; ++i) {
    double yy = T + ph - ph * i / 4;
    std::snprintf(buf, sizeof buf, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, yy,
                  L + pw, yy);
    os << buf;
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#1f77b4\">%lld</text>\n",
                  L - 6, yy + 4, static_cast<long long>(max_nodes * i / 4));
    os << buf;
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#d62728\">%s</text>\n", L + pw + 6, yy + 4,
                  human_bytes(max_bytes * i / 4).c_str());
    os << buf;
  }
  for (int rd = 0; rd <= last; ++rd) {
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n", x(rd), T + ph + 16,
                  rd);
    os << buf;
  }
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">round (0: before the passes)</text>\n", L + pw / 2,
                H - 12);
  os << buf;
  std::snprintf(buf, sizeof buf,
                "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\" "
                "fill=\"#1f77b4\">nodes</text>\n",
                T + ph / 2, T + ph / 2);
  os << buf;
  std::snprintf(buf, sizeof buf,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(90 %.1f %.1f)\" "
                "fill=\"#d62728\">initializer bytes</text>\n",
                W - 12, T + ph / 2, W - 12, T + ph / 2);
  os << buf;
  auto series = [&](const char* id, const char* color, auto value, double max) {
    os << "<polyline id=\"" << id << "\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\" points=\"";
    for (const auto& r : rounds) {
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", x(r.round), y(static_cast<double>(value(r)), max));
      os << buf;
    }
    os << "\"/>\n";
    for (const auto& r : rounds) {
      std::snprintf(buf, sizeof buf,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>round %d: %lld</title></circle>\n",
                    x(r.round), y(static_cast<double>(value(r)), max), color, r.round,
                    static_cast<long long>(value(r)));
      os << buf;
    }
  };
  series(
      "nodes", "#1f77b4", [](const RoundStats& r) { return r.nodes; }, static_cast<double>(max_nodes));
  series(
      "initializer_bytes", "#d62728", [](const RoundStats& r) { return r.initializer_bytes; },
      static_cast<double>(max_bytes));
  if (rounds.empty())
    os << "<text x=\"" << L + pw / 2 << "\" y=\"" << T + ph / 2 << "\" text-anchor=\"middle\">no pass ran</text>\n";
  os << "</svg>\n";
  return os.str();
}

std::string Report::to_text() const {
  std::ostringstream os;
  char line[256];
  std::set<std::string> ops;
  for (const auto& [k, v] : before.op_histogram) ops.insert(k);
  for (const auto& [k, v] : after.op_histogram) ops.insert(k);
  size_t w = 10;
  for (const auto& k : ops) w = std::max(w, k.size());
  auto row = [&](const std::string& name, const std::string& a, const std::string& b, bool mark) {
    std::snprintf(line, sizeof line, "%s %-*s %14s %14s\n", mark ? "*" : " ", static_cast<int>(w), name.c_str(),
                  a.c_str(), b.c_str());
    os << line;
  };
  row("", "before", "after", false);
  for (const auto& k : ops) {
    auto get = [&](const ModelStats& s) {
      auto it = s.op_histogram.find(k);
      return it == s.op_histogram.end() ? int64_t{0} : it->second;
    };
    int64_t a = get(before), b = get(after);
    row(k, std::to_string(a), std::to_string(b), a != b);
  }
  row("nodes", std::to_string(before.nodes), std::to_string(after.nodes), before.nodes != after.nodes);
  row("initializers", std::to_string(before.initializers), std::to_string(after.initializers),
      before.initializers != after.initializers);
  row("init. bytes", human_bytes(before.initializer_bytes), human_bytes(after.initializer_bytes),
      before.initializer_bytes != after.initializer_bytes);
  row("file size", human_bytes(before.file_bytes), human_bytes(after.file_bytes),
      before.file_bytes != after.file_bytes);
  if (!passes.empty()) {
    os << "\npasses (" << rounds << " round" << (rounds == 1 ? "" : "s") << (converged ? "" : ", cap hit") << "):\n";
    for (const auto& p : passes) {
      std::snprintf(line, sizeof line, "  %-34s %6lld changes %6lld nodes removed %9.3f ms\n", p.name.c_str(),
                    static_cast<long long>(p.changes), static_cast<long long>(p.nodes_removed), p.seconds * 1e3);
      os << line;
    }
  }
  os << fusions_text(fusions);
  os << "\ntime:";
  double total = 0;
  for (const auto& [name, sec] : stages) {
    if (sec < 1) std::snprintf(line, sizeof line, " %s %.1f ms,", name.c_str(), sec * 1e3);
    else std::snprintf(line, sizeof line, " %s %.2f s,", name.c_str(), sec);
    os << line;
    total += sec;
  }
  if (total < 1) std::snprintf(line, sizeof line, " total %.1f ms\n", total * 1e3);
  else std::snprintf(line, sizeof line, " total %.2f s\n", total);
  os << line;
  for (const auto& wmsg : warnings) os << "warning: " << wmsg << "\n";
  for (const auto& smsg : surgery) os << "surgery: " << smsg << "\n";
  if (!explain_node.empty()) {
    os << "explain '" << explain_node << "':\n";
    for (const auto& [rule, why] : explain) os << "  " << (rule.empty() ? "" : rule + ": ") << why << "\n";
  }
  if (inlining.ran) {
    os << "functions inlined: " << inlining.calls << " call" << (inlining.calls == 1 ? "" : "s");
    std::string names;
    for (const auto& f : inlining.inlined) names += (names.empty() ? "" : ", ") + f;
    if (!names.empty()) os << " of " << names;
    if (!inlining.removed.empty()) os << "; " << inlining.removed.size() << " removed from the model";
    if (!inlining.opsets_added.empty()) {
      std::string imps;
      for (const auto& i : inlining.opsets_added) imps += (imps.empty() ? "" : ", ") + i;
      os << "; opsets imported: " << imps;
    }
    os << "\n";
  }
  if (opset.to != 0 && opset.from != opset.to) {
    os << "opset " << opset.from << " -> " << opset.to << ": " << opset.nodes_converted << " node"
       << (opset.nodes_converted == 1 ? "" : "s") << " changed version, " << opset.nodes_rewritten << " rewritten, "
       << opset.nodes_expanded << " expanded\n";
    for (const auto& note : opset.notes) os << "  " << note << "\n";
  } else if (opset.to != 0) {
    os << "opset: the model already imports opset " << opset.to << "\n";
  }
  const Conversion& c = conversion;
  if (!c.dtype.empty()) {
    os << "\nconvert to " << c.dtype << (c.keep_io_types ? " (inputs and outputs keep their types)" : "") << ": "
       << c.converted_nodes << " node" << (c.converted_nodes == 1 ? "" : "s") << " converted, "
       << c.initializers_converted << " constant" << (c.initializers_converted == 1 ? "" : "s") << " converted, "
       << c.casts_added << " Cast" << (c.casts_added == 1 ? "" : "s") << " added, " << c.kept.size() << " node"
       << (c.kept.size() == 1 ? "" : "s") << " kept in float32"
       << (c.ranges_observed ? "" : " (value ranges not observed: the model could not run)") << "\n";
    size_t shown = 0;
    for (const auto& k : c.kept) {
      if (++shown > 20) {
        os << "  ... and " << c.kept.size() - 20 << " more (the JSON report lists them all)\n";
        break;
      }
      os << "  kept " << k.node << ": " << k.reason << "\n";
    }
  }
  if (graph_diff.ran) os << graph_diff_text(graph_diff);
  if (!profile.empty()) os << profile_text(profile, passes);
  const Verification& v = verification;
  // How random ops were handled, and the outputs not compared because of them.
  auto random_lines = [&] {
    if (!v.random.empty()) os << "  random ops: " << v.random << "\n";
    for (const auto& o : v.outputs)
      if (!o.comparable) os << "  not comparable: " << o.name << ": " << o.why << "\n";
  };
  if (!v.skipped.empty()) {
    os << "check: skipped: " << v.skipped << "\n";
  } else if (v.ran) {
    // The criterion: the relative L2 error of each output (l2_tol), else a bound per element.
    bool l2 = v.l2_tol > 0;
    std::string dims;
    for (const auto& [k, d] : v.dims) dims += (dims.empty() ? "" : ", ") + k + "=" + std::to_string(d);
    os << "\ncheck: " << v.samples << " random sample" << (v.samples == 1 ? "" : "s")
       << (dims.empty() ? "" : " (" + dims + ")");
    if (l2) os << ", against the original: relative L2 error per output <= " << v.l2_tol << ":\n";
    else os << ", |result - original| <= " << v.atol << " + " << v.rtol << " * max(|original|, RMS of the output):\n";
    std::snprintf(line, sizeof line, "  %-32s %12s %12s  %s\n", "output", l2 ? "rel L2" : "max abs",
                  l2 ? "max abs" : "max rel", "result");
    os << line;
    for (const auto& o : v.outputs) {
      if (!o.comparable)
        std::snprintf(line, sizeof line, "  %-32s %12s %12s  %s\n", o.name.c_str(), "-", "-", "not comparable");
      else
        std::snprintf(line, sizeof line, "  %-32s %12.4g %12.4g  %s\n", o.name.c_str(), l2 ? o.rel_l2 : o.max_abs,
                      l2 ? o.max_abs : o.max_rel, o.ok ? "ok" : "DIFFERS");
      os << line;
    }
    if (!v.sizes.empty()) os << "  sizes: " << v.sizes << "\n";
    random_lines();
    if (!v.ok) os << "  first difference: " << v.why << "\n";
    if (!l2 && !v.compared.empty()) os << "  compared: " << v.compared << "\n";
  }
  return os.str();
}

namespace {
nlohmann::json stats_json(const ModelStats& s) {
  return {{"nodes", s.nodes},
          {"top_level_nodes", s.top_level_nodes},
          {"initializers", s.initializers},
          {"initializer_bytes", s.initializer_bytes},
          {"file_bytes", s.file_bytes},
          {"op_histogram", s.op_histogram}};
}
nlohmann::ordered_json verification_json(const Verification& v) {
  nlohmann::ordered_json vj;
  vj["ran"] = v.ran;
  vj["ok"] = v.ok;
  if (!v.skipped.empty()) vj["skipped"] = v.skipped;
  vj["samples"] = v.samples;
  vj["rtol"] = v.rtol;
  vj["atol"] = v.atol;
  if (v.l2_tol > 0) vj["l2_tol"] = v.l2_tol;
  vj["dims"] = v.dims;
  if (!v.sizes.empty()) vj["sizes"] = v.sizes;
  vj["outputs"] = nlohmann::json::array();
  for (const auto& o : v.outputs)
    vj["outputs"].push_back({{"name", o.name},
                             {"max_abs", o.max_abs},
                             {"max_rel", o.max_rel},
                             {"scale", o.scale},
                             {"rel_l2", o.rel_l2},
                             {"ok", o.ok},
                             {"why", o.why},
                             {"comparable", o.comparable}});
  if (!v.why.empty()) vj["why"] = v.why;
  if (!v.random.empty()) {
    nlohmann::ordered_json rj;
    rj["summary"] = v.random;
    rj["drawn_alike"] = v.random_alike;
    rj["unmatched"] = v.random_unmatched;
    rj["seeded"] = v.random_seeded;
    vj["random"] = rj;
  }
  if (!v.compared.empty()) vj["compared"] = v.compared;
  return vj;
}
}  // namespace

std::string Verification::to_json() const {
  return verification_json(*this).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string Report::to_json() const {
  nlohmann::ordered_json j;
  j["input"] = input_path;
  j["output"] = output_path;
  j["before"] = stats_json(before);
  j["after"] = stats_json(after);
  j["stages"] = nlohmann::json::array();
  for (const auto& [name, sec] : stages) j["stages"].push_back({{"name", name}, {"seconds", sec}});
  j["rounds"] = rounds;
  j["round_stats"] = nlohmann::json::array();
  for (const RoundStats& r : round_stats)
    j["round_stats"].push_back({{"round", r.round}, {"nodes", r.nodes}, {"initializer_bytes", r.initializer_bytes}});
  if (!profile.empty()) {
    j["profile"] = nlohmann::json::array();
    for (const StageProfile& s : profile) {
      nlohmann::ordered_json e;
      e["stage"] = s.name;
      e["seconds"] = s.seconds;
      if (s.peak_bytes >= 0) e["peak_bytes"] = s.peak_bytes;
      else e["peak_bytes"] = nullptr;  // not measured
      j["profile"].push_back(e);
    }
  }
  j["converged"] = converged;
  j["passes"] = nlohmann::json::array();
  for (const auto& p : passes)
    j["passes"].push_back({{"name", p.name},
                           {"runs", p.runs},
                           {"changes", p.changes},
                           {"nodes_removed", p.nodes_removed},
                           {"seconds", p.seconds}});
  j["fusions"] = nlohmann::json::array();
  for (const Fusion& f : fusions)
    j["fusions"].push_back({{"pass", f.pass},
                            {"op", f.op},
                            {"opset", f.opset},
                            {"fused", f.fused},
                            {"would_fuse", f.would_fuse},
                            {"runtimes", f.runtimes}});
  j["warnings"] = warnings;
  j["surgery"] = surgery;
  if (!explain_node.empty()) {
    nlohmann::ordered_json ej;
    ej["node"] = explain_node;
    ej["rewrites"] = nlohmann::json::array();
    for (const auto& [rule, why] : explain) ej["rewrites"].push_back({{"rewrite", rule}, {"result", why}});
    j["explain"] = ej;
  }
  j["verification"] = verification_json(verification);
  if (graph_diff.ran) {
    const GraphDiff& d = graph_diff;
    auto nodes = [](const std::vector<GraphDiff::NodeRef>& l) {
      auto a = nlohmann::json::array();
      for (const auto& r : l) a.push_back({{"name", r.name}, {"op", r.op}, {"outputs", r.outputs}});
      return a;
    };
    auto inits = [](const std::vector<GraphDiff::InitChange>& l) {
      auto a = nlohmann::ordered_json::array();
      for (const auto& c : l) {
        nlohmann::ordered_json e;
        e["name"] = c.name;
        if (c.bytes_before >= 0) e["bytes_before"] = c.bytes_before;
        if (c.bytes_after >= 0) e["bytes_after"] = c.bytes_after;
        a.push_back(e);
      }
      return a;
    };
    nlohmann::ordered_json gj;
    gj["nodes_kept"] = d.kept;
    gj["nodes_removed"] = nodes(d.removed);
    gj["nodes_added"] = nodes(d.added);
    gj["nodes_changed"] = nlohmann::json::array();
    for (const auto& c : d.changed)
      gj["nodes_changed"].push_back(
          {{"name", c.node.name}, {"op", c.node.op}, {"outputs", c.node.outputs}, {"what", c.what}});
    gj["op_counts"] = nlohmann::json::array();
    for (const auto& c : d.ops) gj["op_counts"].push_back({{"op", c.op}, {"before", c.before}, {"after", c.after}});
    gj["values_retyped"] = nlohmann::json::array();
    for (const auto& c : d.values)
      gj["values_retyped"].push_back({{"name", c.name}, {"before", c.before}, {"after", c.after}});
    gj["initializers_removed"] = inits(d.initializers_removed);
    gj["initializers_added"] = inits(d.initializers_added);
    gj["initializers_changed"] = inits(d.initializers_changed);
    gj["inputs"] = d.inputs;
    gj["outputs"] = d.outputs;
    gj["rewrites"] = nlohmann::json::array();
    for (const auto& w : d.rewrites) {
      nlohmann::ordered_json e;
      e["pass"] = w.pass;
      e["round"] = w.round;
      e["removed"] = nodes(w.removed);
      e["added"] = nodes(w.added);
      e["changed"] = nodes(w.changed);
      gj["rewrites"].push_back(e);
    }
    j["graph_diff"] = gj;
  }
  if (inlining.ran) {
    nlohmann::ordered_json ij;
    ij["calls"] = inlining.calls;
    ij["inlined"] = inlining.inlined;
    ij["removed"] = inlining.removed;
    ij["opsets_added"] = inlining.opsets_added;
    j["inlined_functions"] = ij;
  }
  if (opset.to != 0) {
    nlohmann::ordered_json oj;
    oj["from"] = opset.from;
    oj["to"] = opset.to;
    oj["nodes_converted"] = opset.nodes_converted;
    oj["nodes_rewritten"] = opset.nodes_rewritten;
    oj["nodes_expanded"] = opset.nodes_expanded;
    oj["notes"] = opset.notes;
    j["opset"] = oj;
  }
  if (!conversion.dtype.empty()) {
    nlohmann::ordered_json cj;
    cj["dtype"] = conversion.dtype;
    cj["keep_io_types"] = conversion.keep_io_types;
    cj["converted_nodes"] = conversion.converted_nodes;
    cj["initializers_converted"] = conversion.initializers_converted;
    cj["casts_added"] = conversion.casts_added;
    cj["ranges_observed"] = conversion.ranges_observed;
    cj["kept_fp32"] = nlohmann::json::array();
    for (const auto& k : conversion.kept) cj["kept_fp32"].push_back({{"node", k.node}, {"reason", k.reason}});
    j["conversion"] = cj;
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace onnxtrim
