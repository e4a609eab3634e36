// Symbolic shape and type inference over a whole model (main graph, and subgraphs through the
// If/Loop/Scan rules), with value propagation of small integer tensors. Used by the
// infer_shapes pass and by passes that need facts (fold_constants, shape chains).
//
// The rule this file enforces: onnxtrim writes only shapes it has proved.
// - The facts start from the main graph's inputs (their element types and dims, whose dim names
//   are the model's interface), the constants, and the op rules.
// - What a file declares about any other value (value_info, If/Loop/Scan body inputs and
//   outputs, graph outputs) is a hint: its element type and fixed sizes are taken for that value
//   where the rules know less, but a dim name is taken only when it is built from the inputs'
//   dim names. Exporters name dims of unrelated values alike (torch gives the outputs of
//   different If nodes one name although their sizes differ), and a runtime that believes two
//   equal names shares one buffer between them.
// - What is written back (value_info, body outputs) is exactly the facts: an element type, fixed
//   sizes, and dim names only for expressions over the inputs' dim names that print in at most
//   kMaxWrittenDimChars characters; every other dim is written unnamed. A value whose element
//   type is unknown (behind a custom-domain op, say) gets no value_info at all.
// - The main graph's output declarations are the model's interface: they are kept as declared
//   and only gain what they leave open.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
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
  ShapeInference(const ir::Model& m, InferOptions opts = {}) : model_(m), opts_(std::move(opts)) {
    collect_interface();
  }
  // Infers everything; fails only on conflicting overrides (a clear usage error).
  Status run();
  // These facts (of a run that succeeded) for the model as it is after changes that touched
  // the given main-graph nodes (ir::ChangeLog): those nodes, and every node an input or an
  // outer value of whose facts changed, are inferred again in graph order; the graph's inputs
  // are looked at again, and its initializers: those in `initializers` (made or given another
  // tensor since), or every one when it is null. The same facts a new run would give, up to
  // the names of unknown dims, as long as every change is logged.
  std::shared_ptr<ShapeInference> refreshed(const std::vector<const ir::Node*>& touched,
                                            const std::vector<const ir::Value*>* initializers = nullptr) const;
  // The same, in place.
  void refresh(const std::vector<const ir::Node*>& touched,
               const std::vector<const ir::Value*>* initializers = nullptr);
  // What is known of v (nullptr when v was not reached).
  const ops::TypeInfo* facts(const ir::Value* v) const;
  // Writes the proved facts back into the IR under the rule above: main-graph inputs keep
  // their types, main-graph outputs only gain detail they lacked, every other value gets
  // exactly what is proved (and loses a value_info entry when nothing is); with
  // add_value_info, values that have facts get value_info entries.
  // The facts are the same before and after (what is written is what they hold).
  void write_back(ir::Rewriter& rw, bool add_value_info) const;
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Spec violations the op rules found (input types, attributes, sizes), each naming its node,
  // in graph order.
  const std::vector<Status>& errors() const { return errors_; }
  // The pinned contents of a main-graph input (InferOptions::input_tensors), or nullptr.
  const ir::Tensor* pinned(const ir::Value* v) const;

  // A declared type as facts. With `hint` (any declaration but a main-graph input's), a dim
  // name not built from the inputs' dim names becomes an unknown of its own.
  ops::TypeInfo from_declared(const ir::Type& t, bool hint = true) const;
  // The type written for facts t; nullopt when nothing may be written (unknown kind or
  // element type, at any level of a sequence or optional).
  std::optional<ir::Type> written_type(const ops::TypeInfo& t) const;
  // The dim written for expression e (a size, a readable name over the inputs' dim names, or
  // unnamed).
  ir::Dim written_dim(const symbolic::Expr& e) const;

 private:
  friend class GraphInferContext;
  Result<std::vector<ops::TypeInfo>> infer_graph(const ir::Graph& g, std::vector<ops::TypeInfo> inputs);
  // The facts of g's inputs and initializers (the first half of infer_graph); of only the
  // initializers in `only` (and those that are inputs too) when it is given.
  Status seed_graph(const ir::Graph& g, const std::vector<ops::TypeInfo>& inputs,
                    const std::unordered_set<const ir::Value*>* only = nullptr);

  void infer_node(const ir::Node& n);
  void infer_node_once(const ir::Node& n);
  void evaluate_if_constant(const ir::Node& n, GraphInferContext& ctx);
  void merge_declared(const ir::Node& n, const ir::Value* v, ops::TypeInfo& inferred);

  const ir::Model& model_;
  InferOptions opts_;
  // Facts by value, each with the value's serial: an entry whose serial is not the value's was
  // made for a freed value at the same address and is no fact of this one.
  struct Fact {
    uint64_t serial;
    ops::TypeInfo info;
  };
  std::unordered_map<const ir::Value*, Fact> facts_;
  ops::TypeInfo* find_fact(const ir::Value* v);
  void set_fact(const ir::Value* v, ops::TypeInfo t) { facts_.insert_or_assign(v, Fact{v->serial(), std::move(t)}); }
  // The unknowns the inference of each main-graph node (or the seeding of each main-graph
  // input) made last time, handed out again when it is inferred again (symbolic::FreshReplay).
  std::unordered_map<const void*, std::vector<symbolic::Expr>> unknowns_;
  // Runs `infer` with the unknowns `key` made last time, and keeps those it makes now.
  template <typename F>
  void with_unknowns(const void* key, F&& infer);
  std::vector<const ir::Graph*> graphs_;  // every graph inferred, in order
  std::vector<std::string> warnings_;
  std::vector<Status> errors_;
  // Symbol names of the main graph inputs' dims: the only dim names facts may carry.
  std::unordered_set<std::string> interface_;
  void collect_interface();
  bool is_interface(const symbolic::Expr& e) const;
};

// Longest dim expression written as a dim_param (in characters of its canonical text).
constexpr size_t kMaxWrittenDimChars = 40;

}  // namespace onnxtrim::passes
