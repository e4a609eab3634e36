// What a local fold sees (DESIGN.md section 5): the Rewriter, the model's opset for the node,
// and helpers to read constants and to replace a node's output by an existing value.
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ir/rewriter.h"
#include "ops/registry.h"

namespace onnxtrim::ops {

class FoldContext {
 public:
  FoldContext(ir::Rewriter& rw, int64_t opset) : rw_(rw), opset_(opset) {}
  ir::Rewriter& rewriter() { return rw_; }
  int64_t opset() const { return opset_; }

  // The value's constant contents: an initializer that is not an overridable graph input, or
  // the output of a Constant node with a `value` tensor. nullptr otherwise.
  static const ir::Tensor* constant(const ir::Value* v);
  // Constant integer vector (int32/int64), or nullopt.
  static std::optional<std::vector<int64_t>> constant_ints(const ir::Value* v);
  // Constant where every element equals `x` (any numeric dtype); false when not constant.
  static bool constant_all_equal(const ir::Value* v, double x);

  // The values' declared/inferred types prove equal shapes (every dim a number or the same
  // symbol; unknown dims are never equal) and, with same_dtype, equal element types.
  static bool same_shape(const ir::Value* a, const ir::Value* b, bool same_dtype = true);

  // Replaces output `i` of n by `with` (names of graph outputs are protected by the Rewriter)
  // and erases n when none of its outputs is used any more. False when not possible.
  bool forward(ir::Node& n, size_t i, ir::Value* with);

 private:
  ir::Rewriter& rw_;
  int64_t opset_;
};

}  // namespace onnxtrim::ops
