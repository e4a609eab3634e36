// fold_constants: computes, once, every node whose inputs are all constants (initializers,
// Constant nodes, outputs folded earlier in the same walk; absent optional inputs allowed) with
// the reference evaluator, and replaces its outputs by initializers that keep the outputs'
// names. Walking in topological order folds whole constant subgraphs in one run. Values whose
// elements shape inference knows exactly (Shape of a static shape, Shape->Gather/Slice of the
// known part of a symbolic shape) become constants too. The policy (what never folds, the size
// guard) is in folding_policy.h.
//
// Memory: large outputs are computed straight into the scratch file (see ir::ScratchScope),
// and the pages of a folded node's large inputs and outputs are released once it is done, so
// folding a model's weights (the Transposes an export leaves behind them) holds one node's
// tensors in memory at a time, not the model. "Large" is 1 MB, or 16 MB while the outputs
// this pass has kept in the heap total less than 256 MB: the heap is faster for the many
// medium-sized folds of an ordinary model, and the bound stays.
#include <algorithm>
#include <set>

#include "eval/interpreter.h"
#include "ir/mapped.h"
#include "ir/scratch.h"
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/folding_policy.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "passes/pass_util.h"
#include "passes/shape_inference.h"
#include "support/limits.h"

namespace onnxtrim::passes {
namespace {

constexpr size_t kScratchBytes = size_t{1} << 20;
constexpr size_t kHeapTensorBytes = size_t{16} << 20;
constexpr uint64_t kHeapBudget = uint64_t{256} << 20;

// Builds the tensor that propagated facts describe, when they describe it completely.
std::optional<ir::Tensor> tensor_from_facts(const ops::TypeInfo& f) {
  if (!f.is_tensor() || !f.values || !f.shape || f.shape->size() > 1) return std::nullopt;
  auto vals = f.static_values();
  auto dims = f.static_shape();
  if (!vals || !dims) return std::nullopt;
  int64_t n = checked_numel(*dims);
  if (n != static_cast<int64_t>(vals->size())) return std::nullopt;
  ir::Tensor t(f.elem, *dims);
  bool ok = ops::dispatch(f.elem, ops::kSigned | ops::kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.mutable_data<T>();
    for (size_t i = 0; i < vals->size(); ++i) p[i] = static_cast<T>((*vals)[i]);
  });
  if (!ok) return std::nullopt;
  return t;
}

class FoldConstants final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    ShapeInference si(ctx.model, InferOptions{ctx.options.input_shapes, ctx.options.dims});
    bool have_facts = si.run().is_ok();
    eval::Interpreter interp(ctx.model);
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead() || n->num_outputs() == 0) continue;
      if (n->op_type == "Constant" && n->is_default_domain() && ctx.options.keep_constant_nodes) continue;

      if (try_facts(*n, si, have_facts, rw)) continue;
      try_evaluate(*n, interp, rw, ctx, have_facts ? &si : nullptr);
    }
  }

 private:
  // Outputs known element by element through value propagation.
  bool try_facts(ir::Node& n, const ShapeInference& si, bool have_facts, ir::Rewriter& rw) {
    if (!have_facts || n.op_type == "Constant") return false;
    std::vector<ir::Tensor> outs;
    for (ir::Value* o : n.outputs()) {
      if (!o) return false;
      const ops::TypeInfo* f = si.facts(o);
      if (!f) return false;
      auto t = tensor_from_facts(*f);
      if (!t) return false;
      outs.push_back(std::move(*t));
    }
    if (outs.empty()) return false;
    for (size_t i = 0; i < outs.size(); ++i) rw.make_constant(n.output(i), std::move(outs[i]));
    erase_if_done(n, rw);
    return true;
  }

  bool try_evaluate(ir::Node& n, eval::Interpreter& interp, ir::Rewriter& rw, PassContext& ctx,
                    const ShapeInference* si) {
    if (!n.is_default_domain() || !is_pure(n) || !n.subgraphs().empty()) return false;
    // Every input must be constant; the values are shared with the initializers (no copy).
    std::vector<ir::RuntimeValue> held;
    held.reserve(n.num_inputs());
    uint64_t freed = 0;  // bytes of constant inputs that only this node reads
    bool tiny_inputs = true;
    std::set<const ir::Value*> counted;
    for (ir::Value* v : n.inputs()) {
      if (!v) continue;
      const ir::Tensor* t = ops::FoldContext::constant(v);
      if (!t) return false;
      uint64_t b = tensor_bytes(*t);
      tiny_inputs &= b <= kTinyBytes;
      if (counted.insert(v).second) {
        bool only_here = !v->is_graph_output() && !v->is_graph_input();  // inputs stay
        for (const ir::Use& u : v->uses()) only_here &= u.node == &n;
        if (only_here) freed += b;
      }
      held.push_back(ir::RuntimeValue::of(*t));
    }
    // Outputs that shape inference already knows to be too large are not computed at all.
    if (si) {
      uint64_t predicted = 0;
      bool known = true;
      for (const ir::Value* o : n.outputs()) {
        if (!o) continue;
        const ops::TypeInfo* f = si->facts(o);
        auto dims = f ? f->static_shape() : std::nullopt;
        if (!dims || !f->is_tensor() || f->elem == ir::DataType::kString) {
          known = false;
          break;
        }
        int64_t numel = checked_numel(*dims);
        if (numel < 0) return false;  // more elements than int64 counts: never folds
        predicted = std::min<uint64_t>(predicted + ir::dtype_storage_bytes(f->elem, numel), UINT64_MAX / 2);
      }
      if (known && !may_fold(predicted, freed, tiny_inputs, ctx.options.size_threshold)) return false;
    }
    std::vector<const ir::RuntimeValue*> inputs(n.num_inputs(), nullptr);
    for (size_t i = 0, k = 0; i < n.num_inputs(); ++i)
      if (n.input(i)) inputs[i] = &held[k++];
    const ops::OpSchema* schema = ops::OpRegistry::instance().find(n.domain, n.op_type, ctx.model.opset(n.domain));
    if (!schema || !schema->eval) {
      note(ctx, "fold_constants: the evaluator has no kernel for " + n.op_type + "; such nodes stay (e.g. " +
                    n.describe() + ")");
      return false;
    }
    // What one fold may compute is bounded: a generator whose size nothing predicted
    // (ConstantOfShape of 10^12 elements) is refused at its allocation, not computed.
    uint64_t in_bytes = 0;
    for (const ir::RuntimeValue& h : held) in_bytes += tensor_bytes(h.tensor);
    EvalLimits limits;
    limits.max_tensor_bytes = std::max<uint64_t>({kFoldTensorBytes, 4 * in_bytes, freed + ctx.options.size_threshold});
    limits.max_total_bytes = 8 * limits.max_tensor_bytes;
    Result<std::vector<ir::RuntimeValue>> r = Status(ErrorCode::kInternal, "");
    bool exceeded = false;
    {
      ScopedLimits scope(limits);
      ir::ScratchScope scratch(heap_bytes_ < kHeapBudget ? kHeapTensorBytes : kScratchBytes);
      r = interp.run_node(n, inputs, nullptr);
      exceeded = scope.exceeded();
    }
    for (const ir::RuntimeValue& h : held)
      if (h.tensor.byte_size() >= kScratchBytes) ir::release_pages(h.tensor);
    if (!r && exceeded) return false;  // the size guard's business, not worth a note
    if (!r) {
      note(ctx, "fold_constants: could not evaluate " + n.describe() + ": " + r.status().detail());
      return false;
    }
    std::vector<const ir::Tensor*> outs;
    for (size_t i = 0; i < n.num_outputs(); ++i) {
      if (!n.output(i)) continue;
      if (!r.value()[i].is_tensor()) return false;  // sequences/optionals stay nodes
      outs.push_back(&r.value()[i].tensor);
    }
    FoldDecision d = size_guard(freed, tiny_inputs, outs, ctx.options.size_threshold);
    if (!d.fold) return false;
    for (const ir::Tensor* t : outs) {
      if (ir::file_ref(*t)) ir::release_pages(*t);
      else heap_bytes_ += t->byte_size();
    }
    for (size_t i = 0; i < n.num_outputs(); ++i)
      if (ir::Value* o = n.output(i)) rw.make_constant(o, std::move(r.value()[i].tensor));
    erase_if_done(n, rw);
    return true;
  }

  static void erase_if_done(ir::Node& n, ir::Rewriter& rw) {
    for (const ir::Value* o : n.outputs())
      if (o) return;
    rw.erase_node(&n);
  }

  void note(PassContext& ctx, const std::string& msg) {
    if (noted_.insert(msg.substr(0, msg.find(" (e.g."))).second) ctx.warnings->push_back(msg);
  }
  std::set<std::string> noted_;
  uint64_t heap_bytes_ = 0;  // bytes of folded outputs this pass left in the heap
};

}  // namespace

ONNXTRIM_REGISTER_PASS(FoldConstants, "fold_constants", 20,
                       "computes nodes whose inputs are all constant (and shape values known exactly) into initializers; "
                       "refuses random ops, custom domains, ops without a kernel, and outputs past the size guard");

}  // namespace onnxtrim::passes
