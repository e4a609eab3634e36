// eliminate_common_subexpressions: two nodes with the same op, domain, attributes and inputs
// compute the same values; the later one's outputs are replaced by the earlier one's.
// Refuses: non-deterministic ops (Random*, Bernoulli, Multinomial), custom domains, nodes with
// subgraphs, and a duplicate whose output is a graph output that cannot keep its name.
#include <unordered_map>

#include "passes/pass.h"
#include "passes/pass_util.h"
#include "support/hash.h"

namespace onnxtrim::passes {
namespace {

uint64_t node_key(const ir::Node& n) {
  uint64_t h = hash_str(n.op_type, hash_str(n.domain));
  for (const ir::Value* v : n.inputs()) h = hash_combine(h, reinterpret_cast<uintptr_t>(v));
  h = hash_combine(h, n.num_outputs());
  uint64_t attrs = 0;  // order-independent
  for (const auto& a : n.attributes) attrs += ir::hash_attribute(a);
  return hash_combine(h, attrs);
}

bool same_computation(const ir::Node& a, const ir::Node& b) {
  if (a.op_type != b.op_type || a.domain != b.domain || a.inputs() != b.inputs() ||
      a.num_outputs() != b.num_outputs() || a.attributes.size() != b.attributes.size())
    return false;
  for (size_t i = 0; i < a.num_outputs(); ++i)
    if ((a.output(i) == nullptr) != (b.output(i) == nullptr)) return false;
  for (const auto& x : a.attributes) {
    const ir::Attribute* y = b.attr(x.name);
    if (!y || !ir::attributes_equal(x, *y)) return false;
  }
  return true;
}

class EliminateCommonSubexpressions final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    std::unordered_multimap<uint64_t, ir::Node*> seen;
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead() || !is_pure(*n) || !n->subgraphs().empty() || n->num_outputs() == 0) continue;
      uint64_t key = node_key(*n);
      ir::Node* first = nullptr;
      auto range = seen.equal_range(key);
      for (auto it = range.first; it != range.second; ++it)
        if (same_computation(*it->second, *n)) {
          first = it->second;
          break;
        }
      if (!first) {
        seen.emplace(key, n);
        continue;
      }
      bool all_ok = true;
      for (size_t i = 0; i < n->num_outputs(); ++i) {
        ir::Value* o = n->output(i);
        if (o && !ir::Rewriter::can_replace(o, first->output(i))) all_ok = false;
      }
      if (!all_ok) continue;
      for (size_t i = 0; i < n->num_outputs(); ++i)
        if (ir::Value* o = n->output(i)) rw.replace_all_uses_with(o, first->output(i));
      rw.erase_node(n);
    }
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(EliminateCommonSubexpressions, "eliminate_common_subexpressions",
                       "merges nodes with the same op, attributes and inputs; never merges random ops, custom ops or "
                       "nodes with subgraphs");

}  // namespace onnxtrim::passes
