// Shared machinery of the Reduce* ops and ArgMax/ArgMin: which axes, the output dims, and a
// walk over every (output element, reduced elements) group.
#pragma once

#include <functional>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::reduce {

// First opset where the op takes its axes as an input rather than an attribute.
int64_t axes_input_since(const std::string& op);

struct Plan {
  Dims out_dims;  // with keepdims applied
  std::vector<bool> reduced;
  int64_t groups = 0;      // output elements
  int64_t group_size = 0;  // elements reduced into each (1 when no axis is reduced)
};

// Resolves axes/keepdims/noop_with_empty_axes of node for an input of dims `in`.
Status plan(const KernelContext& ctx, const Dims& in, Plan* p);
// Calls f(group, offsets) for each output element with the input offsets reduced into it.
void for_each_group(const Dims& in, const Plan& p, const std::function<void(int64_t, const std::vector<int64_t>&)>& f);
// Shape rule shared by all reductions (output element type = input's, or int64 for Arg*).
Status infer(InferContext& ctx, DataType out_elem);

}  // namespace onnxtrim::ops::reduce
