// Shared by fuse_concat_splat and eliminate_splat_broadcast: recognising a tensor that repeats
// one value (a "splat"), whether it is stored or made by a generator node.
#pragma once

#include <optional>

#include "ir/graph.h"

namespace onnxtrim::passes {

struct Splat {
  ir::Tensor value;                     // one element, rank 0, the splat's element type
  const ir::Node* generator = nullptr;  // the node making it (nullptr for a stored constant)
};

// v's one repeated value when v is a constant whose elements are all equal (at least one), or
// the output of ConstantOfShape, or of Expand or Tile of such a constant.
std::optional<Splat> splat_of(const ir::Value* v);

}  // namespace onnxtrim::passes
