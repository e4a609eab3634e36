#include "passes/user_rules.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ir/clone.h"
#include "onnx_io/onnx_io.h"
#include "ops/fold.h"
#include "passes/rule.h"

namespace onnxtrim::passes {

namespace {

bool user_rule_default_domain(std::string_view d) { return d.empty() || d == "ai.onnx"; }
bool user_rule_same_domain(std::string_view a, std::string_view b) {
  return a == b || (user_rule_default_domain(a) && user_rule_default_domain(b));
}

// The ops whose two operands may be swapped (the pattern matches either way round).
bool user_rule_commutative(const ir::Node& n) {
  static const std::set<std::string, std::less<>> ops = {
      "Add", "Mul", "And", "Or", "Xor", "Equal", "Max", "Min", "Sum", "Mean", "BitwiseAnd", "BitwiseOr", "BitwiseXor"};
  return n.is_default_domain() && n.num_inputs() == 2 && ops.count(n.op_type) > 0;
}

bool user_rule_is_constant_node(const ir::Node* n) { return n && n->op_type == "Constant" && n->is_default_domain(); }

// A pattern and its replacement, checked when loaded.
struct UserPattern {
  std::string name;
  std::shared_ptr<const ir::Model> rules;  // keeps the functions alive
  const ir::Function* pattern = nullptr;
  const ir::Function* replacement = nullptr;
  const ir::Node* root = nullptr;  // the pattern node making its first output
  int64_t default_opset = 0;       // the rules' default-domain opset (0: none declared)
};

// What a match binds: pattern values and nodes to the graph's, attribute wildcards to the
// matched node's attribute (absent: not in the map).
struct UserMatchState {
  std::unordered_map<const ir::Value*, ir::Value*> values;
  std::unordered_map<const ir::Node*, ir::Node*> nodes;
  std::unordered_set<const ir::Node*> used;  // graph nodes matched
  std::map<std::string, ir::Attribute> attrs;
};

struct UserFit {
  UserMatchState state;
};

std::string user_rule_quote(const ir::Value* v) { return "'" + (v ? v->name() : std::string()) + "'"; }

class UserPatternRule final : public Rule<UserFit> {
 public:
  explicit UserPatternRule(std::shared_ptr<const UserPattern> p) : p_(std::move(p)) {}
  std::vector<std::string> roots() const override { return {p_->root->op_type}; }

 protected:
  Match<UserFit> match(const ir::Node& n, RuleContext& ctx) override {
    if (p_->default_opset && ctx.opset() != p_->default_opset)
      return refuse("the model imports opset " + std::to_string(ctx.opset()) + ", the rule is written for opset " +
                    std::to_string(p_->default_opset));
    const ir::Graph& body = *p_->pattern->body;
    UserMatchState st;
    if (auto why = match_node(p_->root, const_cast<ir::Node*>(&n), st, ctx.graph())) return refuse(*why);
    // Every pattern output is made by a matched node (the first by the root).
    for (const ir::Value* po : body.outputs())
      if (!st.values.count(po)) return refuse("the pattern output " + user_rule_quote(po) + " was not matched");
    // Values made inside the match and read outside it (or graph outputs) would lose their producer.
    std::unordered_set<const ir::Value*> pattern_outputs(body.outputs().begin(), body.outputs().end());
    for (const auto& [pn, gn] : st.nodes) {
      for (size_t k = 0; k < gn->num_outputs(); ++k) {
        const ir::Value* gv = gn->output(k);
        if (!gv || pattern_outputs.count(pn->output(k))) continue;
        if (gv->is_graph_output()) return refuse(user_rule_quote(gv) + " (inside the match) is a graph output");
        for (const ir::Use& u : gv->uses())
          if (!st.used.count(u.node))
            return refuse(user_rule_quote(gv) + " (inside the match) is also read by " + u.node->describe());
      }
    }
    // A replacement output that is one of its inputs takes over the matched output's name.
    const ir::Graph& rep = *p_->replacement->body;
    for (size_t k = 0; k < rep.outputs().size(); ++k) {
      const ir::Value* ro = rep.outputs()[k];
      if (ro->producer()) continue;
      ir::Value* to = bound_input(ro, st);
      ir::Value* from = st.values.at(body.outputs()[k]);
      if (!to)
        return refuse("the replacement's output " + user_rule_quote(ro) + " is an input the pattern left unbound");
      if (!ir::Rewriter::can_replace(from, to))
        return refuse("the output " + user_rule_quote(from) + " cannot be replaced by " + user_rule_quote(to) +
                      " (its name must be kept)");
    }
    return UserFit{std::move(st)};
  }

