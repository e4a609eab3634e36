// The standard-op fusions on the transformer fixtures (tests/models/, made by make_fixtures.py),
// through the public API as a user runs them: `--opset 23` converts each export and fuses its
// blocks in one run, with the check on. The node counts and the fused ops of each fixture, and
// the outputs of the result against the original at two more dim settings (a decode step and a
// batch of 2 for the decoders).
#include <gtest/gtest.h>

#include "api/internal.h"
#include "eval/verify.h"
#include "onnxtrim/onnxtrim.hpp"

namespace onnxtrim {
namespace {

struct Case {
  const char* fixture;
  int64_t nodes_before, nodes_after;
  std::map<std::string, int64_t> fused;
  std::vector<std::map<std::string, int64_t>> dims;
  const char* target = "";  // --target
};

TEST(StandardOpFixtures, Opset23FusesEveryBlock) {
  const std::vector<Case> cases{
      {"llama_tiny",
       508,
       53,
       {{"RMSNormalization", 5}, {"RotaryEmbedding", 4}, {"Attention", 2}},
       {{{"batch", 1}, {"seq", 1}, {"past_seq", 33}}, {{"batch", 2}, {"seq", 6}, {"past_seq", 0}}}},
      {"rope_interleaved_tiny",
       564,
       53,
       {{"RMSNormalization", 5}, {"RotaryEmbedding", 4}, {"Attention", 2}},
       {{{"batch", 1}, {"seq", 1}, {"past_seq", 33}}, {{"batch", 2}, {"seq", 6}, {"past_seq", 0}}}},
      {"gpt_kv_tiny",
       201,
       41,
       {{"Gelu", 2}, {"Attention", 2}},
       {{{"batch", 1}, {"seq", 1}, {"past_seq", 33}}, {{"batch", 2}, {"seq", 6}, {"past_seq", 0}}}},
      {"gpt2_tiny",
       199,
       37,
       {{"Gelu", 2}, {"Attention", 2}},
       {{{"batch", 1}, {"seq", 1}}, {{"batch", 3}, {"seq", 12}}}},
      {"gpt2_hf_tiny",
       261,
       41,
       {{"Gelu", 2}, {"Attention", 2}},
       {{{"batch", 1}, {"seq", 1}, {"past_seq", 33}}, {{"batch", 2}, {"seq", 6}, {"past_seq", 0}}}},
      {"gptj_tiny",
       525,
       48,
       {{"Gelu", 2}, {"RotaryEmbedding", 4}, {"Attention", 2}},
       {{{"batch", 1}, {"seq", 1}, {"past_seq", 33}}, {{"batch", 2}, {"seq", 6}, {"past_seq", 0}}}},
      // float16 RMSNormalization: only for the targets that run it faster (off by default,
      // ONNX Runtime runs it slower than the decomposition).
      {"fp16_norms_tiny", 26, 26, {}, {{{"batch", 2}, {"seq", 9}}}},
      {"fp16_norms_tiny", 26, 10, {{"RMSNormalization", 2}}, {{{"batch", 2}, {"seq", 9}}}, "tensorrt"},
      {"bert_tiny_op13", 221, 65, {{"LayerNormalization", 4}, {"Gelu", 2}}, {{{"batch", 2}, {"seq", 9}}}},
      {"vit_tiny_op13", 469, 100, {{"LayerNormalization", 7}, {"Gelu", 3}}, {{{"batch", 2}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.fixture) + " " + c.target);
    std::string path = std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models/" + c.fixture + ".onnx";
    Model original = Model::load(path);
    Model m = original.clone();
    Options o;
    o.opset = 23;
    o.target = c.target;
    Report r = simplify(m, o);  // the check runs: it throws on a difference
    EXPECT_TRUE(r.verification.ran) << r.verification.skipped;
    EXPECT_EQ(r.before.nodes, c.nodes_before);
    EXPECT_EQ(r.after.nodes, c.nodes_after) << r.to_text();
    std::map<std::string, int64_t> fused;
    for (const Fusion& f : r.fusions) {
      if (f.fused) fused[f.op] = f.fused;
      EXPECT_EQ(f.would_fuse, 0) << f.op;
    }
    EXPECT_EQ(fused, c.fused) << r.to_text();
    for (const auto& dims : c.dims) {
      eval::VerifyOptions vo;
      vo.samples = 1;
      vo.inputs.dims = dims;
      auto v = eval::Verifier::create(api::ir_model(original), vo);
      ASSERT_TRUE(v.is_ok()) << v.status().message();
      auto rep = v.value()->compare_with(api::ir_model(m));
      ASSERT_TRUE(rep.is_ok()) << rep.status().message();
      EXPECT_TRUE(rep.value().ok) << rep.value().why;
    }
  }
}

}  // namespace
}  // namespace onnxtrim
