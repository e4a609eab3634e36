// Element types of ONNX tensors (values equal TensorProto.DataType).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace onnxtrim::ir {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUint2 = 25,
  kInt2 = 26,
};

// Bits one element occupies in raw (packed) storage; 0 for strings and unknown types.
int dtype_bits(DataType t);
// Bytes needed to hold n elements in raw storage (sub-byte types are packed, low nibble first).
size_t dtype_storage_bytes(DataType t, int64_t n);
// Short lower-case name as ONNX text syntax spells it: float, int64, bfloat16, float8e4m3fn ...
std::string_view dtype_name(DataType t);
std::optional<DataType> dtype_from_name(std::string_view name);
bool dtype_is_float(DataType t);    // float16/32/64, bfloat16, float8*, float4
bool dtype_is_integer(DataType t);  // signed or unsigned ints, any width
bool dtype_is_signed(DataType t);
bool dtype_is_known(int32_t raw);

}  // namespace onnxtrim::ir
