// RegexFullMatch (20): Y[i] = whether X[i] matches `pattern` in full, with RE2 syntax (through
// the RE2 library itself, as the spec prescribes).
#include <re2/re2.h>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_regex_full_match(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("RegexFullMatch needs an input");
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kString) return ctx.error("RegexFullMatch takes string tensors");
  if (!ctx.node().attr("pattern")) return ctx.error("RegexFullMatch needs a pattern");
  RE2 re(ctx.node().attr_string("pattern", ""), RE2::Quiet);
  if (!re.ok()) return ctx.error("RegexFullMatch pattern is not valid RE2: " + re.error());
  Tensor y(DataType::kBool, x.dims());
  for (int64_t i = 0; i < x.numel(); ++i)
    y.mutable_bytes()[i] = RE2::FullMatch(x.strings()[static_cast<size_t>(i)], re) ? 1 : 0;
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_regex_full_match(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).elem = DataType::kBool;
  ctx.output(0).values.reset();
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(RegexFullMatch, "", "RegexFullMatch", (std::vector<int>{20}), eval_regex_full_match);
ONNXTRIM_REGISTER_INFER(RegexFullMatch, "", "RegexFullMatch", infer_regex_full_match);
ONNXTRIM_REGISTER_TYPES(RegexFullMatch, "", "RegexFullMatch", "T1", {{"T1", type_bits({ir::DataType::kString})}});

}  // namespace onnxtrim::ops
