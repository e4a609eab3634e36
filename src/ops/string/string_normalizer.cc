// StringNormalizer (10): drops the stopwords (compared case-insensitively unless
// is_case_sensitive) from X [C] or [1, C], then lower- or upper-cases what remains
// (case_change_action LOWER / UPPER / NONE). If nothing remains the output is one empty string,
// [1] or [1, 1]. Case changes use the C++ library's per-character rules (ASCII, and single-byte
// characters of the C locale); `locale` is accepted but not used.
#include <cctype>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

std::string with_case(std::string s, bool upper) {
  for (char& c : s)
    c = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c))
                                : std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ---- evaluate
Status eval_string_normalizer(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("StringNormalizer needs an input");
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kString) return ctx.error("StringNormalizer takes string tensors");
  bool row = x.rank() == 2;
  if (!(x.rank() == 1 || (row && x.dims()[0] == 1))) return ctx.error("StringNormalizer takes [C] or [1, C] input");
  const ir::Node& n = ctx.node();
  std::string action = n.attr_string("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    return ctx.error("StringNormalizer case_change_action must be LOWER, UPPER or NONE");
  bool sensitive = n.attr_int("is_case_sensitive", 0) != 0;
  std::vector<std::string> stop;
  if (const ir::Attribute* a = n.attr("stopwords")) stop = a->strings;
  if (!sensitive)
    for (auto& s : stop) s = with_case(s, false);
  std::vector<std::string> kept;
  for (const std::string& s : x.strings()) {
    std::string key = sensitive ? s : with_case(s, false);
    bool drop = false;
    for (const auto& w : stop) drop |= w == key;
    if (drop) continue;
    kept.push_back(action == "NONE" ? s : with_case(s, action == "UPPER"));
  }
  if (kept.empty()) kept.push_back("");
  auto c = static_cast<int64_t>(kept.size());
  Tensor y(DataType::kString, row ? Dims{1, c} : Dims{c});
  y.strings() = kept;
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference: the kept count depends on the data unless there are no stopwords
Status infer_string_normalizer(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  ctx.output(0) = TypeInfo::tensor(DataType::kString, std::nullopt);
  if (!x.shape || x.shape->empty()) return Status::ok();
  SymShape s = *x.shape;
  const ir::Attribute* stop = ctx.node().attr("stopwords");
  if (stop && !stop->strings.empty()) s.back() = ctx.fresh();
  ctx.output(0).shape = s;
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(StringNormalizer, "", "StringNormalizer", (std::vector<int>{10}), eval_string_normalizer);
ONNXTRIM_REGISTER_INFER(StringNormalizer, "", "StringNormalizer", infer_string_normalizer);
ONNXTRIM_REGISTER_TYPES(StringNormalizer, "", "StringNormalizer", "X", {{"X", type_bits({ir::DataType::kString})}});

}  // namespace onnxtrim::ops
