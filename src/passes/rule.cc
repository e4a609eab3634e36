#include "passes/rule.h"

#include <algorithm>

#include "passes/pass_manager.h"
#include "passes/pipeline.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {

namespace {

struct RuleInfo {
  std::string name;
  std::function<std::unique_ptr<RewriteRule>()> make;
};

std::vector<RuleInfo>& rules() {
  static std::vector<RuleInfo> r;
  return r;
}

ir::Node* find_node(ir::Graph& g, const std::string& name) {
  ir::Node* found = nullptr;
  g.for_each_node([&](ir::Node* n) {
    if (found) return;
    bool named = n->name == name;
    for (const ir::Value* o : n->outputs()) named = named || (o && o->name() == name);
    if (named) {
      found = n;
      return;
    }
    for (ir::Graph* sg : n->subgraphs())
      if (!found) found = find_node(*sg, name);
  });
  return found;
}

}  // namespace

const ShapeInference* RuleContext::facts() {
  if (!asked_) {
    asked_ = true;
    facts_ = current_facts(pass_);
  }
  return facts_.get();
}

RulePass::RulePass(std::unique_ptr<RewriteRule> rule) : rule_(std::move(rule)), roots_(rule_->roots()) {}

void RulePass::run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) {
  RuleContext rc(g, ctx);
  for (ir::Node* n : g.node_list()) {
    if (n->is_dead() || !n->is_default_domain()) continue;
    if (std::find(roots_.begin(), roots_.end(), n->op_type) == roots_.end()) continue;
    rule_->fire(*n, rc, rw, /*apply=*/true);
  }
}

std::vector<std::pair<std::string, std::string>> explain(ir::Model& m, const std::string& node,
                                                         const SimplifyOptions& opts) {
  std::vector<std::pair<std::string, std::string>> out;
  ir::Node* n = find_node(*m.graph, node);
  if (!n) {
    out.emplace_back("", "no node of the result is named '" + node + "' or makes a value of that name");
    return out;
  }
  std::vector<const RuleInfo*> sorted;
  for (const RuleInfo& r : rules()) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const RuleInfo* a, const RuleInfo* b) {
    return pipeline_position(a->name) < pipeline_position(b->name);
  });
  std::vector<std::string> warnings;
  PassContext pc{m, opts, &warnings, nullptr};
  RuleContext rc(*n->graph(), pc);
  ir::Rewriter rw(m);  // not used: nothing is applied
  for (const RuleInfo* r : sorted) {
    std::unique_ptr<RewriteRule> rule = r->make();
    std::vector<std::string> roots = rule->roots();
    if (!n->is_default_domain() || std::find(roots.begin(), roots.end(), n->op_type) == roots.end()) continue;
    std::optional<std::string> why = rule->fire(*n, rc, rw, /*apply=*/false);
    out.emplace_back(r->name, why ? *why : "fires");
  }
  for (const UserPass& u : opts.user_passes) {  // the run's user pattern rules (user_rules.h)
    std::unique_ptr<RewriteRule> rule = u.make_rule ? u.make_rule() : nullptr;
    std::vector<std::string> roots = rule ? rule->roots() : std::vector<std::string>{};
    if (!rule || !n->is_default_domain() || std::find(roots.begin(), roots.end(), n->op_type) == roots.end()) continue;
    std::optional<std::string> why = rule->fire(*n, rc, rw, /*apply=*/false);
    out.emplace_back(u.name, why ? *why : "fires");
  }
  if (out.empty()) out.emplace_back("", "no rewrite is rooted at " + n->op_type);
  return out;
}

namespace {

int64_t count_in(ir::Graph& g, ir::Model& m, RewriteRule& rule, const std::vector<std::string>& roots, int64_t opset,
                 const SimplifyOptions& opts) {
  std::vector<std::string> warnings;
  PassContext pc{m, opts, &warnings, nullptr};
  RuleContext rc(g, pc);
  rc.pretend_opset(opset);
  ir::Rewriter rw(m);  // not used: nothing is applied
  int64_t count = 0;
  for (ir::Node* n : g.node_list()) {
    for (ir::Graph* sg : n->subgraphs()) count += count_in(*sg, m, rule, roots, opset, opts);
    if (!n->is_default_domain() || std::find(roots.begin(), roots.end(), n->op_type) == roots.end()) continue;
    count += rule.fire(*n, rc, rw, /*apply=*/false) ? 0 : 1;
  }
  return count;
}

}  // namespace

int64_t count_matches(ir::Model& m, const std::string& rule, int64_t opset, const SimplifyOptions& opts) {
  for (const RuleInfo& r : rules()) {
    if (r.name != rule) continue;
    std::unique_ptr<RewriteRule> made = r.make();
    return count_in(*m.graph, m, *made, made->roots(), opset, opts);
  }
  return 0;
}

namespace detail {

void register_rule(std::string name, std::string description, std::function<std::unique_ptr<RewriteRule>()> make,
                   bool default_on) {
  rules().push_back(RuleInfo{name, make});
  PassRegistry::instance().add(PassInfo{std::move(name), std::move(description), default_on,
                                        [make] { return std::unique_ptr<Pass>(new RulePass(make())); }});
}

}  // namespace detail

}  // namespace onnxtrim::passes
