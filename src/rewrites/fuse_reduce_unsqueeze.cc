// Unsqueeze(Reduce*(x, axes R, keepdims = 0), axes U) -> Reduce*(x, axes R, keepdims = 1)
//   when U, in the Unsqueeze's output rank, is the set R in x's rank (in any order, negative or
//   not): the Unsqueeze puts back exactly the reduced dims, each where it was, as size 1 — which
//   is what keepdims = 1 gives. A reduction of every axis (no axes) counts as R = all of x's.
// For ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp and ReduceSumSquare; the axes are read as an attribute or an input as the op's
// opset has them (ReduceSum's an input from 13, the others' from 18; Unsqueeze's from 13).
// Refuses: axes that are not constant, repeated or out of range; U not the reduced axes (other
// positions, or another count); keepdims not 0; noop_with_empty_axes with no axes; x of unknown
// rank; a reduction output read elsewhere or that is a graph output.
#include <algorithm>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

bool reduce_op(const ir::Node* n) {
  static const char* kOps[] = {"ReduceSum", "ReduceMean", "ReduceMax",    "ReduceMin",       "ReduceProd",
                               "ReduceL1",  "ReduceL2",   "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"};
  if (!n || !n->is_default_domain()) return false;
  for (const char* op : kOps)
    if (n->op_type == op) return true;
  return false;
}

// The axes, normalized to rank and sorted; nullopt when not constant, repeated or out of range.
// `present` is false for a node that gives none (an absent attribute or input).
std::optional<std::vector<int64_t>> axes_of(const ir::Node& n, bool as_input, int64_t rank, bool* present) {
  std::optional<std::vector<int64_t>> a;
  if (as_input) {
    *present = n.num_inputs() > 1 && n.input(1);
    if (!*present) return std::vector<int64_t>{};
    a = ops::FoldContext::constant_ints(n.input(1));
  } else {
    *present = n.attr("axes") != nullptr;
    a = n.attr_ints("axes");
  }
  if (!a) return std::nullopt;
  std::vector<int64_t> out;
  for (int64_t v : *a) {
    auto k = ops::normalize_axis(v, rank);
    if (!k) return std::nullopt;
    out.push_back(*k);
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) return std::nullopt;
  return out;
}

struct ReduceUnsqueeze {
  ir::Node* reduce;
};

class FuseReduceUnsqueeze final : public Rule<ReduceUnsqueeze> {
 public:
  std::vector<std::string> roots() const override { return {"Unsqueeze"}; }

 protected:
  Match<ReduceUnsqueeze> match(const ir::Node& n, RuleContext& ctx) override {
    ir::Value* r = n.input(0);
    ir::Node* reduce = r ? r->producer() : nullptr;
    if (!reduce_op(reduce)) return refuse("its input is not a Reduce*");
    if (!read_only_by(r, &n)) return refuse("the " + reduce->op_type + " has other readers or is a graph output");
    if (reduce->num_outputs() != 1) return refuse("the reduction has more than one output");
    if (reduce->attr_int("keepdims", 1) != 0) return refuse("the reduction keeps its dims already");
    const int64_t opset = ctx.opset();
    const bool reduce_input = opset >= (reduce->op_type == "ReduceSum" ? 13 : 18);
    // x's rank: declared, or from the facts.
    const ir::Value* x = reduce->input(0);
    int64_t rank = x ? x->type.rank() : -1;
    if (rank < 0 && x) {
      const ShapeInference* si = ctx.facts();
      const ops::TypeInfo* fx = si ? si->facts(x) : nullptr;
      if (fx && fx->shape) rank = fx->rank();
    }
    if (rank < 0) return refuse("the reduced input's rank is not known");
    bool present = false;
    auto reduced = axes_of(*reduce, reduce_input, rank, &present);
    if (!reduced) return refuse("the reduction's axes are not constant, repeated or out of range");
    if (reduced->empty()) {
      if (present && !reduce_input) return refuse("an empty axes attribute");
      if (reduce_input && reduce->attr_int("noop_with_empty_axes", 0) != 0)
        return refuse("no axes with noop_with_empty_axes");
      for (int64_t k = 0; k < rank; ++k) reduced->push_back(k);  // every axis
    }
    if (reduced->empty()) return refuse("nothing is reduced");
    bool u_present = false;
    // Read in x's rank: the Unsqueeze's output rank when it inserts as many dims as were reduced
    // (another count cannot give the same set).
    auto inserted = axes_of(n, opset >= 13, rank, &u_present);
    if (!inserted || !u_present) return refuse("the Unsqueeze's axes are not constant, repeated or out of range");
    if (*inserted != *reduced) return refuse("the Unsqueeze does not put back exactly the reduced axes");
    if (!ir::Rewriter::can_replace(n.output(0), reduce->output(0)))
      return refuse("the Unsqueeze's output name cannot be kept");
    return ReduceUnsqueeze{reduce};
  }

  void apply(ir::Node& n, ReduceUnsqueeze& m, RuleContext& ctx, ir::Rewriter& rw) override {
    rw.set_attribute(m.reduce, ir::Attribute::make_int("keepdims", 1));
    rw.set_type(m.reduce->output(0), n.output(0)->type);
    if (rw.replace_all_uses_with(n.output(0), m.reduce->output(0))) rw.erase_node(&n);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(FuseReduceUnsqueeze, "fuse_reduce_unsqueeze",
                       "Unsqueeze of exactly the reduced axes after a Reduce* with keepdims = 0 becomes keepdims = 1; "
                       "refuses other axes, non-constant axes, unknown ranks, shared or graph-output reductions");

}  // namespace onnxtrim::passes
