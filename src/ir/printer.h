// Readable text form of a graph, close to the ONNX text syntax:
//   main (float[N,3] x) => (float[N,3] y)
//   <float[3] c = {1, 2, 3}>
//   {
//     t = Relu (x)
//     y = Add (t, c)
//   }
#pragma once

#include <string>

#include "ir/graph.h"

namespace onnxtrim::ir {

struct PrintOptions {
  int max_elements = 8;    // initializer values shown up to this many elements
  bool show_types = true;  // types of inputs/outputs/initializers
};

std::string print_graph(const Graph& g, const PrintOptions& opts = {});
std::string print_model(const Model& m, const PrintOptions& opts = {});
std::string print_tensor_values(const Tensor& t, int max_elements);

}  // namespace onnxtrim::ir
