// MatMulInteger: 8-bit integer matmul with zero points, int32 result.
#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_mat_mul_integer(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("MatMulInteger needs inputs A and B");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (!nn::is_8bit(a.dtype()) || !nn::is_8bit(b.dtype()))
    return ctx.error("MatMulInteger inputs must be int8 or uint8");
  const Tensor* azp = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const Tensor* bzp = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if ((azp && azp->dtype() != a.dtype()) || (bzp && bzp->dtype() != b.dtype()))
    return ctx.error("MatMulInteger zero points must have the type of their input");
  nn::MatMulPlan plan;
  std::string err = nn::plan_matmul(a.dims(), b.dims(), &plan);
  if (!err.empty()) return ctx.error("MatMulInteger: " + err);
  std::vector<int32_t> za, zb;
  if (!nn::per_axis_int(azp, plan.M, &za))
    return ctx.error("MatMulInteger a_zero_point must be a scalar or have M elements");
  if (!nn::per_axis_int(bzp, plan.N, &zb))
    return ctx.error("MatMulInteger b_zero_point must be a scalar or have N elements");
  std::vector<int32_t> r = nn::matmul_integer(a, b, za, zb, plan);
  ctx.set_output(0, make_tensor<int32_t>(plan.out_dims, r));
  return Status::ok();
}

// ---- shape inference
Status infer_mat_mul_integer(InferContext& ctx) {
  const TypeInfo& a = ctx.input(0);
  const TypeInfo& b = ctx.input(1);
  bool bad = false;
  auto s = a.shape && b.shape ? nn::matmul_shape(*a.shape, *b.shape, &bad) : std::nullopt;
  if (bad) return ctx.error("MatMulInteger operand shapes do not match");
  ctx.output(0) = TypeInfo::tensor(DataType::kInt32, s);
  return Status::ok();
}

// ---- cost
// Each output element sums over A's last dim.
double cost_mat_mul_integer(const ir::Node& n, const CostContext& c) {
  return c.numel(n.output(0)) * c.dim(n.input(0), -1);
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(MatMulInteger, "", "MatMulInteger", (std::vector<int>{10}), eval_mat_mul_integer);
ONNXTRIM_REGISTER_INFER(MatMulInteger, "", "MatMulInteger", infer_mat_mul_integer);
ONNXTRIM_REGISTER_TYPES(MatMulInteger, "", "MatMulInteger", "T1 T2 T1 T2",
                        {{"T1", nn::k8BitTypes}, {"T2", nn::k8BitTypes}});
ONNXTRIM_REGISTER_COST(MatMulInteger, "", "MatMulInteger", cost_mat_mul_integer);

}  // namespace onnxtrim::ops
