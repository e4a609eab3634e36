#include "ir/dtype.h"

#include <array>

namespace onnxtrim::ir {

namespace {
struct Info {
  DataType t;
  const char* name;
  int bits;
};
constexpr std::array<Info, 27> kInfo = {{
    {DataType::kUndefined, "undefined", 0},
    {DataType::kFloat, "float", 32},
    {DataType::kUint8, "uint8", 8},
    {DataType::kInt8, "int8", 8},
    {DataType::kUint16, "uint16", 16},
    {DataType::kInt16, "int16", 16},
    {DataType::kInt32, "int32", 32},
    {DataType::kInt64, "int64", 64},
    {DataType::kString, "string", 0},
    {DataType::kBool, "bool", 8},
    {DataType::kFloat16, "float16", 16},
    {DataType::kDouble, "double", 64},
    {DataType::kUint32, "uint32", 32},
    {DataType::kUint64, "uint64", 64},
    {DataType::kComplex64, "complex64", 64},
    {DataType::kComplex128, "complex128", 128},
    {DataType::kBFloat16, "bfloat16", 16},
    {DataType::kFloat8E4M3FN, "float8e4m3fn", 8},
    {DataType::kFloat8E4M3FNUZ, "float8e4m3fnuz", 8},
    {DataType::kFloat8E5M2, "float8e5m2", 8},
    {DataType::kFloat8E5M2FNUZ, "float8e5m2fnuz", 8},
    {DataType::kUint4, "uint4", 4},
    {DataType::kInt4, "int4", 4},
    {DataType::kFloat4E2M1, "float4e2m1", 4},
    {DataType::kFloat8E8M0, "float8e8m0", 8},
    {DataType::kUint2, "uint2", 2},
    {DataType::kInt2, "int2", 2},
}};
}  // namespace

bool dtype_is_known(int32_t raw) { return raw >= 0 && raw < static_cast<int32_t>(kInfo.size()); }

int dtype_bits(DataType t) {
  auto i = static_cast<int32_t>(t);
  return dtype_is_known(i) ? kInfo[i].bits : 0;
}

size_t dtype_storage_bytes(DataType t, int64_t n) {
  int bits = dtype_bits(t);
  if (n <= 0 || bits == 0) return 0;
  return static_cast<size_t>((static_cast<unsigned __int128>(n) * bits + 7) / 8);
}

std::string_view dtype_name(DataType t) {
  auto i = static_cast<int32_t>(t);
  return dtype_is_known(i) ? kInfo[i].name : "unknown";
}

std::optional<DataType> dtype_from_name(std::string_view name) {
  for (const auto& info : kInfo)
    if (name == info.name) return info.t;
  return std::nullopt;
}

bool dtype_is_float(DataType t) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat4E2M1:
    case DataType::kFloat8E8M0: return true;
    default: return false;
  }
}

bool dtype_is_signed(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kInt4:
    case DataType::kInt2: return true;
    default: return false;
  }
}

bool dtype_is_integer(DataType t) {
  switch (t) {
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kUint64:
    case DataType::kUint4:
    case DataType::kUint2: return true;
    default: return dtype_is_signed(t);
  }
}

}  // namespace onnxtrim::ir