  void apply(ir::Node& n, UserFit& fit, RuleContext& ctx, ir::Rewriter& rw) override {
    ir::Graph& g = ctx.graph();
    const ir::Graph& body = *p_->pattern->body;
    const ir::Graph& rep = *p_->replacement->body;
    ir::Model& model = rw.model();
    std::unordered_map<const ir::Value*, ir::Value*> made;  // replacement values -> the graph's
    std::unordered_set<const ir::Value*> fresh;             // values the replacement made
    for (const ir::Value* in : rep.inputs())
      if (ir::Value* v = bound_input(in, fit.state)) made[in] = v;
    rep.for_each_node([&](const ir::Node* rn) {
      std::vector<ir::Value*> ins;
      for (const ir::Value* in : rn->inputs()) ins.push_back(in ? made.at(in) : nullptr);
      ir::Node* nn =
          rw.insert_node(g, &n, rn->op_type, ins, rn->num_outputs(), p_->name + "/" + rn->op_type, rn->domain);
      for (const ir::Attribute& a : rn->attributes) {
        if (a.ref_attr_name.empty()) {
          rw.set_attribute(nn, a);
          continue;
        }
        auto it = fit.state.attrs.find(a.ref_attr_name);
        if (it == fit.state.attrs.end()) continue;  // absent in the match: absent here (the op's default)
        ir::Attribute b = it->second;
        b.name = a.name;
        rw.set_attribute(nn, std::move(b));
      }
      for (size_t k = 0; k < rn->num_outputs(); ++k)
        if (rn->output(k)) {
          made[rn->output(k)] = nn->output(k);
          fresh.insert(nn->output(k));
        }
      // A domain the model does not import yet: at the rules' version.
      if (!rn->is_default_domain() && model.opset(rn->domain) == 0) {
        model.opset_import.push_back(ir::OpsetImport{rn->domain, p_->rules->opset(rn->domain), 0});
        rw.note_change();
      }
    });
    for (size_t k = 0; k < body.outputs().size(); ++k) {
      ir::Value* from = fit.state.values.at(body.outputs()[k]);
      ir::Value* to = made.at(rep.outputs()[k]);
      if (fresh.count(to) && !from->is_graph_output()) rw.set_type(to, from->type);
      rw.replace_all_uses_with(from, to);
    }
    // The matched nodes, last first (each one's readers are gone before it).
    std::vector<ir::Node*> order;
    for (ir::Node* m : g.node_list())
      if (fit.state.used.count(m)) order.push_back(m);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      bool unused = true;
      for (const ir::Value* o : (*it)->outputs())
        if (o && (o->has_uses() || o->is_graph_output())) unused = false;
      if (unused) rw.erase_node(*it);
    }
  }

 private:
  // The graph value bound to replacement input `in` (the pattern input at the same position).
  ir::Value* bound_input(const ir::Value* in, const UserMatchState& st) const {
    const auto& rins = p_->replacement->body->inputs();
    const auto& pins = p_->pattern->body->inputs();
    for (size_t i = 0; i < rins.size() && i < pins.size(); ++i)
      if (rins[i] == in) {
        auto it = st.values.find(pins[i]);
        return it == st.values.end() ? nullptr : it->second;
      }
    return nullptr;
  }

