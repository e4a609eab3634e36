// MatMul: numpy-style matrix product (batched, broadcasting, 1-D operands).
#include "ops/infer.h"
#include "ops/nn/nn_infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
template <typename T>
Tensor matmul_typed(const Tensor& a, const Tensor& b, const nn::MatMulPlan& p) {
  Tensor out(dtype_of<T>(), p.out_dims);
  if (out.numel() == 0) return out;
  T* po = out.mutable_data<T>();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  int64_t mn = p.M * p.N;
  for (size_t i = 0; i < p.a_offsets.size(); ++i) {
    T* c = po + static_cast<int64_t>(i) * mn;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      nn::gemm(false, false, p.M, p.N, p.K, T(1), pa + p.a_offsets[i], p.K, pb + p.b_offsets[i], p.N, T(0), c, p.N);
    } else {
      nn::gemm_loop<T>(p.M, p.N, p.K, pa + p.a_offsets[i], pb + p.b_offsets[i], c);
    }
  }
  return out;
}

Status eval_matmul(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("MatMul needs two inputs");
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.dtype() != b.dtype()) return ctx.error("MatMul inputs have different element types");
  nn::MatMulPlan plan;
  std::string err = nn::plan_matmul(a.dims(), b.dims(), &plan);
  if (!err.empty()) return ctx.error(err);
  DataType dt = a.dtype();
  if (dt == DataType::kFloat16 || dt == DataType::kBFloat16) {
    Tensor r = matmul_typed<float>(nn::to_float_tensor(a), nn::to_float_tensor(b), plan);
    ctx.set_output(0, nn::from_float_tensor(r, dt));
    return Status::ok();
  }
  Tensor out;
  bool ok = dispatch(dt, kFloats | kSigned | kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_half_like<T>) out = matmul_typed<T>(a, b, plan);
  });
  if (!ok) return ctx.error("MatMul does not support element type " + std::string(ir::dtype_name(dt)));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_matmul(InferContext& ctx) {
  const TypeInfo& a = ctx.input(0);
  const TypeInfo& b = ctx.input(1);
  if (!a.shape || !b.shape) {
    ctx.output(0) = TypeInfo::tensor(a.elem, std::nullopt);
    return Status::ok();
  }
  bool bad = false;
  auto s = nn::matmul_shape(*a.shape, *b.shape, &bad);
  if (bad) return ctx.error("MatMul operand shapes do not match");
  ctx.output(0) = TypeInfo::tensor(a.elem, s);
  return Status::ok();
}

// ---- cost
// Each output element sums over A's last dim.
double cost_matmul(const ir::Node& n, const CostContext& c) { return c.numel(n.output(0)) * c.dim(n.input(0), -1); }

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(MatMul, "", "MatMul", (std::vector<int>{1, 9, 13}), eval_matmul);
ONNXTRIM_REGISTER_INFER(MatMul, "", "MatMul", infer_matmul);
ONNXTRIM_REGISTER_TYPES(MatMul, "", "MatMul", "T T",
                        {{"T", kFloatTypes | type_bits({ir::DataType::kInt32, ir::DataType::kInt64,
                                                        ir::DataType::kUint32, ir::DataType::kUint64})}});
ONNXTRIM_REGISTER_COST(MatMul, "", "MatMul", cost_matmul);

}  // namespace onnxtrim::ops
