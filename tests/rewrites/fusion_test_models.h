// The models and helpers the single-rewrite fusion tests share (tests/rewrites/fuse_*_test.cc):
// a Conv head with per-channel constants, a Gemm head, a Slice head, and the run of one pass.
#pragma once

#include <map>
#include <string>

#include "eval/verify.h"
#include "rewrite_test_util.h"

namespace onnxtrim::test {

inline constexpr const char* kConvHead = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,5,5] x) => (float[2,4,5,5] y)
<float[4,3,3,3] w = {0.1, -0.2, 0.3, 0.05, 0.4, -0.1, 0.2, 0.3, -0.3, 0.1, 0.1, 0.2, -0.4, 0.3, 0.2, 0.1, 0.0, 0.5,
  -0.2, 0.3, 0.1, 0.4, -0.1, 0.2, 0.3, 0.1, -0.5, 0.2, 0.1, -0.3, 0.4, 0.2, 0.1, -0.1, 0.3, 0.2, 0.1, 0.2, 0.3,
  -0.4, 0.5, 0.1, 0.2, -0.3, 0.1, 0.4, 0.2, -0.2, 0.1, 0.3, 0.2, 0.1, -0.1, 0.4, 0.3, -0.2, 0.1, 0.2, 0.5, -0.1,
  0.2, 0.1, 0.3, -0.2, 0.4, 0.1, 0.2, -0.3, 0.1, 0.2, 0.3, 0.1, -0.1, 0.2, 0.4, 0.1, -0.2, 0.3, 0.1, 0.2, -0.1,
  0.3, 0.2, 0.1, -0.4, 0.2, 0.1, 0.3, 0.2, -0.1, 0.1, 0.2, 0.3, 0.1, -0.2, 0.4, 0.2, 0.1, -0.3, 0.2, 0.1, 0.3,
  0.2, -0.1, 0.1, 0.4, 0.2, 0.1},
 float[4] b = {0.1, 0.2, -0.1, 0.3},
 float[4,1,1] c = {1.5, -2, 0.5, 3},
 float[1,1,5] row = {1, 2, 3, 4, 5},
 float[4] s = {1, 2, 0.5, 1.5}, float[4] bb = {0.1, 0, -0.2, 0.3}, float[4] mu = {0.2, -0.1, 0, 0.1}, float[4] var = {1, 0.5, 2, 1.5}>
)";

inline Simplified fuse(const std::string& pass, const std::string& body) {
  return simplify_text(std::string(kConvHead) + "{\n" + body + "\n}\n", {"infer_shapes", pass, "eliminate_dead_nodes"});
}

inline Simplified run(const std::string& text, const std::string& pass) {
  return simplify_text(text, {"infer_shapes", pass, "eliminate_dead_nodes", "eliminate_unused_initializers"});
}

// Data movement only (slices): the outputs must be bit-exact.
inline void expect_bit_exact(const Simplified& s, std::map<std::string, int64_t> dims = {}) {
  eval::VerifyOptions vo;
  vo.samples = 2;
  vo.rtol = 0;
  vo.atol = 0;
  vo.inputs.dims = std::move(dims);
  auto v = eval::Verifier::create(*s.original, vo);
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  auto rep = v.value()->compare_with(*s.model);
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
}

inline constexpr const char* kGemmHead = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4,3] x) => (float[OUT] y)
<float[3,2] w = {0.5, -1, 2, 0.25, -0.5, 1}, float[2,3] wt = {0.5, 2, -0.5, -1, 0.25, 1}, float[2] c = {0.1, -0.2},
 float[4,1] crow = {1, 2, 3, 4}, float[2] s = {1.5, 0.5}, float[2] bb = {0.1, -0.3}, float[2] mu = {0.2, -0.1}, float[2] var = {1, 0.5},
 float[4] s4 = {1, 2, 0.5, 1.5}, float[4] bb4 = {0.1, 0, -0.2, 0.3}, float[4] mu4 = {0.2, -0.1, 0, 0.1}, float[4] var4 = {1, 0.5, 2, 1.5},
 float[3,4] w4 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, float[1,2] k = {2, -0.5}, float[4,1] krow = {1, 2, 3, 4},
 float[3,4,2] big = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}>
)";

inline std::string gemm_model(const std::string& body, const std::string& out = "4,2") {
  std::string head = kGemmHead;
  head.replace(head.find("OUT"), 3, out);
  return head + "{\n" + body + "\n}\n";
}

inline constexpr const char* kSliceHead = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[IN] x) => (float[OUT] y)
<int64[1] a0 = {0}, int64[1] a1 = {1}, int64[1] a2 = {2}, int64[1] s1 = {1}, int64[1] e5 = {5}, int64[1] s2 = {2},
 int64[1] em1 = {-1}, int64[1] sm3 = {-3}, int64[1] big = {9223372036854775807}, int64[1] st2 = {2}, int64[1] z = {0},
 int64[1] e2 = {2}, int64[1] e3 = {3}, int64[1] s3 = {3}, int64[1] e4 = {4}>
)";

inline std::string slice_model(const std::string& in, const std::string& out, const std::string& body) {
  std::string head = kSliceHead;
  head.replace(head.find("IN"), 2, in);
  head.replace(head.find("OUT"), 3, out);
  return head + "{\n" + body + "\n}\n";
}

}  // namespace onnxtrim::test
