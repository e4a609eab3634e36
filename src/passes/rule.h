// The rewrite contract. A rule is a pattern rooted at one node: it names the op types of its
// root, matches at a node of one of them (returning what it found, or the reason it refuses),
// and applies what it found through the Rewriter. One driver runs every rule: it walks the
// graph's live nodes in order and, at a node of a root type, matches and at once applies. A
// match is never kept across a change (a match made before an earlier rewrite could name what
// that rewrite erased), and no rule has a loop of its own.
//
// A rule registered with ONNXTRIM_REGISTER_RULE is a pass of the pipeline under its name
// (--passes, --skip, the report's statistics); explain() asks every rule rooted at a node's op
// type whether it would fire there, and why not (--explain).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passes/pass.h"

namespace onnxtrim::passes {

// Why a rule does not fire: the reason, in a few words ("the Relu has other readers").
struct Refusal {
  std::string reason;
};
inline Refusal refuse(std::string reason) { return Refusal{std::move(reason)}; }

// What a match found (Fit), or why it did not fit.
template <typename Fit>
class Match {
 public:
  Match(Fit fit) : fit_(std::move(fit)) {}         // NOLINT: implicit by design
  Match(Refusal r) : why_(std::move(r.reason)) {}  // NOLINT
  explicit operator bool() const { return fit_.has_value(); }
  Fit& operator*() { return *fit_; }
  Fit* operator->() { return &*fit_; }
  const std::string& why() const { return why_; }

 private:
  std::optional<Fit> fit_;
  std::string why_;
};

// Pattern helpers. n is a node of the default domain of type op.
inline bool is_op(const ir::Node* n, std::string_view op) { return n && n->op_type == op && n->is_default_domain(); }
// v is read by `by` alone (once) and is no graph output: an intermediate the rewrite may remove.
inline bool read_only_by(const ir::Value* v, const ir::Node* by) {
  return v && !v->is_graph_output() && v->uses().size() == 1 && v->uses()[0].node == by;
}
// The node of type op making v, when v is read by `by` alone; else null.
inline const ir::Node* private_producer(const ir::Value* v, std::string_view op, const ir::Node* by) {
  return read_only_by(v, by) && is_op(v->producer(), op) ? v->producer() : nullptr;
}

// What a rule reads besides the node: the graph it is in, the model (its opsets) and the facts
// of the model, inferred once per run of the rule over a graph (a value made by a rewrite since
// has no facts: facts(v) is null for it).
class RuleContext {
 public:
  RuleContext(ir::Graph& g, PassContext& pass) : graph_(g), pass_(pass) {}
  ir::Graph& graph() const { return graph_; }
  const ir::Model& model() const { return pass_.model; }
  int64_t opset(std::string_view domain = "") const {
    return pretend_opset_ && (domain.empty() || domain == "ai.onnx") ? pretend_opset_ : pass_.model.opset(domain);
  }
  // Matches as if the model imported this default-domain opset (count_matches).
  void pretend_opset(int64_t v) { pretend_opset_ = v; }
  // Null when shape inference fails on the model.
  const ShapeInference* facts();

 private:
  ir::Graph& graph_;
  PassContext& pass_;
  bool asked_ = false;
  std::shared_ptr<const ShapeInference> facts_;
  int64_t pretend_opset_ = 0;
};

class RewriteRule {
 public:
  virtual ~RewriteRule() = default;
  // Op types of the default domain at which the pattern is rooted.
  virtual std::vector<std::string> roots() const = 0;
  // Matches at n and, when it fits and `apply` is true, applies through rw. Returns the
  // reason it does not fit, or nullopt when it fits.
  virtual std::optional<std::string> fire(ir::Node& n, RuleContext& ctx, ir::Rewriter& rw, bool apply) = 0;
};

// A rule whose match hands apply a Fit.
template <typename Fit>
class Rule : public RewriteRule {
 public:
  std::optional<std::string> fire(ir::Node& n, RuleContext& ctx, ir::Rewriter& rw, bool apply) final {
    Match<Fit> m = match(n, ctx);
    if (!m) return m.why();
    if (apply) this->apply(n, *m, ctx, rw);
    return std::nullopt;
  }

 protected:
  // Reads the graph only.
  virtual Match<Fit> match(const ir::Node& n, RuleContext& ctx) = 0;
  // Changes it through rw only.
  virtual void apply(ir::Node& n, Fit& fit, RuleContext& ctx, ir::Rewriter& rw) = 0;
};

// The driver: a pass that runs one rule over a graph.
class RulePass final : public Pass {
 public:
  explicit RulePass(std::unique_ptr<RewriteRule> rule);
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override;

 private:
  std::unique_ptr<RewriteRule> rule_;
  std::vector<std::string> roots_;
};

// One line per rule rooted at the op type of the node named `node`, or making a value of that
// name (in the main graph or a subgraph of m): the rule's name and "fires" or the reason it does
// not. One line saying so when no such node or rule exists.
std::vector<std::pair<std::string, std::string>> explain(ir::Model& m, const std::string& node,
                                                         const SimplifyOptions& opts);

// How many nodes of m (subgraphs included) the rule named `rule` would fire at if the model
// imported default-domain opset `opset` (nothing is changed): what --opset N would fuse.
int64_t count_matches(ir::Model& m, const std::string& rule, int64_t opset, const SimplifyOptions& opts);

namespace detail {
void register_rule(std::string name, std::string description, std::function<std::unique_ptr<RewriteRule>()> make,
                   bool default_on = true);
}

// Its place in the pipeline is its entry in pipeline_order() (src/passes/pipeline.cc).
#define ONNXTRIM_REGISTER_RULE(cls, name, description)                                                  \
  static const bool onnxtrim_rule_registered_##cls = [] {                                               \
    ::onnxtrim::passes::detail::register_rule(                                                          \
        name, description, [] { return std::unique_ptr<::onnxtrim::passes::RewriteRule>(new cls()); }); \
    return true;                                                                                        \
  }()

// A rule off by default, turned on by a target (passes/targets.h) or --enable.
#define ONNXTRIM_REGISTER_TARGET_RULE(cls, name, description)                                                  \
  static const bool onnxtrim_rule_registered_##cls = [] {                                                      \
    ::onnxtrim::passes::detail::register_rule(                                                                 \
        name, description, [] { return std::unique_ptr<::onnxtrim::passes::RewriteRule>(new cls()); }, false); \
    return true;                                                                                               \
  }()

}  // namespace onnxtrim::passes
