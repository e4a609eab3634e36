#include "rewrites/reduce_axes.h"

#include <algorithm>
#include <vector>

#include "ops/fold.h"
#include "ops/kernel_util.h"

namespace onnxtrim::passes {

std::optional<int64_t> trailing_reduce_axis(const ir::Node& reduce, int64_t opset, int64_t rank, std::string* why) {
  if (reduce.attr_int("keepdims", 1) != 1) {
    *why = "the ReduceMean drops the reduced axes (keepdims = 0)";
    return std::nullopt;
  }
  const bool as_input = opset >= 18;
  const ir::Value* input = reduce.num_inputs() > 1 ? reduce.input(1) : nullptr;
  const ir::Attribute* attr = reduce.attr("axes");
  if (as_input ? attr != nullptr : input != nullptr) {
    *why = std::string("the ReduceMean has axes as ") + (as_input ? "an attribute" : "an input") +
           ", not valid at opset " + std::to_string(opset);
    return std::nullopt;
  }
  std::vector<int64_t> axes;
  if (attr) {
    axes = attr->ints;
  } else if (const ir::Tensor* t = input ? ops::FoldContext::constant(input) : nullptr; t && t->bytes()) {
    axes = ops::to_int64_vector(*t);
  } else if (input) {
    *why = "the ReduceMean's axes are not constant";
    return std::nullopt;
  }
  if (axes.empty()) {
    *why = "the ReduceMean reduces no axes or all of them by default";
    return std::nullopt;
  }
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i)) {
      *why = "the ReduceMean's axes are not the last ones";
      return std::nullopt;
    }
  return axes.front();
}

}  // namespace onnxtrim::passes
