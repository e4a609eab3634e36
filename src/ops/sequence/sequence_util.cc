#include "ops/sequence/sequence_util.h"

#include "ops/kernel_util.h"

namespace onnxtrim::ops::sequence {

TypeInfo sequence_of(const TypeInfo& elem) {
  TypeInfo t;
  t.kind = ir::Type::Kind::kSequence;
  t.inner = std::make_shared<TypeInfo>(elem);
  t.inner->values.reset();
  return t;
}

std::optional<int64_t> position(const KernelContext& ctx, size_t input, int64_t size, bool insert) {
  if (!ctx.has_input(input)) return insert ? size : size - 1;
  int64_t p = to_int64_vector(ctx.input(input)).at(0);
  if (p < 0) p += size;
  if (p < 0 || p > size || (!insert && p == size)) return std::nullopt;
  return p;
}

}  // namespace onnxtrim::ops::sequence
