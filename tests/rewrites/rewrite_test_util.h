// Golden-test helpers for passes: parse a model in ONNX text syntax, run passes with the
// verifier and the convergence check on, print the graph, compare outputs on random inputs.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "eval/verify.h"
#include "ir/clone.h"
#include "ir/printer.h"
#include "ops/kernel_util.h"
#include "passes/pass_manager.h"
#include "passes/rule.h"
#include "../unit/test_util.h"

namespace onnxtrim::test {

struct Simplified {
  std::unique_ptr<ir::Model> original;
  std::unique_ptr<ir::Model> model;
  passes::SimplifyResult result;
  std::string printed;  // the resulting graph in text form
  size_t nodes() const { return model->graph->num_nodes(); }
};

inline Simplified simplify_text(const std::string& text, std::vector<std::string> only = {}) {
  Simplified s;
  s.model = parse(text);
  if (!s.model) return s;
  s.original = ir::clone_model(*s.model);
  passes::SimplifyOptions o;
  o.only = std::move(only);
  o.verify_ir = true;
  o.fail_on_cap = true;
  auto r = passes::simplify(*s.model, o);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.status().message());
  if (r) s.result = r.value();
  s.printed = ir::print_graph(*s.model->graph);
  return s;
}

// The first node of type `op` (bodies included), or nullptr.
inline const ir::Node* find_op(const ir::Graph& g, const std::string& op) {
  const ir::Node* found = nullptr;
  g.for_each_node([&](const ir::Node* n) {
    if (!found && n->op_type == op) found = n;
  });
  return found;
}

// A fold pass's test: the body and signature of an opset-17 graph, run through shape inference,
// `pass` and the dead-node and unused-initializer eliminations.
inline Simplified run_fold_pass(const std::string& pass, const std::string& body, const std::string& sig) {
  std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng " + sig + " {\n" + body + "\n}\n";
  return simplify_text(text, {"infer_shapes", pass, "eliminate_dead_nodes", "eliminate_unused_initializers"});
}

// The simplified model computes what the original did, on `samples` random inputs.
inline void expect_same_outputs(const Simplified& s, int samples = 3, std::map<std::string, int64_t> dims = {}) {
  eval::VerifyOptions vo;
  vo.samples = samples;
  vo.inputs.dims = std::move(dims);
  auto v = eval::Verifier::create(*s.original, vo);
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  auto rep = v.value()->compare_with(*s.model);
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
}

// The pass left `nodes` nodes, and the result computes what the original did.
inline void expect_folded(const Simplified& s, size_t nodes) {
  EXPECT_EQ(s.nodes(), nodes) << s.printed;
  expect_same_outputs(s);
}

// The same for a model whose input n is a Loop's trip count, pinned to 3 (random trip counts
// would make runs of any length).
inline void expect_same_outputs_loop(const Simplified& s) {
  eval::VerifyOptions vo;
  vo.samples = 2;
  vo.inputs.pinned["n"] = ir::RuntimeValue::of(ir::Tensor::scalar_i64(3));
  auto v = eval::Verifier::create(*s.original, vo);
  ASSERT_TRUE(v.is_ok()) << v.status().message();
  auto rep = v.value()->compare_with(*s.model);
  ASSERT_TRUE(rep.is_ok()) << rep.status().message();
  EXPECT_TRUE(rep.value().ok) << rep.value().why;
}

inline size_t count_ops(const ir::Graph& g, const std::string& op) {
  size_t n = 0;
  g.for_each_node([&](const ir::Node* node) { n += node->op_type == op; });
  return n;
}

// Why `rule` does not fire at the node that writes `node` in `text`'s model (passes::explain,
// with the options of `target`), or "(not listed)" when explain does not name the rule.
inline std::string explain_reason(const std::string& text, const std::string& rule, const std::string& node = "y",
                                  const std::string& target = "") {
  auto m = parse(text);
  if (!m) return "(no model)";
  passes::SimplifyOptions o;
  o.target = target;
  for (const auto& [r, why] : passes::explain(*m, node, o))
    if (r == rule) return why;
  return "(not listed)";
}

// The elements of an initializer, as int64.
inline std::vector<int64_t> ints_of(const ir::Value* v) { return ops::to_int64_vector(*v->initializer()); }

}  // namespace onnxtrim::test
