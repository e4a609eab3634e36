#include "api/report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
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

}  // namespace

std::string Report::to_text() const {
  std::ostringstream os;
  char line[256];
  std::set<std::string> ops;
  for (const auto& [k, v] : before.op_histogram) ops.insert(k);
  for (const auto& [k, v] : after.op_histogram) ops.insert(k);
  size_t w = 10;
  for (const auto& k : ops) w = std::max(w, k.size());
  auto row = [&](const std::string& name, const std::string& a, const std::string& b, bool mark) {
    std::snprintf(line, sizeof line, "%s %-*s %14s %14s\n", mark ? "*" : " ", static_cast<int>(w), name.c_str(), a.c_str(),
                  b.c_str());
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
  row("file size", human_bytes(before.file_bytes), human_bytes(after.file_bytes), before.file_bytes != after.file_bytes);
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
       << c.casts_added << " Cast" << (c.casts_added == 1 ? "" : "s") << " added, " << c.kept.size()
       << " node" << (c.kept.size() == 1 ? "" : "s") << " kept in float32"
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
  const Verification& v = verification;
  // How random ops were handled, and the outputs not compared because of them.
  auto random_lines = [&] {
    if (!v.random.empty()) os << "  random ops: " << v.random << "\n";
    for (const auto& o : v.outputs)
      if (!o.comparable) os << "  not comparable: " << o.name << ": " << o.why << "\n";
  };
  if (!v.skipped.empty()) {
    os << "check: skipped: " << v.skipped << "\n";
  } else if (v.ran && v.l2_tol > 0) {
    std::string dims;
    for (const auto& [k, d] : v.dims) dims += (dims.empty() ? "" : ", ") + k + "=" + std::to_string(d);
    os << "\ncheck: " << v.samples << " random sample" << (v.samples == 1 ? "" : "s")
       << (dims.empty() ? "" : " (" + dims + ")") << ", against the original: relative L2 error per output <= "
       << v.l2_tol << ":\n";
    std::snprintf(line, sizeof line, "  %-32s %12s %12s  %s\n", "output", "rel L2", "max abs", "result");
    os << line;
    for (const auto& o : v.outputs) {
      if (!o.comparable) std::snprintf(line, sizeof line, "  %-32s %12s %12s  %s\n", o.name.c_str(), "-", "-", "not comparable");
      else std::snprintf(line, sizeof line, "  %-32s %12.4g %12.4g  %s\n", o.name.c_str(), o.rel_l2, o.max_abs,
                         o.ok ? "ok" : "DIFFERS");
      os << line;
    }
    if (!v.sizes.empty()) os << "  sizes: " << v.sizes << "\n";
    random_lines();
    if (!v.ok) os << "  first difference: " << v.why << "\n";
  } else if (v.ran) {
    std::string dims;
    for (const auto& [k, d] : v.dims) dims += (dims.empty() ? "" : ", ") + k + "=" + std::to_string(d);
    os << "\ncheck: " << v.samples << " random sample" << (v.samples == 1 ? "" : "s")
       << (dims.empty() ? "" : " (" + dims + ")") << ", |result - original| <= " << v.atol << " + " << v.rtol
       << " * max(|original|, RMS of the output):\n";
    std::snprintf(line, sizeof line, "  %-32s %12s %12s  %s\n", "output", "max abs", "max rel", "result");
    os << line;
    for (const auto& o : v.outputs) {
      if (!o.comparable) std::snprintf(line, sizeof line, "  %-32s %12s %12s  %s\n", o.name.c_str(), "-", "-", "not comparable");
      else std::snprintf(line, sizeof line, "  %-32s %12.4g %12.4g  %s\n", o.name.c_str(), o.max_abs, o.max_rel,
                         o.ok ? "ok" : "DIFFERS");
      os << line;
    }
    if (!v.sizes.empty()) os << "  sizes: " << v.sizes << "\n";
    random_lines();
    if (!v.ok) os << "  first difference: " << v.why << "\n";
    if (!v.compared.empty()) os << "  compared: " << v.compared << "\n";
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
    vj["outputs"].push_back(
        {{"name", o.name}, {"max_abs", o.max_abs}, {"max_rel", o.max_rel}, {"scale", o.scale}, {"rel_l2", o.rel_l2},
         {"ok", o.ok}, {"why", o.why}, {"comparable", o.comparable}});
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
  j["converged"] = converged;
  j["passes"] = nlohmann::json::array();
  for (const auto& p : passes)
    j["passes"].push_back({{"name", p.name}, {"runs", p.runs}, {"changes", p.changes}, {"nodes_removed", p.nodes_removed},
                           {"seconds", p.seconds}});
  j["fusions"] = nlohmann::json::array();
  for (const Fusion& f : fusions)
    j["fusions"].push_back({{"pass", f.pass}, {"op", f.op}, {"opset", f.opset}, {"fused", f.fused},
                            {"would_fuse", f.would_fuse}, {"runtimes", f.runtimes}});
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
