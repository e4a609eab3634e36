// Where: condition ? x : y, with three-way broadcasting.
#include "ops/math/elementwise.h"
#include "ops/values.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate
Status eval_where(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1) || !ctx.has_input(2)) return ctx.error("Where needs three inputs");
  const Tensor& c = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& y = ctx.input(2);
  if (x.dtype() != y.dtype()) return ctx.error("Where: x and y have different types");
  auto dims = broadcast_shapes({c.dims(), x.dims(), y.dims()});
  if (!dims) return ctx.error("Where input shapes cannot be broadcast");
  Tensor out(x.dtype(), *dims);
  BroadcastIndex ic(c.dims(), *dims), ix(x.dims(), *dims), iy(y.dims(), *dims);
  const uint8_t* pc = c.data<uint8_t>();
  int64_t n = out.numel();
  if (x.dtype() == DataType::kString) {
    for (int64_t i = 0; i < n; ++i) {
      out.strings()[static_cast<size_t>(i)] = pc[ic.offset()] ? x.strings()[static_cast<size_t>(ix.offset())]
                                                              : y.strings()[static_cast<size_t>(iy.offset())];
      ic.next();
      ix.next();
      iy.next();
    }
  } else {
    size_t w = static_cast<size_t>(ir::dtype_bits(x.dtype()) / 8);
    if (w == 0) return ctx.unsupported("Where on sub-byte types");
    uint8_t* po = n ? out.mutable_bytes() : nullptr;
    // Each operand either of the output's shape or a single element (a mask choosing between
    // two scalars, say): element i of each is at i or at 0, without broadcast indexing.
    auto plain = [&](const Tensor& t) { return t.numel() == 1 || t.dims() == *dims; };
    if (n > 0 && plain(c) && plain(x) && plain(y)) {
      const int64_t sc = c.numel() == 1 ? 0 : 1, sx = x.numel() == 1 ? 0 : 1, sy = y.numel() == 1 ? 0 : 1;
      auto pick = [&](auto tag) {
        using T = decltype(tag);
        const uint8_t* bx = x.bytes();
        const uint8_t* by = y.bytes();
        for (int64_t i = 0; i < n; ++i) {
          const uint8_t* src =
              pc[i * sc] ? bx + sizeof(T) * static_cast<size_t>(i * sx) : by + sizeof(T) * static_cast<size_t>(i * sy);
          std::memcpy(po + sizeof(T) * static_cast<size_t>(i), src, sizeof(T));
        }
      };
      switch (w) {
        case 1: pick(uint8_t{}); break;
        case 2: pick(uint16_t{}); break;
        case 4: pick(uint32_t{}); break;
        case 8: pick(uint64_t{}); break;
        default: {
          for (int64_t i = 0; i < n; ++i) {
            const uint8_t* src =
                pc[i * sc] ? x.bytes() + static_cast<size_t>(i * sx) * w : y.bytes() + static_cast<size_t>(i * sy) * w;
            std::memcpy(po + static_cast<size_t>(i) * w, src, w);
          }
        }
      }
      ctx.set_output(0, std::move(out));
      return Status::ok();
    }
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* src = pc[ic.offset()] ? x.bytes() + ix.offset() * static_cast<int64_t>(w)
                                           : y.bytes() + iy.offset() * static_cast<int64_t>(w);
      std::memcpy(po + i * static_cast<int64_t>(w), src, w);
      ic.next();
      ix.next();
      iy.next();
    }
  }
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference (with value propagation)
Status infer_where(InferContext& ctx) {
  std::vector<const SymShape*> shapes;
  for (size_t i = 0; i < 3; ++i) shapes.push_back(ctx.input(i).shape ? &*ctx.input(i).shape : nullptr);
  bool bad = false;
  auto s = broadcast(shapes, &bad);
  if (bad) return ctx.error("Where input shapes cannot be broadcast");
  ctx.output(0) = TypeInfo::tensor(ctx.input(1).elem, s);
  // Elements picked by known conditions; an unknown condition still gives x when x == y.
  propagate_values(ctx, {0, 1, 2}, [](const std::vector<Expr>& a, const InferContext&) -> std::optional<Expr> {
    if (auto c = a[0].constant_value()) return *c != 0 ? a[1] : a[2];
    if (a[1] == a[2]) return a[1];
    return std::nullopt;
  });
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Where, "", "Where", (std::vector<int>{9, 16}), eval_where);
ONNXTRIM_REGISTER_ELEMENTWISE(Where, "", "Where");
ONNXTRIM_REGISTER_INFER(Where, "", "Where", infer_where);
ONNXTRIM_REGISTER_TYPES(Where, "", "Where", "B T T",
                        {{"B", type_bits({ir::DataType::kBool})},
                         {"T",
                          kNumericTypes | kComplexTypes | type_bits({ir::DataType::kBool, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
