// The kernels' shared helpers (src/ops/kernel_util.h): broadcasting binary kernels against the
// definition of broadcasting.
#include <gtest/gtest.h>

#include <vector>

#include "ops_test_util.h"

namespace onnxtrim {
namespace {

using ops::make_tensor;

// Broadcasting binary kernels walk the output a row of the last axis at a time: every pair of
// shapes (either operand broadcast along the row or across rows, of lower rank, of one
// element, empty) gives the definition's elements: out[i] = a[i mod a's dims] - b[...].
TEST(BroadcastBinary, RowsMatchTheDefinition) {
  struct Case {
    ops::Dims a, b;
  };
  for (const Case& c : std::vector<Case>{{{2, 3, 4}, {4}},
                                         {{2, 3, 4}, {3, 1}},
                                         {{2, 1, 4}, {3, 1}},
                                         {{4}, {2, 3, 4}},
                                         {{1}, {2, 3}},
                                         {{2, 3, 1}, {1, 1, 5}},
                                         {{3, 1}, {1, 1}},
                                         {{2, 1, 3, 1}, {1, 4, 1, 2}},
                                         {{2, 0, 3}, {1, 3}}}) {
    ops::Dims out = c.a.size() >= c.b.size() ? c.a : c.b;
    const ops::Dims& lo = c.a.size() >= c.b.size() ? c.b : c.a;
    for (size_t k = 0; k < lo.size(); ++k) {
      auto& d = out[out.size() - lo.size() + k];
      if (d == 1) d = lo[k];  // else lo[k] is 1 or d
    }
    auto filled = [](const ops::Dims& d, float base) {
      std::vector<float> v(static_cast<size_t>(ops::numel_of(d)));
      for (size_t i = 0; i < v.size(); ++i) v[i] = base + static_cast<float>(i) * 0.5f;
      return make_tensor<float>(d, v);
    };
    ir::Tensor a = filled(c.a, 1.0f), b = filled(c.b, 100.0f);
    ir::Tensor y =
        ops::broadcast_binary<float, float>(a, b, out, ir::DataType::kFloat, [](float x, float z) { return x - z; });
    ASSERT_EQ(y.dims(), out);
    // The definition: each output index mapped to each operand's index.
    auto at = [&](const ir::Tensor& t, const std::vector<int64_t>& idx) {
      const ops::Dims& d = t.dims();
      int64_t off = 0;
      for (size_t k = 0; k < d.size(); ++k) off = off * d[k] + (d[k] == 1 ? 0 : idx[idx.size() - d.size() + k]);
      return t.data<float>()[off];
    };
    std::vector<int64_t> idx(out.size(), 0);
    for (int64_t i = 0; i < ops::numel_of(out); ++i) {
      ASSERT_EQ(y.data<float>()[i], at(a, idx) - at(b, idx)) << i;
      for (size_t k = out.size(); k-- > 0;) {
        if (++idx[k] < out[k]) break;
        idx[k] = 0;
      }
    }
  }
}

}  // namespace
}  // namespace onnxtrim