  std::optional<std::string> match_value(const ir::Value* pv, ir::Value* gv, UserMatchState& st, const ir::Graph& g) {
    if (!pv) return gv ? std::optional<std::string>("an input the pattern leaves empty is given") : std::nullopt;
    if (!gv) return "an input the pattern needs is empty";
    auto seen = st.values.find(pv);
    if (seen != st.values.end()) {
      if (seen->second == gv) return std::nullopt;
      return "the pattern reads " + user_rule_quote(pv) + " twice, the graph " + user_rule_quote(seen->second) +
             " and " + user_rule_quote(gv);
    }
    const ir::Node* pn = pv->producer();
    if (!pn) {  // a wildcard
      st.values[pv] = gv;
      return std::nullopt;
    }
    if (user_rule_is_constant_node(pn)) {
      const ir::Tensor* want = ops::FoldContext::constant(pv);
      const ir::Tensor* have = ops::FoldContext::constant(gv);
      if (!have) return user_rule_quote(gv) + " is not a constant (the pattern's " + user_rule_quote(pv) + " is)";
      if (!want || want->dtype() != have->dtype() || want->dims() != have->dims() || !want->same_contents(*have))
        return "the constant " + user_rule_quote(gv) + " differs from the pattern's " + user_rule_quote(pv);
      st.values[pv] = gv;
      return std::nullopt;
    }
    ir::Node* gn = gv->producer();
    if (!gn) return user_rule_quote(gv) + " is not made by a node (the pattern's " + user_rule_quote(pv) + " is)";
    if (gv->producer_output() != pv->producer_output())
      return user_rule_quote(gv) + " is output " + std::to_string(gv->producer_output()) + " of " + gn->describe() +
             ", the pattern wants output " + std::to_string(pv->producer_output());
    return match_node(pn, gn, st, g);
  }

  std::optional<std::string> match_node(const ir::Node* pn, ir::Node* gn, UserMatchState& st, const ir::Graph& g) {
    auto seen = st.nodes.find(pn);
    if (seen != st.nodes.end())
      return seen->second == gn ? std::nullopt : std::optional<std::string>("two pattern nodes meet different nodes");
    if (st.used.count(gn)) return gn->describe() + " would match two pattern nodes";
    if (gn->graph() != &g) return gn->describe() + " is in another graph";
    if (gn->op_type != pn->op_type || !user_rule_same_domain(gn->domain, pn->domain))
      return gn->describe() + " is not a " + pn->op_type;
    if (gn->num_outputs() != pn->num_outputs())
      return gn->describe() + " has " + std::to_string(gn->num_outputs()) + " outputs, the pattern's " +
             std::to_string(pn->num_outputs());
    if (gn->num_inputs() != pn->num_inputs())
      return gn->describe() + " has " + std::to_string(gn->num_inputs()) + " inputs, the pattern's " +
             std::to_string(pn->num_inputs());
    for (const ir::Attribute& pa : pn->attributes) {
      const ir::Attribute* ga = gn->attr(pa.name);
      if (!pa.ref_attr_name.empty()) {
        if (!ga) continue;
        auto bound = st.attrs.find(pa.ref_attr_name);
        if (bound != st.attrs.end() && !ir::attributes_equal(bound->second, *ga))
          return "the attribute wildcard @" + pa.ref_attr_name + " meets two values";
        st.attrs[pa.ref_attr_name] = *ga;
        continue;
      }
      if (!ga) return gn->describe() + " has no attribute " + pa.name;
      if (!ir::attributes_equal(pa, *ga)) return gn->describe() + ": attribute " + pa.name + " differs";
    }
    for (const ir::Attribute& ga : gn->attributes)
      if (!pn->attr(ga.name)) return gn->describe() + " has attribute " + ga.name + ", which the pattern does not give";
    st.nodes[pn] = gn;
    st.used.insert(gn);
    for (size_t k = 0; k < pn->num_outputs(); ++k) {
      if (!pn->output(k) != !gn->output(k))
        return gn->describe() + ": output " + std::to_string(k) + " differs in presence";
      if (pn->output(k)) st.values[pn->output(k)] = gn->output(k);
    }
    if (user_rule_commutative(*pn)) {
      UserMatchState keep = st;
      auto why = match_value(pn->input(0), gn->input(0), st, g);
      if (!why) why = match_value(pn->input(1), gn->input(1), st, g);
      if (!why) return std::nullopt;
      UserMatchState swapped = std::move(keep);
      auto why2 = match_value(pn->input(0), gn->input(1), swapped, g);
      if (!why2) why2 = match_value(pn->input(1), gn->input(0), swapped, g);
      if (!why2) {
        st = std::move(swapped);
        return std::nullopt;
      }
      return why;
    }
    for (size_t i = 0; i < pn->num_inputs(); ++i)
      if (auto why = match_value(pn->input(i), gn->input(i), st, g)) return why;
    return std::nullopt;
  }

