// StringSplit (20): splits each string on `delimiter` (consecutive delimiters delimit empty
// strings), or, when the delimiter is unset or empty, on runs of whitespace with leading and
// trailing whitespace dropped; at most maxsplit splits, the rest kept as the last piece.
// Y: X's shape plus one axis as long as the most pieces, padded with empty strings; Z: the
// number of pieces of each element (int64).
#include <cctype>
#include <limits>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

std::vector<std::string> split(const std::string& s, const std::string& delim, int64_t maxsplit) {
  std::vector<std::string> out;
  if (delim.empty()) {
    size_t i = 0;
    auto space = [&](size_t k) { return std::isspace(static_cast<unsigned char>(s[k])) != 0; };
    while (i < s.size()) {
      while (i < s.size() && space(i)) ++i;
      if (i >= s.size()) break;
      if (static_cast<int64_t>(out.size()) == maxsplit) {
        size_t end = s.size();
        while (end > i && space(end - 1)) --end;
        out.push_back(s.substr(i, end - i));
        break;
      }
      size_t j = i;
      while (j < s.size() && !space(j)) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    }
    return out;
  }
  size_t start = 0;
  while (true) {
    size_t p = static_cast<int64_t>(out.size()) < maxsplit ? s.find(delim, start) : std::string::npos;
    if (p == std::string::npos) {
      out.push_back(s.substr(start));
      break;
    }
    out.push_back(s.substr(start, p - start));
    start = p + delim.size();
  }
  return out;
}

// ---- evaluate
Status eval_string_split(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("StringSplit needs an input");
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kString) return ctx.error("StringSplit takes string tensors");
  std::string delim = ctx.node().attr_string("delimiter", "");
  int64_t maxsplit =
      ctx.node().attr("maxsplit") ? ctx.node().attr_int("maxsplit", 0) : std::numeric_limits<int64_t>::max();
  std::vector<std::vector<std::string>> parts(static_cast<size_t>(x.numel()));
  int64_t width = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    parts[static_cast<size_t>(i)] = split(x.strings()[static_cast<size_t>(i)], delim, maxsplit);
    width = std::max(width, static_cast<int64_t>(parts[static_cast<size_t>(i)].size()));
  }
  Dims yd = x.dims();
  yd.push_back(width);
  Tensor y(DataType::kString, yd);
  Tensor z(DataType::kInt64, x.dims());
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto& p = parts[static_cast<size_t>(i)];
    for (size_t k = 0; k < p.size(); ++k) y.strings()[static_cast<size_t>(i * width) + k] = p[k];
    z.mutable_data<int64_t>()[i] = static_cast<int64_t>(p.size());
  }
  ctx.set_output(0, std::move(y));
  if (ctx.wants_output(1)) ctx.set_output(1, std::move(z));
  return Status::ok();
}

// ---- shape inference: one more axis, whose length depends on the data
Status infer_string_split(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(DataType::kString, std::nullopt);
  if (x.shape) {
    SymShape s = *x.shape;
    s.push_back(ctx.fresh());
    ctx.output(0).shape = s;
  }
  if (ctx.has_output(1)) ctx.output(1) = TypeInfo::tensor(DataType::kInt64, x.shape);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(StringSplit, "", "StringSplit", (std::vector<int>{20}), eval_string_split);
ONNXTRIM_REGISTER_INFER(StringSplit, "", "StringSplit", infer_string_split);
ONNXTRIM_REGISTER_TYPES(StringSplit, "", "StringSplit", "T1", {{"T1", type_bits({ir::DataType::kString})}});

}  // namespace onnxtrim::ops
