// TfIdfVectorizer (9): counts the n-grams of each row of X ([C] or [N, C], int or string) that
// appear in the pool. For n from min_gram_length to max_gram_length and each skip from 0 to
// max_skip_count (unigrams once), an n-gram takes n items spaced skip + 1 apart. The pool holds
// the k-grams from ngram_counts[k - 1] onwards; pool n-gram j adds to output slot
// ngram_indexes[j]. mode TF gives counts, IDF gives weights where the count is positive, TFIDF
// gives count * weight (weights default to 1). Output [max index + 1] or [N, max index + 1].
#include <map>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
Status eval_tfidf_vectorizer(KernelContext& ctx) {
  if (!ctx.has_input(0)) return ctx.error("TfIdfVectorizer needs an input");
  const Tensor& x = ctx.input(0);
  const ir::Node& n = ctx.node();
  bool strings = x.dtype() == DataType::kString;
  if (x.rank() != 1 && x.rank() != 2) return ctx.error("TfIdfVectorizer takes [C] or [N, C] input");
  std::string mode = n.attr_string("mode", "TF");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return ctx.error("TfIdfVectorizer mode must be TF, IDF or TFIDF");
  int64_t min_n = n.attr_int("min_gram_length", 1), max_n = n.attr_int("max_gram_length", 1);
  int64_t max_skip = n.attr_int("max_skip_count", 0);
  std::vector<int64_t> counts = n.attr_ints("ngram_counts"), indexes = n.attr_ints("ngram_indexes");
  std::vector<float> weights = n.attr("weights") ? n.attr("weights")->floats : std::vector<float>{};
  std::vector<std::string> pool_s =
      n.attr("pool_strings") ? n.attr("pool_strings")->strings : std::vector<std::string>{};
  std::vector<int64_t> pool_i = n.attr_ints("pool_int64s");
  int64_t pool_size = strings ? static_cast<int64_t>(pool_s.size()) : static_cast<int64_t>(pool_i.size());
  if (min_n < 1 || max_n < min_n || max_skip < 0)
    return ctx.error("TfIdfVectorizer gram lengths or skip count are invalid");
  // The pool as keys (item sequences) -> pool n-gram ordinal.
  std::map<std::vector<std::string>, int64_t> pool;
  int64_t ordinal = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    int64_t start = counts[k], end = k + 1 < counts.size() ? counts[k + 1] : pool_size,
            len = static_cast<int64_t>(k) + 1;
    if (start < 0 || end > pool_size || start > end || (end - start) % len != 0)
      return ctx.error("TfIdfVectorizer ngram_counts do not fit the pool");
    for (int64_t p = start; p < end; p += len) {
      std::vector<std::string> key;
      for (int64_t i = 0; i < len; ++i)
        key.push_back(strings ? pool_s[static_cast<size_t>(p + i)]
                              : std::to_string(pool_i[static_cast<size_t>(p + i)]));
      pool.emplace(std::move(key), ordinal++);
    }
  }
  if (static_cast<int64_t>(indexes.size()) != ordinal)
    return ctx.error("TfIdfVectorizer ngram_indexes must have one entry per pool n-gram");
  if (!weights.empty() && weights.size() != indexes.size())
    return ctx.error("TfIdfVectorizer weights must have one entry per pool n-gram");
  int64_t width = 0;
  for (int64_t i : indexes) width = std::max(width, i + 1);
  int64_t rows = x.rank() == 2 ? x.dims()[0] : 1, cols = x.dims().back();
  Tensor y(DataType::kFloat, x.rank() == 2 ? Dims{rows, width} : Dims{width});
  std::vector<std::string> items(static_cast<size_t>(x.numel()));
  if (strings) {
    items = x.strings();
  } else {
    auto v = to_int64_vector(x);
    for (size_t i = 0; i < v.size(); ++i) items[i] = std::to_string(v[i]);
  }
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> cnt(indexes.size(), 0.0);
    for (int64_t len = min_n; len <= max_n; ++len) {
      int64_t skips = len == 1 ? 0 : max_skip;
      for (int64_t skip = 0; skip <= skips; ++skip) {
        int64_t span = (len - 1) * (skip + 1);
        for (int64_t s = 0; s + span < cols; ++s) {
          std::vector<std::string> key;
          for (int64_t i = 0; i < len; ++i) key.push_back(items[static_cast<size_t>(r * cols + s + i * (skip + 1))]);
          auto it = pool.find(key);
          if (it != pool.end()) cnt[static_cast<size_t>(it->second)] += 1;
        }
      }
    }
    for (size_t j = 0; j < cnt.size(); ++j) {
      double w = weights.empty() ? 1.0 : weights[j];
      double v = mode == "TF" ? cnt[j] : mode == "IDF" ? (cnt[j] > 0 ? w : 0.0) : cnt[j] * w;
      y.mutable_data<float>()[r * width + indexes[j]] = static_cast<float>(v);
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_tfidf_vectorizer(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  int64_t width = 0;
  for (int64_t i : ctx.node().attr_ints("ngram_indexes")) width = std::max(width, i + 1);
  ctx.output(0) = TypeInfo::tensor(DataType::kFloat, std::nullopt);
  if (x.shape && x.shape->size() == 2) ctx.output(0).shape = SymShape{(*x.shape)[0], dim(width)};
  else if (x.shape && x.shape->size() == 1) ctx.output(0).shape = SymShape{dim(width)};
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(TfIdfVectorizer, "", "TfIdfVectorizer", (std::vector<int>{9}), eval_tfidf_vectorizer);
ONNXTRIM_REGISTER_INFER(TfIdfVectorizer, "", "TfIdfVectorizer", infer_tfidf_vectorizer);
ONNXTRIM_REGISTER_TYPES(TfIdfVectorizer, "", "TfIdfVectorizer", "T",
                        {{"T", type_bits({ir::DataType::kInt32, ir::DataType::kInt64, ir::DataType::kString})}});

}  // namespace onnxtrim::ops
