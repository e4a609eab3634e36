#include "passes/pipeline.h"

#include <algorithm>

namespace onnxtrim::passes {

// A round runs these in this order, on the main graph and then on every subgraph, and rounds
// repeat until one changes nothing: a pass placed too late costs a round, not a result. Each
// place is chosen so that what a pass leaves behind is what the passes after it look for.
// Adding a pass means adding its name here, with the reason for its place (the gtest
// PipelineOrder.ListsEveryRegisteredPass fails for a registered pass this list lacks).
const std::vector<std::string_view>& pipeline_order() {
  static const std::vector<std::string_view> order = {
      // Facts first: the value_info it writes, and the facts the whole round shares, are what
      // every later pass reads (and the first thing a reader of the written file sees).
      "infer_shapes",
      // Constants next: Constant nodes become initializers and constant cones become tensors,
      // so every rewrite after it finds its constant operands as initializers, and If
      // conditions and Loop trip counts computed from constants are known to the two below.
      "fold_constants",
      // Control flow that folding decided: the taken branch of an If is inlined before any
      // other rewrite, so the rest of the round works on its nodes in the enclosing graph.
      "inline_constant_if",
      // Likewise a Loop that folding proved runs zero times becomes its initial values.
      "eliminate_zero_trip_loop",
      // Shape arithmetic, while the facts are those of the folded graph: a Reshape's target
      // known element by element becomes a constant with 0/-1; the Shape/Gather/Concat chain
      // it replaces is left to eliminate_dead_nodes at the end of the round.
      "simplify_shape_chains",
      // After simplify_shape_chains, which has made the Reshape targets it could constants:
      // the integer vectors still computed are rebuilt from earlier values holding the same
      // elements (fires only when the graph shrinks).
      "rebuild_shape_values",
      // Identity goes before the merging passes: two nodes reading x and Identity(x) then read
      // the same value and eliminate_common_subexpressions sees them as equal.
      "eliminate_identity",
      // Merges nodes computing the same thing, so that each fusion below meets one copy of a
      // pattern (and a shared intermediate that duplicates made look private is seen shared).
      "eliminate_common_subexpressions",
      // Equal constants become one, after the node merge (which may leave equal constants read
      // by fewer nodes); nodes that differed only by such a constant merge in the next round.
      "eliminate_duplicate_constants",
      // The op files' local folds, before the multi-node fusions: a no-op Cast/Reshape/Pad or an
      // x + 0 between two nodes of a pattern (a Conv and its BatchNormalization, two Slices)
      // would hide it from the fusion.
      "eliminate_nop_ops",
      "eliminate_identity_elements",
      // An elementwise op over splats (one of them a generator) becomes a generator of its
      // value, before eliminate_splat_broadcast, which then makes such a generator a scalar
      // operand where the other operands give the shape: w + w + w over a splat too large for
      // fold_constants to evaluate ends as one scalar in the same round.
      "fold_splat_elementwise",
      // A splat operand of a broadcasting op becomes a scalar: after the identity-element folds
      // (an x + 0 splat goes whole there), before the fusions, which read a per-channel or
      // scalar constant where a ConstantOfShape/Expand stood.
      "eliminate_splat_broadcast",
      "eliminate_idempotent_ops",
      // Pairs of the same kind merged (Transpose of Transpose, Reshape of Reshape, Unsqueeze
      // chains), after the no-op removals that could stand between them.
      "fuse_consecutive_ops",
      // After fuse_consecutive_ops has made an Unsqueeze chain one Unsqueeze, whose axes this
      // compares with the reduced ones.
      "fuse_reduce_unsqueeze",
      // After fuse_consecutive_ops (adjacent Transposes already merged); before the fusions,
      // so a normalization or an activation between a Transpose and its inverse is matched
      // without the pair around it.
      "cancel_transpose_through_elementwise",
      // The weight fusions. BatchNormalization first: Conv + BN + Add becomes Conv + Add, which
      // fuse_conv_add then takes in the same round.
      "fuse_conv_bn",
      // The same for a 2-D MatMul or Gemm, before fuse_matmul_add, which would otherwise turn
      // the product into a Gemm first (fuse_matmul_bn takes both, so only a round is at stake).
      "fuse_matmul_bn",
      // A per-channel Add into the Conv's bias, then a per-channel Mul into its weights and
      // bias: Conv + Add + Mul fuses in one round.
      "fuse_conv_add",
      "fuse_conv_mul",
      // MatMul + Add becomes a Gemm, before the Gemm fusions below, which then see it.
      "fuse_matmul_add",
      // A Concat with splats becomes a Pad, before fuse_pad_conv, which folds such a Pad into
      // the Conv or pool after it in the same round.
      "fuse_concat_splat",
      "fuse_pad_conv",
      // The Gemm fusions, after fuse_matmul_add has made its Gemms: a Transpose of A or B into
      // transA/transB, a constant Add into C, then a constant Mul into alpha/beta or B and C
      // (Gemm + Add + Mul in one round).
      "fuse_transpose_gemm",
      "fuse_gemm_bias",
      "fuse_gemm_mul",
      // Two Slices become one before fuse_concat_of_slices, which then sees one Slice per
      // piece of the cover.
      "fuse_consecutive_slices",
      "fuse_concat_of_slices",
      // Clip and Relu merged: no other fusion reads a Clip or Relu pair; placed with the local
      // fusions, before the block fusions.
      "fuse_relu_clip",
      // The block fusions of transformers, each on its own nodes. LayerNorm before RMSNorm:
      // both read ReduceMean(x^2)-like cones, and the RMSNorm fusion refuses an x that is
      // x - mean, which is LayerNorm's.
      "fuse_layer_normalization",
      "fuse_gelu",
      "fuse_rms_normalization",
      // Off by default, on for --target tensorrt/openvino (passes/targets.cc): the same RMSNorm
      // of a float16 or bfloat16 x, which ONNX Runtime runs slower as one node.
      "fuse_rms_normalization_fp16",
      "fuse_attention",
      // Rotary before partial rotary, which wraps the RotaryEmbedding this one makes.
      "fuse_rotary_embedding",
      // GPT-J's rotary before the heads' Transpose, partial rotary included: its own root (the
      // Transpose), on nodes the BNSH rotary fusion refuses.
      "fuse_rotary_embedding_bshd",
      "fuse_partial_rotary_embedding",
      // After the attention and rotary fusions: the heads' split and merge left around an
      // Attention (no RotaryEmbedding between them) become its 3D layout.
      "fuse_attention_3d",
      // Off by default, on for --target tensorrt/openvino (passes/targets.cc): torch's GroupNorm
      // export and x * Sigmoid(x) as GroupNormalization-21 and Swish-24. Each works on its own
      // nodes, which no fusion above reads (the Mul of a scale after the GroupNorm's Reshape is
      // not a Conv's, an LN's or an RMSNorm's: their fusions refuse it).
      "fuse_group_normalization",
      "fuse_swish",
      // Cleanup after every rewrite: the rewrites leave the nodes they bypassed to this pass,
      // which removes what no graph output reads.
      "eliminate_dead_nodes",
      // After eliminate_dead_nodes, whose removals leave initializers nothing reads.
      "eliminate_unused_initializers",
      // Last of the default pipeline: value_info naming the values removed above.
      "eliminate_unused_value_info",
      // --target coreml (off by default): on the graph as every pass above left it. Reshape
      // pairs through rank 6 first, then legalize_coreml rewrites the Reshape/Transpose/Reshape
      // left above rank 5 and warns about any value still above it: last, so that it warns
      // only about what the simplifications could not remove.
      "legalize_coreml_reshapes",
      "legalize_coreml",
  };
  return order;
}

size_t pipeline_position(std::string_view name) {
  const std::vector<std::string_view>& order = pipeline_order();
  return static_cast<size_t>(std::find(order.begin(), order.end(), name) - order.begin());
}

}  // namespace onnxtrim::passes
