// QLinearMatMul: quantized matmul, requantized to y_scale / y_zero_point.
#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_q_linear_mat_mul(KernelContext& ctx) {
  for (size_t i = 0; i < 8; ++i)
    if (!ctx.has_input(i)) return ctx.error("QLinearMatMul needs 8 inputs");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(3);
  const Tensor& yzp_t = ctx.input(7);
  if (!nn::is_8bit(a.dtype()) || !nn::is_8bit(b.dtype()) || !nn::is_8bit(yzp_t.dtype())) {
    if (ctx.opset() >= 21) return ctx.unsupported("QLinearMatMul with float8 operands");
    return ctx.error("QLinearMatMul operands must be int8 or uint8");
  }
  if (ctx.input(2).dtype() != a.dtype() || ctx.input(5).dtype() != b.dtype())
    return ctx.error("QLinearMatMul zero points must have the type of their input");
  nn::MatMulPlan plan;
  std::string err = nn::plan_matmul(a.dims(), b.dims(), &plan);
  if (!err.empty()) return ctx.error("QLinearMatMul: " + err);
  std::vector<int32_t> za, zb, zy;
  std::vector<float> sa, sb, sy;
  if (!nn::per_axis_int(&ctx.input(2), plan.M, &za) || !nn::per_axis_float(ctx.input(1), plan.M, &sa))
    return ctx.error("QLinearMatMul a_scale / a_zero_point must be scalars or have M elements");
  if (!nn::per_axis_int(&ctx.input(5), plan.N, &zb) || !nn::per_axis_float(ctx.input(4), plan.N, &sb))
    return ctx.error("QLinearMatMul b_scale / b_zero_point must be scalars or have N elements");
  if (ctx.input(6).numel() != 1 || yzp_t.numel() != 1 || !nn::per_axis_float(ctx.input(6), 1, &sy))
    return ctx.error("QLinearMatMul y_scale and y_zero_point must be scalars");
  zy = nn::to_int32(yzp_t);
  std::vector<int32_t> acc = nn::matmul_integer(a, b, za, zb, plan);
  Tensor y(yzp_t.dtype(), plan.out_dims);
  int64_t mn = plan.M * plan.N;
  for (size_t i = 0; i < acc.size(); ++i) {
    auto m = static_cast<size_t>((static_cast<int64_t>(i) % mn) / plan.N);
    auto n = static_cast<size_t>(static_cast<int64_t>(i) % plan.N);
    float f = sa[m] * sb[n] / sy[0];
    int64_t q = nn::saturate_round(static_cast<double>(acc[i]) * static_cast<double>(f), zy[0], y.dtype());
    if (y.dtype() == DataType::kUint8) y.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(q);
    else y.mutable_data<int8_t>()[i] = static_cast<int8_t>(q);
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_q_linear_mat_mul(InferContext& ctx) {
  const TypeInfo& a = ctx.input(0);
  const TypeInfo& b = ctx.input(3);
  bool bad = false;
  auto s = a.shape && b.shape ? nn::matmul_shape(*a.shape, *b.shape, &bad) : std::nullopt;
  if (bad) return ctx.error("QLinearMatMul operand shapes do not match");
  ctx.output(0) = TypeInfo::tensor(ctx.input(7).elem, s);
  return Status::ok();
}

// ---- cost
// Each output element sums over A's last dim.
double cost_q_linear_mat_mul(const ir::Node& n, const CostContext& c) {
  return c.numel(n.output(0)) * c.dim(n.input(0), -1);
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(QLinearMatMul, "", "QLinearMatMul", (std::vector<int>{10, 21}), eval_q_linear_mat_mul);
ONNXTRIM_REGISTER_INFER(QLinearMatMul, "", "QLinearMatMul", infer_q_linear_mat_mul);
ONNXTRIM_REGISTER_TYPES(QLinearMatMul, "", "QLinearMatMul", "T1 TS T1 T2 TS_4 T2 TS_6 T3",
                        {{"T1", kFloat8Types | nn::k8BitTypes},
                         {"TS", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16})},
                         {"T2", kFloat8Types | nn::k8BitTypes},
                         {"TS_4", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16})},
                         {"TS_6", type_bits({ir::DataType::kBFloat16, ir::DataType::kFloat, ir::DataType::kFloat16})},
                         {"T3", kFloat8Types | nn::k8BitTypes}});
ONNXTRIM_REGISTER_COST(QLinearMatMul, "", "QLinearMatMul", cost_q_linear_mat_mul);

}  // namespace onnxtrim::ops