  std::shared_ptr<const UserPattern> p_;
};

// Checks a pair when loaded; the error names the function.
Status user_rule_check_pair(UserPattern& p) {
  const ir::Graph& body = *p.pattern->body;
  const ir::Graph& rep = *p.replacement->body;
  auto bad = [&](const std::string& why) { return Status(ErrorCode::kUsage, "rewrite rule '" + p.name + "': " + why); };
  if (body.outputs().empty()) return bad("the pattern has no outputs");
  if (body.num_nodes() == 0) return bad("the pattern has no nodes");
  if (rep.inputs().size() != body.inputs().size() || rep.outputs().size() != body.outputs().size())
    return bad("the pattern takes " + std::to_string(body.inputs().size()) + " inputs and gives " +
               std::to_string(body.outputs().size()) + " outputs, the replacement " +
               std::to_string(rep.inputs().size()) + " and " + std::to_string(rep.outputs().size()));
  for (const ir::Value* o : body.outputs())
    if (!o->producer() || user_rule_is_constant_node(o->producer()))
      return bad("the pattern output '" + o->name() +
                 "' is not made by a node of the pattern (a Constant does not count)");
  p.root = body.outputs()[0]->producer();
  if (!p.root->is_default_domain())
    return bad("the node making the pattern's first output is a " + p.root->domain + "." + p.root->op_type +
               "; it must be of the default ONNX domain");
  // Every pattern node is reached from the root through inputs (the matcher walks up from it).
  std::unordered_set<const ir::Node*> reached;
  std::vector<const ir::Node*> work{p.root};
  while (!work.empty()) {
    const ir::Node* n = work.back();
    work.pop_back();
    if (!reached.insert(n).second) continue;
    for (const ir::Value* in : n->inputs())
      if (in && in->producer() && !user_rule_is_constant_node(in->producer())) work.push_back(in->producer());
  }
  std::set<std::string> wildcards;
  std::string problem;
  body.for_each_node([&](const ir::Node* n) {
    if (!problem.empty()) return;
    if (!n->subgraphs().empty()) problem = "the pattern node " + n->describe() + " has a subgraph (not supported)";
    else if (!user_rule_is_constant_node(n) && !reached.count(n))
      problem = "the pattern node " + n->describe() + " does not lead to the first output '" +
                body.outputs()[0]->name() + "' (the match starts there)";
    else if (user_rule_is_constant_node(n) && !ops::FoldContext::constant(n->output(0)))
      problem = "the pattern Constant " + n->describe() + " holds no `value` tensor";
    for (const ir::Attribute& a : n->attributes)
      if (!a.ref_attr_name.empty()) wildcards.insert(a.ref_attr_name);
  });
  if (!problem.empty()) return bad(problem);
  rep.for_each_node([&](const ir::Node* n) {
    if (!problem.empty()) return;
    if (!n->subgraphs().empty()) problem = "the replacement node " + n->describe() + " has a subgraph (not supported)";
    for (const ir::Attribute& a : n->attributes)
      if (!a.ref_attr_name.empty() && !wildcards.count(a.ref_attr_name))
        problem = "the replacement uses @" + a.ref_attr_name + ", which no pattern attribute binds";
  });
  if (!problem.empty()) return bad(problem);
  // A replacement input read by the replacement must be bound by the pattern (the pattern reads it).
  for (size_t i = 0; i < rep.inputs().size(); ++i) {
    const ir::Value* ri = rep.inputs()[i];
    const bool needed = ri->has_uses() || ri->is_graph_output();
    if (needed && !body.inputs()[i]->has_uses())
      return bad("the replacement reads its input " + std::to_string(i) + " ('" + ri->name() +
                 "'), which the pattern does not read (nothing binds it)");
  }
  return Status::ok();
}

class UserCallbackPass final : public Pass {
 public:
  UserCallbackPass(std::string name, ModelRewrite fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    if (&g != ctx.model.graph.get()) return;  // the callback sees the whole model once per round
    std::unique_ptr<ir::Model> next;
    try {
      next = fn_(ctx.model);
    } catch (const UserRuleFailure&) {
      throw;
    } catch (const std::exception& e) {
      throw UserRuleFailure(Status(ErrorCode::kUsage, "rewrite rule '" + name_ + "' failed: " + e.what()));
    }
    if (!next) return;
    Status st = replace_main_graph(ctx.model, *next, rw, name_);
    if (!st.is_ok()) throw UserRuleFailure(st);
  }

