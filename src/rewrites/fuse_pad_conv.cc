// Conv(Pad(x, p, mode = constant, value 0))  -> Conv(x, pads = pads + p[spatial])
// AveragePool(Pad(x, p, 0))                  -> AveragePool(x, pads = pads + p, count_include_pad = 1)
// MaxPool(Pad(Relu(z), p, 0))                -> MaxPool(Relu(z), pads = pads + p)
// A Conv pads with zeros, so explicit zeros and the Conv's own padding are the same elements.
// AveragePool: with count_include_pad = 1 the padded zeros are counted either way; with
// count_include_pad = 0 they are counted only as explicit zeros, so it is fused only when the
// pool had no padding of its own (and then becomes count_include_pad = 1). MaxPool pads with
// -inf: a zero pad cannot win only over non-negative inputs (Relu) and windows that always hold
// a real element (every pad < kernel, no dilation, no ceil_mode).
// Refuses: modes other than constant, a non-zero or non-constant pad value, negative pads, pads
// on the batch or channel axis, auto_pad other than NOTSET, a Pad output with other consumers
// or that is a graph output; pools with ceil_mode, dilations, or total pads >= kernel (ONNX
// Runtime rejects those); AveragePool before opset 7; MaxPool with a used Indices output.
#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"

namespace onnxtrim::passes {
namespace {

// The Pad's pads for every axis (begin..., end...), when it is a constant zero pad.
std::optional<std::vector<int64_t>> zero_pad(const ir::Node& pad, int64_t opset) {
  if (pad.attr_string("mode", "constant") != "constant") return std::nullopt;
  std::vector<int64_t> p;
  if (opset < 11) {
    if (pad.attr_float("value", 0.0f) != 0.0f) return std::nullopt;
    p = pad.attr_ints(opset < 2 ? "paddings" : "pads");
  } else {
    auto v = ops::FoldContext::constant_ints(pad.input(1));
    if (!v) return std::nullopt;
    p = *v;
    if (const ir::Value* cv = pad.input(2)) {
      const ir::Tensor* t = ops::FoldContext::constant(cv);
      if (!t || (t->numel() > 0 && !ops::FoldContext::constant_all_equal(cv, 0.0))) return std::nullopt;
    }
  }
  if (p.empty() || p.size() % 2 != 0) return std::nullopt;
  if (opset >= 18 && pad.input(3)) {
    auto axes = ops::FoldContext::constant_ints(pad.input(3));
    int64_t rank = pad.input(0)->type.rank();
    if (!axes || rank < 0 || p.size() != 2 * axes->size()) return std::nullopt;
    std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
    for (size_t i = 0; i < axes->size(); ++i) {
      auto a = ops::normalize_axis((*axes)[i], rank);
      if (!a) return std::nullopt;
      full[static_cast<size_t>(*a)] += p[i];
      full[static_cast<size_t>(*a + rank)] += p[i + axes->size()];
    }
    p = full;
  }
  for (int64_t v : p)
    if (v < 0) return std::nullopt;
  return p;
}

struct PadFit {
  ir::Node* pad = nullptr;
  std::vector<int64_t> pads;  // the op's pads with the Pad's added
  bool set_include_pad = false;
};

class FusePadConv final : public Rule<PadFit> {
 public:
  std::vector<std::string> roots() const override { return {"Conv", "AveragePool", "MaxPool"}; }

 protected:
  Match<PadFit> match(const ir::Node& n, RuleContext& ctx) override {
    const int64_t opset = ctx.opset();
    ir::Node* pad = const_cast<ir::Node*>(private_producer(n.input(0), "Pad", &n));
    if (!pad || !pad->input(0)) return refuse("the input is not a Pad read only by the op");
    auto p = zero_pad(*pad, opset);
    if (!p) return refuse("the Pad is not a constant zero pad with non-negative pads");
    auto rank = static_cast<int64_t>(p->size() / 2);
    if (rank < 3) return refuse("the Pad has no spatial axes");
    auto r = static_cast<size_t>(rank);
    if ((*p)[0] != 0 || (*p)[1] != 0 || (*p)[r] != 0 || (*p)[r + 1] != 0)
      return refuse("the Pad pads the batch or channel axis");
    if (n.attr_string("auto_pad", "NOTSET") != "NOTSET") return refuse("the op has an auto_pad");
    size_t nsp = r - 2;
    std::vector<int64_t> pads = n.attr_ints("pads");
    if (pads.empty()) pads.assign(2 * nsp, 0);
    if (pads.size() != 2 * nsp) return refuse("the op's pads do not fit the Pad's rank");
    bool pool_had_pads = false;
    for (int64_t v : pads) pool_had_pads |= v != 0;
    for (size_t i = 0; i < nsp; ++i) {
      pads[i] += (*p)[2 + i];
      pads[i + nsp] += (*p)[r + 2 + i];
    }
    bool set_include_pad = false;
    if (n.op_type != "Conv") {
      if (!pool_ok(n, pads, nsp, opset))
        return refuse("the pool has ceil_mode, dilations, or pads that reach its kernel");
      if (n.op_type == "AveragePool" && n.attr_int("count_include_pad", 0) == 0) {
        if (pool_had_pads || opset < 7) return refuse("the AveragePool excludes its own padding from the count");
        set_include_pad = true;
      }
      if (n.op_type == "MaxPool") {
        const ir::Node* src = pad->input(0)->producer();
        if (!src || src->op_type != "Relu" || !src->is_default_domain())
          return refuse("the MaxPool's input is not a Relu's");
        if (n.output(1) && (n.output(1)->has_uses() || n.output(1)->is_graph_output()))
          return refuse("the MaxPool's Indices are used");
      }
    }
    return PadFit{pad, std::move(pads), set_include_pad};
  }

  void apply(ir::Node& n, PadFit& f, RuleContext&, ir::Rewriter& rw) override {
    rw.set_attribute(&n, ir::Attribute::make_ints("pads", f.pads));
    if (f.set_include_pad) rw.set_attribute(&n, ir::Attribute::make_int("count_include_pad", 1));
    rw.set_input(&n, 0, f.pad->input(0));
    rw.erase_node_and_dead_producers(f.pad);
  }

 private:
  // Pools: no ceil_mode, no dilation, every total pad below its kernel size.
  static bool pool_ok(const ir::Node& n, const std::vector<int64_t>& pads, size_t nsp, int64_t opset) {
    if (opset >= 10 && n.attr_int("ceil_mode", 0) != 0) return false;
    for (int64_t d : n.attr_ints("dilations"))
      if (d != 1) return false;
    std::vector<int64_t> k = n.attr_ints("kernel_shape");
    if (k.size() != nsp) return false;
    for (size_t i = 0; i < nsp; ++i)
      if (pads[i] >= k[i] || pads[i + nsp] >= k[i]) return false;
    return true;
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FusePadConv, "fuse_pad_conv",
    "constant zero Pad on spatial axes before Conv/AveragePool (count_include_pad respected)/MaxPool "
    "(after Relu only) -> the op's pads; refuses other modes and values, auto_pad, pads >= kernel for pools");

}  // namespace onnxtrim::passes
