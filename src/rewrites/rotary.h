// The rotation patterns shared by the rotary fusions (fuse_rotary_embedding,
// fuse_rotary_embedding_bshd): the interleaved rotate_every_two of a head, and an Unsqueeze's
// constant axes.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes::rotary {

// rot = Reshape(Concat(Unsqueeze(Neg(x[.., 1::2]), -1), Unsqueeze(x[.., 0::2], -1), axis -1)) of
// the shape of x, a rank-4 value with a constant, even last dim; each node read only by the next
// and the Reshape only by `by`. The odd and even elements are Slices of step 2 or a Gather of
// Reshape(x, [.., D / 2, 2]) on the last axis.
bool rotate_every_two_of(const ir::Value* rot, const ir::Node* by, const ir::Value* x, const ShapeInference& si,
                         int64_t opset);

// The axes of an Unsqueeze (attribute before opset 13, a constant input after); empty when they
// are not constant.
std::vector<int64_t> unsqueeze_axes(const ir::Node& u);

}  // namespace onnxtrim::passes::rotary