 private:
  std::string name_;
  ModelRewrite fn_;
};

}  // namespace

Result<std::vector<UserPass>> pattern_rules(std::shared_ptr<const ir::Model> rules, const std::string& where) {
  std::vector<UserPass> out;
  std::map<std::string, const ir::Function*> by_name;
  for (const ir::Function& f : rules->functions) by_name[f.name] = &f;
  const std::string suffix = "_replacement";
  for (const ir::Function& f : rules->functions) {
    const bool is_rep =
        f.name.size() > suffix.size() && f.name.compare(f.name.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (is_rep) {
      if (!by_name.count(f.name.substr(0, f.name.size() - suffix.size())))
        return Status(ErrorCode::kUsage, "rewrite rule '" + f.name + "': no pattern function '" +
                                             f.name.substr(0, f.name.size() - suffix.size()) + "' for this replacement")
            .with_file(where);
      continue;
    }
    auto it = by_name.find(f.name + suffix);
    if (it == by_name.end())
      return Status(ErrorCode::kUsage, "rewrite rule '" + f.name + "': no function '" + f.name + suffix +
                                           "' (each pattern NAME has its replacement NAME_replacement)")
          .with_file(where);
    auto p = std::make_shared<UserPattern>();
    p->name = f.name;
    p->rules = rules;
    p->pattern = &f;
    p->replacement = it->second;
    for (const ir::OpsetImport& oi : f.opset_import)
      if (user_rule_default_domain(oi.domain)) p->default_opset = oi.version;
    if (!p->default_opset) p->default_opset = rules->opset("");
    if (Status st = user_rule_check_pair(*p); !st.is_ok()) return st.with_file(where);
    std::shared_ptr<const UserPattern> cp = p;
    UserPass up;
    up.name = "user:" + f.name;
    up.make_rule = [cp] { return std::unique_ptr<RewriteRule>(new UserPatternRule(cp)); };
    up.make = [cp] { return std::unique_ptr<Pass>(new RulePass(std::make_unique<UserPatternRule>(cp))); };
    out.push_back(std::move(up));
  }
  if (out.empty())
    return Status(ErrorCode::kUsage, "no rewrite rules in it (functions NAME and NAME_replacement)").with_file(where);
  return out;
}

Result<std::vector<UserPass>> load_rewrite_rules(const std::string& path) {
  const bool binary = path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
  Result<std::unique_ptr<ir::Model>> m = Status(ErrorCode::kInternal, "");
  if (binary) {
    m = onnx_io::load_model(path);
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status(ErrorCode::kIo, "cannot read the rewrite rules").with_file(path);
    std::stringstream ss;
    ss << in.rdbuf();
    m = onnx_io::parse_text_functions(ss.str(), path);
  }
  if (!m.is_ok()) return Status(m.status()).with_file(path);
  return pattern_rules(std::shared_ptr<const ir::Model>(std::move(m).value()), path);
}

UserPass callback_rule(const std::string& name, ModelRewrite rewrite) {
  UserPass up;
  up.name = "user:" + name;
  up.make = [name, rewrite] { return std::unique_ptr<Pass>(new UserCallbackPass(name, rewrite)); };
  return up;
}

Status replace_main_graph(ir::Model& live, const ir::Model& next, ir::Rewriter& rw, const std::string& who) {
  ir::Graph& g = *live.graph;
  const ir::Graph& ng = *next.graph;
  auto bad = [&](const std::string& why) { return Status(ErrorCode::kUsage, "rewrite rule '" + who + "': " + why); };
  auto names = [](const std::vector<ir::Value*>& vs) {
    std::vector<std::string> out;
    for (const ir::Value* v : vs) out.push_back(v->name());
    return out;
  };
  if (names(g.inputs()) != names(ng.inputs())) return bad("the model it returned has other graph inputs");
  if (names(g.outputs()) != names(ng.outputs())) return bad("the model it returned has other graph outputs");
  for (const ir::OpsetImport& oi : next.opset_import) {
    int64_t have = live.opset(oi.domain);
    if (have && have != oi.version)
      return bad("the model it returned imports " +
                 (oi.domain.empty() ? std::string("the default domain") : oi.domain) + " at version " +
                 std::to_string(oi.version) + ", not " + std::to_string(have));
  }
  for (const ir::Function& f : next.functions) {
    bool known = false;
    for (const ir::Function& h : live.functions) known = known || (h.name == f.name && h.domain == f.domain);
    if (!known) return bad("the model it returned adds the function '" + f.name + "' (not supported)");
  }
  for (const ir::OpsetImport& oi : next.opset_import)
    if (!live.opset(oi.domain)) {
      live.opset_import.push_back(oi);
      rw.note_change();
    }
  std::unordered_map<const ir::Value*, ir::Value*> map;
  for (size_t i = 0; i < ng.inputs().size(); ++i) map[ng.inputs()[i]] = g.inputs()[i];
  for (const ir::Value* v : ng.initializers()) {
    if (map.count(v)) continue;  // an input with a default
    ir::Value* old = g.find_value(v->name());
    if (old && old->initializer() && old->initializer()->dtype() == v->initializer()->dtype() &&
        old->initializer()->dims() == v->initializer()->dims() && old->initializer()->same_contents(*v->initializer()))
      map[v] = old;
  }
  std::vector<ir::Node*> old_nodes = g.node_list();
  std::vector<ir::Value*> outs = ir::inline_graph(ng, g, nullptr, rw, map);
  for (size_t i = 0; i < outs.size(); ++i) {
    ir::Value* from = g.outputs()[i];
    ir::Value* to = outs[i];
    if (from == to) continue;
    if (!ir::Rewriter::can_replace(from, to)) {
      ir::Node* id = rw.insert_node(g, nullptr, "Identity", {to}, 1, from->name());
      to = id->output(0);
    }
    if (!rw.replace_all_uses_with(from, to)) return bad("output '" + from->name() + "' cannot be replaced");
  }
  for (auto it = old_nodes.rbegin(); it != old_nodes.rend(); ++it) {
    bool unused = true;
    for (const ir::Value* o : (*it)->outputs())
      if (o && (o->has_uses() || o->is_graph_output())) unused = false;
    if (unused) rw.erase_node(*it);
  }
  std::vector<ir::Value*> inits(g.initializers().begin(), g.initializers().end());
  for (ir::Value* v : inits)
    if (!v->has_uses() && !v->is_graph_output() && !v->is_graph_input()) rw.remove_initializer(v);
  return Status::ok();
}

}  // namespace onnxtrim::passes
