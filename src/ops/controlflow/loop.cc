// Loop: runs its body while the trip count and the condition allow, carrying values from one
// iteration to the next and stacking per-iteration scan outputs.
#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/tensor/tensor_util.h"

namespace onnxtrim::ops {
namespace {

// Stacks equally shaped tensors along a new axis 0.
Result<Tensor> stack(const std::vector<Tensor>& parts, const Tensor* like) {
  if (parts.empty()) {
    Dims d{0};
    if (like) d.insert(d.end(), like->dims().begin(), like->dims().end());
    return Tensor(like ? like->dtype() : DataType::kFloat, d);
  }
  Dims d{static_cast<int64_t>(parts.size())};
  d.insert(d.end(), parts[0].dims().begin(), parts[0].dims().end());
  Tensor out(parts[0].dtype(), d);
  int64_t n = parts[0].numel();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].dims() != parts[0].dims() || parts[i].dtype() != parts[0].dtype())
      return Status(ErrorCode::kInvalidModel, "scan outputs differ in shape between iterations");
    tensor::copy_elements(parts[i], 0, out, static_cast<int64_t>(i) * n, n);
  }
  return out;
}

// ---- evaluate
Status eval_loop(KernelContext& ctx) {
  const ir::Attribute* a = ctx.node().attr("body");
  if (!a || !a->g) return ctx.error("Loop has no body");
  const ir::Graph& body = *a->g;
  std::optional<int64_t> max_trips;
  if (ctx.has_input(0)) max_trips = to_int64_vector(ctx.input(0)).at(0);
  bool cond = true;
  if (ctx.has_input(1)) cond = element_as_double(ctx.input(1), 0) != 0;
  size_t carried = ctx.num_inputs() >= 2 ? ctx.num_inputs() - 2 : 0;
  std::vector<RuntimeValue> state;
  for (size_t i = 0; i < carried; ++i)
    state.push_back(ctx.input_value(i + 2) ? *ctx.input_value(i + 2) : RuntimeValue{});
  size_t scans = body.outputs().size() >= 1 + carried ? body.outputs().size() - 1 - carried : 0;
  std::vector<std::vector<Tensor>> scan_parts(scans);
  int64_t it = 0;
  while ((!max_trips || it < *max_trips) && cond) {
    std::vector<RuntimeValue> in;
    in.push_back(RuntimeValue::of(Tensor::scalar_i64(it)));
    Tensor c(DataType::kBool, {});
    c.mutable_data<uint8_t>()[0] = cond;
    in.push_back(RuntimeValue::of(c));
    for (auto& s : state) in.push_back(std::move(s));  // refilled from the body's outputs below
    auto r = ctx.run_subgraph(body, std::move(in));
    if (!r) return std::move(r).take_status();
    auto& out = r.value();
    if (out.size() != 1 + carried + scans) return ctx.error("Loop body has the wrong number of outputs");
    cond = out[0].is_tensor() && out[0].tensor.numel() == 1 ? element_as_double(out[0].tensor, 0) != 0 : cond;
    for (size_t i = 0; i < carried; ++i) state[i] = std::move(out[1 + i]);
    for (size_t k = 0; k < scans; ++k) {
      if (!out[1 + carried + k].is_tensor()) return ctx.unsupported("Loop scan outputs that are not tensors");
      scan_parts[k].push_back(std::move(out[1 + carried + k].tensor));
    }
    ++it;
  }
  for (size_t i = 0; i < carried && i < ctx.num_outputs(); ++i) ctx.set_output_value(i, std::move(state[i]));
  for (size_t k = 0; k < scans && carried + k < ctx.num_outputs(); ++k) {
    auto s = stack(scan_parts[k], nullptr);
    if (!s) return s.status();
    ctx.set_output(carried + k, std::move(s.value()));
  }
  return Status::ok();
}

// ---- shape inference: carried values keep their types; scan outputs gain a leading dim
Status infer_loop(InferContext& ctx) {
  const ir::Attribute* a = ctx.node().attr("body");
  if (!a || !a->g) return Status::ok();
  size_t carried = ctx.num_inputs() >= 2 ? ctx.num_inputs() - 2 : 0;
  std::vector<TypeInfo> in;
  in.push_back(TypeInfo::tensor(DataType::kInt64, SymShape{}));
  in.push_back(TypeInfo::tensor(DataType::kBool, SymShape{}));
  for (size_t i = 0; i < carried; ++i) {
    TypeInfo t = ctx.input(i + 2);
    t.values.reset();
    in.push_back(t);
  }
  auto r = ctx.infer_subgraph(*a->g, in);
  if (!r) return Status::ok();
  const auto& out = r.value();
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (1 + i >= out.size()) break;
    TypeInfo t = out[1 + i];
    t.values.reset();
    if (i < carried) {
      // Shapes may change between iterations: keep only what the body and the initial value agree on.
      const TypeInfo& init = ctx.input(i + 2);
      if (t.shape && init.shape && t.shape->size() == init.shape->size()) {
        for (size_t k = 0; k < t.shape->size(); ++k)
          if (!((*t.shape)[k] == (*init.shape)[k])) (*t.shape)[k] = Expr::fresh();
      } else {
        t.shape.reset();
      }
    } else if (t.shape) {
      t.shape->insert(t.shape->begin(), Expr::fresh());
    }
    ctx.output(i) = t;
  }
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Loop, "", "Loop", (std::vector<int>{1, 11, 13, 16, 19, 21, 23, 24, 25}), eval_loop);
ONNXTRIM_REGISTER_INFER(Loop, "", "Loop", infer_loop);
ONNXTRIM_REGISTER_TYPES(Loop, "", "Loop", "I B",
                        {{"I", type_bits({ir::DataType::kInt64})}, {"B", type_bits({ir::DataType::kBool})}});

}  // namespace onnxtrim::ops
