#include "passes/targets.h"

namespace onnxtrim::passes {

const std::vector<TargetInfo>& targets() {
  static const std::vector<TargetInfo> table{
      {"coreml", "Core ML: no tensor of rank > 5", {"legalize_coreml_reshapes", "legalize_coreml"}, {}},
      // ONNX Runtime's WASM build runs RotaryEmbedding-23 at 0.6x its decomposition
      // (docs/standard_ops.md); the other standard-op fusions are no slower there.
      {"wasm",
       "ONNX Runtime Web (WASM): no RotaryEmbedding",
       {},
       {"fuse_rotary_embedding", "fuse_rotary_embedding_bshd", "fuse_partial_rotary_embedding"}},
      // GroupNormalization-21 and Swish-24 are off by default: ONNX Runtime 1.30 has no CPU kernel
      // for either and runs their function bodies 1.5-3x (GroupNorm) and 2x (Swish) slower than
      // the decompositions (docs/performance.md). TensorRT 10 and OpenVINO run both as fused
      // layers: these targets turn the two fusions on and keep every default one.
      // RMSNormalization of a float16/bfloat16 x is off by default too: ONNX Runtime 1.30's
      // float16 kernel ran fp16_norms_tiny at 0.66x the original, which it fuses itself in float32
      // (docs/performance.md); TensorRT and OpenVINO take the float16 op as one layer.
      {"tensorrt",
       "TensorRT 10: also GroupNormalization, Swish and float16 RMSNormalization",
       {"fuse_group_normalization", "fuse_swish", "fuse_rms_normalization_fp16"},
       {}},
      {"openvino",
       "OpenVINO: also GroupNormalization, Swish and float16 RMSNormalization",
       {"fuse_group_normalization", "fuse_swish", "fuse_rms_normalization_fp16"},
       {}},
  };
  return table;
}

const TargetInfo* find_target(std::string_view name) {
  for (const TargetInfo& t : targets())
    if (t.name == name) return &t;
  return nullptr;
}

std::string target_names() {
  std::string s;
  for (const TargetInfo& t : targets()) s += (s.empty() ? "" : ", ") + t.name;
  return s;
}

const std::vector<StandardOpFusion>& standard_op_fusions() {
  static const std::vector<StandardOpFusion> table{
      {"fuse_layer_normalization", "LayerNormalization", 17, "ONNX Runtime >= 1.13"},
      {"fuse_gelu", "Gelu", 20, "ONNX Runtime >= 1.17"},
      {"fuse_rms_normalization", "RMSNormalization", 23, "ONNX Runtime >= 1.23", {"fuse_rms_normalization_fp16"}},
      // fuse_partial_rotary_embedding widens a RotaryEmbedding already written: no form of its own.
      {"fuse_rotary_embedding", "RotaryEmbedding", 23, "ONNX Runtime >= 1.23", {"fuse_rotary_embedding_bshd"}},
      {"fuse_attention", "Attention", 23, "ONNX Runtime >= 1.23"},
  };
  return table;
}

}  // namespace onnxtrim::passes
