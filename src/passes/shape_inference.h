// Symbolic shape and type inference over a whole model (main graph, and subgraphs through the
// If/Loop/Scan rules), with value propagation of small integer tensors. Used by the
// infer_shapes pass and by passes that need facts (fold_constants, shape chains).
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "ir/rewriter.h"
#include "ops/infer.h"

namespace onnxtrim::passes {

struct InferOptions {
  std::map<std::string, std::vector<int64_t>> input_shapes;  // --input-shape name:1,3,224,224
  std::map<std::string, int64_t> dims;                       // --dim batch=1
  // Use types declared for node outputs (value_info, graph outputs) where rules know less.
  // Off to measure the rules alone (the conformance runner's inference mode).
  bool use_declared = true;
  // Known contents of graph inputs (e.g. axes, pads or scales fed at run time): rules see them
  // as constants, and integer ones are propagated as values.
  std::map<std::string, ir::Tensor> input_tensors;
};

class GraphInferContext;

class ShapeInference {
 public:
  ShapeInference(const ir::Model& m, InferOptions opts = {}) : model_(m), opts_(std::move(opts)) {}
  // Infers everything; fails only on conflicting overrides (a clear usage error).
  Status run();
  // What is known of v (nullptr when v was not reached).
  const ops::TypeInfo* facts(const ir::Value* v) const;
  // Writes inferred types back into the IR (graph inputs keep theirs; graph outputs only gain
  // detail they lacked); with add_value_info, values get value_info entries.
  void write_back(ir::Rewriter& rw, bool add_value_info);
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The pinned contents of a main-graph input (InferOptions::input_tensors), or nullptr.
  const ir::Tensor* pinned(const ir::Value* v) const;

  // Converts between the IR's declared types and inference facts.
  ops::TypeInfo from_declared(const ir::Type& t) const;
  static ir::Type to_type(const ops::TypeInfo& t);

 private:
  friend class GraphInferContext;
  Result<std::vector<ops::TypeInfo>> infer_graph(const ir::Graph& g, std::vector<ops::TypeInfo> inputs);
  void infer_node(const ir::Node& n);
  void evaluate_if_constant(const ir::Node& n, GraphInferContext& ctx);
  void merge_declared(const ir::Node& n, const ir::Value* v, ops::TypeInfo& inferred);

  const ir::Model& model_;
  InferOptions opts_;
  std::unordered_map<const ir::Value*, ops::TypeInfo> facts_;
  std::vector<const ir::Graph*> graphs_;  // every graph inferred, in order
  std::vector<std::string> warnings_;
};

// The element values of a constant tensor as propagated facts (int tensors of rank <= 1).
std::optional<std::vector<symbolic::Expr>> propagate_constant(const ir::Tensor& t);

}  // namespace onnxtrim::passes
