#include "passes/shape_inference.h"

#include <algorithm>
#include <functional>

#include "eval/interpreter.h"
#include "ops/custom_ops.h"
#include "ops/fold.h"
#include "passes/pass_util.h"
#include "ops/kernel_util.h"
#include "ops/values.h"

namespace onnxtrim::passes {

using ops::TypeInfo;
using symbolic::Expr;

void ShapeInference::collect_interface() {
  std::function<void(const ir::Type&)> add = [&](const ir::Type& t) {
    for (const ir::Dim& d : t.dims)
      if (!d.is_known() && !d.param.empty())
        for (std::string& s : Expr::parse(d.param).symbols()) interface_.insert(std::move(s));
    if (t.inner) add(*t.inner);
  };
  if (model_.graph)
    for (const ir::Value* v : model_.graph->inputs()) add(v->type);
}

bool ShapeInference::is_interface(const Expr& e) const {
  bool fresh = false;
  for (const std::string& s : e.symbols(&fresh))
    if (!interface_.count(s)) return false;
  return !fresh;
}

TypeInfo ShapeInference::from_declared(const ir::Type& t, bool hint) const {
  TypeInfo i;
  i.kind = t.kind;
  i.elem = t.elem;
  if (t.has_shape) {
    ops::SymShape s;
    for (const ir::Dim& d : t.dims) {
      if (d.is_known()) {
        s.push_back(Expr::constant(*d.value));
      } else if (!d.param.empty() && opts_.dims.count(d.param)) {
        s.push_back(Expr::constant(opts_.dims.at(d.param)));
      } else if (!d.param.empty()) {
        Expr e = Expr::parse(d.param);
        // A hint's name tells nothing unless it is built from the interface's names.
        s.push_back(hint && !is_interface(e) ? Expr::fresh() : e);
      } else {
        s.push_back(Expr::fresh());
      }
    }
    i.shape = std::move(s);
  }
  if (t.inner) i.inner = std::make_shared<TypeInfo>(from_declared(*t.inner, hint));
  return i;
}

ir::Dim ShapeInference::written_dim(const Expr& e) const {
  if (auto v = e.constant_value()) return ir::Dim::known(*v);
  if (!is_interface(e)) return ir::Dim{};
  std::string text = e.str();
  if (text.size() > kMaxWrittenDimChars) return ir::Dim{};
  return ir::Dim::symbol(std::move(text));
}

std::optional<ir::Type> ShapeInference::written_type(const TypeInfo& t) const {
  ir::Type ty;
  ty.kind = t.kind;
  ty.elem = t.elem;
  switch (t.kind) {
    case ir::Type::Kind::kTensor:
    case ir::Type::Kind::kSparseTensor:
      if (t.elem == ir::DataType::kUndefined) return std::nullopt;
      if (t.shape) {
        ty.has_shape = true;
        for (const Expr& e : *t.shape) ty.dims.push_back(written_dim(e));
      }
      return ty;
    case ir::Type::Kind::kSequence:
    case ir::Type::Kind::kOptional: {
      if (!t.inner) return std::nullopt;
      auto in = written_type(*t.inner);
      if (!in) return std::nullopt;
      ty.inner = std::make_shared<ir::Type>(std::move(*in));
      return ty;
    }
    case ir::Type::Kind::kMap: {
      if (t.elem == ir::DataType::kUndefined || !t.inner) return std::nullopt;
      auto in = written_type(*t.inner);
      if (!in) return std::nullopt;
      ty.inner = std::make_shared<ir::Type>(std::move(*in));
      return ty;
    }
    default: return std::nullopt;
  }
}

const TypeInfo* ShapeInference::facts(const ir::Value* v) const {
  auto it = facts_.find(v);
  return it == facts_.end() || it->second.serial != v->serial() ? nullptr : &it->second.info;
}

TypeInfo* ShapeInference::find_fact(const ir::Value* v) {
  auto it = facts_.find(v);
  return it == facts_.end() || it->second.serial != v->serial() ? nullptr : &it->second.info;
}

// ---------------------------------------------------------------- per-node context

class GraphInferContext final : public ops::InferContext {
 public:
  GraphInferContext(ShapeInference& si, const ir::Node& n, int64_t opset) : si_(si), n_(n), opset_(opset) {
    outputs_.resize(n.num_outputs());
  }
  const ir::Node& node() const override { return n_; }
  int64_t opset() const override { return opset_; }
  const TypeInfo& input(size_t i) const override {
    static const TypeInfo unknown;
    const ir::Value* v = n_.input(i);
    if (!v) return unknown;
    const TypeInfo* f = si_.facts(v);
    return f ? *f : unknown;
  }
  const ir::Tensor* input_constant(size_t i) const override {
    if (const ir::Tensor* p = si_.pinned(n_.input(i))) return p;
    return ops::FoldContext::constant(n_.input(i));
  }
  TypeInfo& output(size_t i) override {
    // A rule may fill outputs the node does not list (an invalid node with too few outputs):
    // those land in a scratch slot nobody reads.
    if (i < outputs_.size()) return outputs_[i];
    scratch_ = TypeInfo{};
    return scratch_;
  }
  Result<std::vector<TypeInfo>> infer_subgraph(const ir::Graph& g, std::vector<TypeInfo> inputs) override {
    return si_.infer_graph(g, std::move(inputs));
  }
  std::vector<TypeInfo>& outputs() { return outputs_; }
  TypeInfo scratch_;

 private:
  ShapeInference& si_;
  const ir::Node& n_;
  int64_t opset_;
  std::vector<TypeInfo> outputs_;
};

// ---------------------------------------------------------------- driver

void ShapeInference::merge_declared(const ir::Node& n, const ir::Value* v, TypeInfo& inf) {
  const ir::Type& decl = v->type;
  if (!decl.is_known()) return;
  if (inf.kind != ir::Type::Kind::kUnknown && inf.shape) {
    // The common case, a shape inferred and one declared (our own value_info after the first
    // round): compared dim by dim without building the declared facts. A declared dim is made
    // into an expression only where it tells more than the inferred one, with the same outcome
    // as the general case below: an unnamed dim, or a name not built from the interface's
    // names, would be a fresh unknown, which never replaces or contradicts anything.
    if (inf.elem == ir::DataType::kUndefined) inf.elem = decl.elem;
    else if (decl.elem != ir::DataType::kUndefined && decl.elem != inf.elem)
      warnings_.push_back("node " + n.describe() + ": output '" + v->name() + "' is declared " + decl.str() +
                          " but computes " + std::string(ir::dtype_name(inf.elem)));
    if (!decl.has_shape) return;
    if (decl.dims.size() != inf.shape->size()) {
      warnings_.push_back("node " + n.describe() + ": output '" + v->name() + "' is declared with rank " +
                          std::to_string(decl.dims.size()) + " but has rank " + std::to_string(inf.shape->size()));
      return;
    }
    for (size_t k = 0; k < decl.dims.size(); ++k) {
      const ir::Dim& dd = decl.dims[k];
      Expr& a = (*inf.shape)[k];
      auto pinned = dd.param.empty() ? opts_.dims.end() : opts_.dims.find(dd.param);
      if (dd.is_known() || pinned != opts_.dims.end()) {
        int64_t bv = dd.is_known() ? *dd.value : pinned->second;
        if (auto av = a.constant_value()) {
          if (*av != bv)
            warnings_.push_back("node " + n.describe() + ": output '" + v->name() + "' dim " + std::to_string(k) +
                                " is declared " + std::to_string(bv) + " but is " + std::to_string(*av));
        } else if (a.is_fresh()) {
          a = Expr::constant(bv);
        }
        continue;
      }
      if (dd.param.empty() || !a.is_fresh()) continue;
      Expr b = Expr::parse(dd.param);
      if (is_interface(b) && !b.is_fresh()) a = b;
    }
    return;
  }
  TypeInfo d = from_declared(decl);
  if (inf.kind == ir::Type::Kind::kUnknown) {
    d.values = inf.values;
    inf = d;
    return;
  }
  if (inf.elem == ir::DataType::kUndefined) inf.elem = d.elem;
  else if (d.elem != ir::DataType::kUndefined && d.elem != inf.elem)
    warnings_.push_back("node " + n.describe() + ": output '" + v->name() + "' is declared " + decl.str() +
                        " but computes " + std::string(ir::dtype_name(inf.elem)));
  if (!inf.shape) {
    inf.shape = d.shape;
    return;
  }
  if (!d.shape) return;
  if (d.shape->size() != inf.shape->size()) {
    warnings_.push_back("node " + n.describe() + ": output '" + v->name() + "' is declared with rank " +
                        std::to_string(d.shape->size()) + " but has rank " + std::to_string(inf.shape->size()));
    return;
  }
  for (size_t k = 0; k < d.shape->size(); ++k) {
    Expr& a = (*inf.shape)[k];
    const Expr& b = (*d.shape)[k];
    if (a == b) continue;
    auto av = a.constant_value(), bv = b.constant_value();
    if (av && bv) {
      warnings_.push_back("node " + n.describe() + ": output '" + v->name() + "' dim " + std::to_string(k) +
                          " is declared " + std::to_string(*bv) + " but is " + std::to_string(*av));
      continue;
    }
    // The declared dim tells more than an unknown.
    if (a.is_fresh() && !b.is_fresh()) a = b;
  }
}

// A node whose rule leaves an output shape open (data-dependent: Unique, StringSplit, NonZero,
// ...) but whose inputs are all small known constants is evaluated: its outputs are then known
// exactly. Non-deterministic ops and nodes with subgraphs are left alone.
void ShapeInference::evaluate_if_constant(const ir::Node& n, GraphInferContext& ctx) {
  // Open: an output's shape is not fully known, or it is a small integer tensor whose elements
  // value propagation could know but does not.
  bool open = false;
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    if (!n.output(i)) continue;
    const TypeInfo& o = ctx.outputs()[i];
    auto dims = o.is_tensor() ? o.static_shape() : std::nullopt;
    if (!dims) {
      open = true;
    } else if (ops::tracks_values(o.elem) && !o.values) {
      // Of any rank: the pads torch's F.pad exports pass through a [n, 2] Reshape, Slice and
      // Transpose, whose rules know no values past rank 1.
      const auto most = static_cast<int64_t>(ops::kMaxPropagated);
      int64_t count = 1;
      for (int64_t d : *dims) {
        count = d > most ? d : count * d;  // (no overflow: both factors at most `most`)
        if (count > most) break;
      }
      if (count <= most) open = true;
    }
  }
  if (!open || !is_pure(n) || !n.subgraphs().empty()) return;
  // Generators whose output size is set by their input values (and whose rules handle known
  // values): small inputs may ask for huge outputs, which inference must never allocate.
  static const char* kGenerators[] = {"ConstantOfShape", "Range",        "Tile",         "Expand",
                                      "Resize",          "Upsample",     "Pad",          "OneHot",
                                      "EyeLike",         "RandomNormal", "RandomUniform"};
  for (const char* g : kGenerators)
    if (n.op_type == g) return;
  std::vector<ir::RuntimeValue> held;
  int64_t elements = 0;
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    if (!n.input(i)) continue;
    const ir::Tensor* c = ctx.input_constant(i);
    if (c) {
      elements += c->numel();
      if (elements > 4096) return;
      held.push_back(ir::RuntimeValue::of(*c));
      continue;
    }
    // An integer tensor whose elements value propagation knows.
    const TypeInfo& f = ctx.input(i);
    auto vals = f.static_values();
    auto dims = f.static_shape();
    if (!vals || !dims || !ops::tracks_values(f.elem)) return;
    ir::Tensor t(f.elem, *dims);
    if (t.numel() != static_cast<int64_t>(vals->size())) return;
    bool ok = ops::dispatch(f.elem, ops::kSigned | ops::kUnsigned | ops::kBool, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (size_t k = 0; k < vals->size(); ++k) t.mutable_data<T>()[k] = static_cast<T>((*vals)[k]);
    });
    if (!ok) return;
    elements += t.numel();
    held.push_back(ir::RuntimeValue::of(std::move(t)));
  }
  std::vector<const ir::RuntimeValue*> inputs(n.num_inputs(), nullptr);
  for (size_t i = 0, k = 0; i < n.num_inputs(); ++i)
    if (n.input(i)) inputs[i] = &held[k++];
  eval::Interpreter interp(model_);
  auto r = interp.run_node(n, inputs, nullptr);
  if (!r) return;
  for (size_t i = 0; i < n.num_outputs() && i < r.value().size(); ++i) {
    if (!n.output(i) || !r.value()[i].is_tensor()) continue;
    const ir::Tensor& t = r.value()[i].tensor;
    TypeInfo f = TypeInfo::tensor(t.dtype(), ops::SymShape{});
    for (int64_t d : t.dims()) f.shape->push_back(Expr::constant(d));
    f.values = ops::constant_values(t);
    ctx.outputs()[i] = std::move(f);
  }
}

// A call of a model-local function: its body, inferred with the call's input facts, gives the
// outputs' facts. Only bodies without attribute references (whose rules would see an attribute
// the caller fills in) and of the model's own default-domain opset; the body is not written
// back (its calls may differ), and a function never calls itself (the guard is cheap insurance).
// `custom`: a custom op's function (--custom-op-schema), for a call no model function names.
static void infer_function_call_impl(
    const ir::Model& model, const ir::Function* custom, const ir::Node& n, std::vector<TypeInfo>& outputs,
    const std::function<TypeInfo(size_t)>& input,
    const std::function<Result<std::vector<TypeInfo>>(const ir::Graph&, std::vector<TypeInfo>)>& infer) {
  static thread_local std::vector<const ir::Function*> active;
  std::vector<const ir::Function*> candidates;
  for (const ir::Function& f : model.functions) candidates.push_back(&f);
  if (custom) candidates.push_back(custom);
  for (const ir::Function* fp : candidates) {
    const ir::Function& f = *fp;
    if (f.name != n.op_type || f.domain != n.domain || !f.body) continue;
    if (std::find(active.begin(), active.end(), &f) != active.end()) return;
    for (const ir::OpsetImport& o : f.opset_import)
      if ((o.domain.empty() || o.domain == "ai.onnx") && o.version != model.opset("")) return;
    bool refs = false;
    std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& g) {
      g.for_each_node([&](const ir::Node* b) {
        for (const ir::Attribute& a : b->attributes) refs |= !a.ref_attr_name.empty();
        for (const ir::Graph* sg : b->subgraphs()) scan(*sg);
      });
    };
    scan(*f.body);
    if (refs) return;
    std::vector<TypeInfo> ins;
    for (size_t i = 0; i < f.body->inputs().size(); ++i) ins.push_back(input(i));
    active.push_back(&f);
    auto r = infer(*f.body, std::move(ins));
    active.pop_back();
    if (!r) return;
    for (size_t i = 0; i < outputs.size() && i < r.value().size(); ++i) outputs[i] = r.value()[i];
    return;
  }
}

template <typename F>
void ShapeInference::with_unknowns(const void* key, F&& infer) {
  std::vector<Expr> made;
  {
    auto it = unknowns_.find(key);
    symbolic::FreshReplay replay(it != unknowns_.end() ? &it->second : nullptr, &made);
    infer();
  }
  if (made.empty()) unknowns_.erase(key);
  else unknowns_[key] = std::move(made);
}

void ShapeInference::infer_node(const ir::Node& n) {
  // A main-graph node is inferred once per inference; what its inference infers inside it (a
  // body, perhaps several times; a function's body, once per call) makes its unknowns within
  // the node's, in the same order each time. A node inside is never keyed on its own: its
  // unknowns would pass from one call of a function to the next, or from one pass over a
  // loop's body to the next, and tell different counts equal.
  if (n.graph() != model_.graph.get()) return infer_node_once(n);
  with_unknowns(&n, [&] { infer_node_once(n); });
}

void ShapeInference::infer_node_once(const ir::Node& n) {
  GraphInferContext ctx(*this, n, model_.opset(n.domain));
  ops::InferFn rule = ops::find_infer(n.domain, n.op_type);
  if (Status st = ops::check_types(ctx); !st.is_ok()) {
    warnings_.push_back(st.message());
    errors_.push_back(st);
  }
  // A custom op described by --custom-op-schema (ops/custom_ops.h): its rule, when no op file has one.
  const ops::CustomOpRule* custom = rule ? nullptr : ops::find_custom_op(n.domain, n.op_type, ctx.opset());
  if (rule || (custom && !custom->function)) {
    Status st = rule ? rule(ctx) : ops::infer_custom_op(ctx, *custom);
    // An attribute that names an element type (Cast's `to`, a generator's `dtype` ...) with a
    // code this build does not know: the model is invalid, and no such type reaches a consumer.
    for (size_t i = 0; st.is_ok() && i < ctx.outputs().size(); ++i) {
      const TypeInfo* o = &ctx.outputs()[i];
      while (o->inner && !o->is_tensor()) o = o->inner.get();
      if (o->is_tensor() && !ir::dtype_is_known(static_cast<int32_t>(o->elem)))
        st = ctx.error("output " + std::to_string(i) + " would have unknown element type " +
                       std::to_string(static_cast<int32_t>(o->elem)));
    }
    if (!st.is_ok()) {
      warnings_.push_back(st.message());
      if (st.code() == ErrorCode::kInvalidModel) errors_.push_back(st);
      for (auto& o : ctx.outputs()) o = TypeInfo{};
    }
  } else if (!n.is_default_domain()) {
    size_t graphs = graphs_.size();
    infer_function_call_impl(
        model_, custom ? custom->function : nullptr, n, ctx.outputs(),
        [&](size_t i) { return i < n.num_inputs() ? ctx.input(i) : TypeInfo{}; },
        [&](const ir::Graph& g, std::vector<TypeInfo> ins) { return infer_graph(g, std::move(ins)); });
    graphs_.resize(graphs);  // the body's facts are not written back
  }
  evaluate_if_constant(n, ctx);
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    const ir::Value* v = n.output(i);
    if (!v) continue;
    TypeInfo& t = ctx.outputs()[i];
    if (opts_.use_declared) merge_declared(n, v, t);
    if (t.values && (t.values->size() > ops::kMaxPropagated)) t.values.reset();
    set_fact(v, std::move(t));
  }
}

Result<std::vector<TypeInfo>> ShapeInference::infer_graph(const ir::Graph& g, std::vector<TypeInfo> inputs) {
  graphs_.push_back(&g);
  OT_RETURN_IF_ERROR(seed_graph(g, inputs));
  g.for_each_node([&](const ir::Node* n) { infer_node(*n); });
  std::vector<TypeInfo> outs;
  for (const ir::Value* v : g.outputs()) {
    const TypeInfo* f = facts(v);
    outs.push_back(f ? *f : from_declared(v->type));
  }
  return outs;
}

Status ShapeInference::seed_graph(const ir::Graph& g, const std::vector<TypeInfo>& inputs,
                                  const std::unordered_set<const ir::Value*>* only) {
  const auto& gin = g.inputs();
  for (size_t i = 0; i < gin.size(); ++i) {
    const ir::Value* v = gin[i];
    TypeInfo t;
    auto sh = opts_.input_shapes.find(v->name());
    if (g.parent() == nullptr && sh != opts_.input_shapes.end()) {
      if (v->type.has_shape && v->type.rank() != static_cast<int64_t>(sh->second.size()))
        return Status(ErrorCode::kUsage, "--input-shape " + v->name() + ": the model declares rank " +
                                             std::to_string(v->type.rank()) + ", the override has rank " +
                                             std::to_string(sh->second.size()));
      if (v->type.has_shape)
        for (size_t k = 0; k < sh->second.size(); ++k) {
          const ir::Dim& d = v->type.dims[k];
          if (d.is_known() && *d.value != sh->second[k])
            return Status(ErrorCode::kUsage, "--input-shape " + v->name() + ": dim " + std::to_string(k) +
                                                 " is fixed to " + std::to_string(*d.value) + " in the model");
          if (!d.param.empty() && opts_.dims.count(d.param) && opts_.dims.at(d.param) != sh->second[k])
            return Status(ErrorCode::kUsage, "--input-shape " + v->name() + " conflicts with --dim " + d.param + "=" +
                                                 std::to_string(opts_.dims.at(d.param)));
        }
      t = TypeInfo::tensor(v->type.elem, ops::SymShape{});
      for (int64_t d : sh->second) t.shape->push_back(Expr::constant(d));
    } else {
      if (&g == model_.graph.get()) with_unknowns(v, [&] { t = from_declared(v->type, /*hint=*/false); });
      else t = from_declared(v->type, /*hint=*/g.parent() != nullptr);
      if (i < inputs.size()) {
        // What the owning node knows (e.g. Loop-carried types) refines the declaration.
        const TypeInfo& given = inputs[i];
        if (t.kind == ir::Type::Kind::kUnknown) t = given;
        else {
          if (t.elem == ir::DataType::kUndefined) t.elem = given.elem;
          if (!t.shape) t.shape = given.shape;
          else if (given.shape && given.shape->size() == t.shape->size())
            for (size_t k = 0; k < t.shape->size(); ++k)
              if ((*t.shape)[k].is_fresh()) (*t.shape)[k] = (*given.shape)[k];
          if (!t.inner) t.inner = given.inner;
          t.values = given.values;
        }
      }
    }
    if (g.parent() == nullptr) {
      if (const ir::Tensor* c = pinned(v)) {
        t = TypeInfo::tensor(c->dtype(), ops::SymShape{});
        for (int64_t d : c->dims()) t.shape->push_back(Expr::constant(d));
        t.values = ops::constant_values(*c);
      }
    }
    set_fact(v, std::move(t));
  }
  for (const ir::Value* v : g.initializers()) {
    if (v->is_graph_input() && model_.ir_version >= 4) continue;    // overridable: only its type is known
    if (only && !only->count(v) && !v->is_graph_input()) continue;  // an input's facts were seeded above
    const ir::Tensor& t = *v->initializer();
    TypeInfo f = TypeInfo::tensor(t.dtype(), ops::SymShape{});
    for (int64_t d : t.dims()) f.shape->push_back(Expr::constant(d));
    f.values = ops::constant_values(t);
    set_fact(v, std::move(f));
  }
  return Status::ok();
}

namespace {

bool same_facts(const TypeInfo& a, const TypeInfo& b) {
  if (a.kind != b.kind || a.elem != b.elem || a.shape.has_value() != b.shape.has_value() ||
      a.values.has_value() != b.values.has_value() || (a.inner == nullptr) != (b.inner == nullptr))
    return false;
  if (a.shape && *a.shape != *b.shape) return false;
  if (a.values && *a.values != *b.values) return false;
  return !a.inner || a.inner == b.inner || same_facts(*a.inner, *b.inner);
}

}  // namespace

std::shared_ptr<ShapeInference> ShapeInference::refreshed(const std::vector<const ir::Node*>& touched,
                                                          const std::vector<const ir::Value*>* initializers) const {
  auto si = std::make_shared<ShapeInference>(*this);
  si->refresh(touched, initializers);
  return si;
}

void ShapeInference::refresh(const std::vector<const ir::Node*>& touched,
                             const std::vector<const ir::Value*>* initializers) {
  const ir::Graph& g = *model_.graph;
  std::unordered_set<const ir::Node*> dirty(touched.begin(), touched.end());
  std::unordered_set<const ir::Value*> changed;
  // What is known now of v against what was known (nullptr: nothing).
  auto compare = [&](const ir::Value* v, const TypeInfo* before) {
    const TypeInfo* now = facts(v);
    if (!before || !now || !same_facts(*before, *now)) changed.insert(v);
  };
  {
    // The logged pointers are only compared: a value may have gone since it was logged.
    std::unordered_set<const ir::Value*> logged;
    if (initializers) logged.insert(initializers->begin(), initializers->end());
    std::vector<std::pair<const ir::Value*, std::optional<TypeInfo>>> before;
    for (const ir::Value* v : g.inputs()) before.emplace_back(v, std::nullopt);
    for (const ir::Value* v : g.initializers())
      if (!initializers || logged.count(v) || v->is_graph_input()) before.emplace_back(v, std::nullopt);
    for (auto& [v, b] : before)
      if (TypeInfo* f = find_fact(v)) b = std::move(*f);  // seed_graph writes each
    // Cannot fail here: the same overrides passed before.
    if (!seed_graph(g, {}, initializers ? &logged : nullptr).is_ok()) return;
    for (auto& [v, b] : before) compare(v, b ? &*b : nullptr);
  }
  std::vector<const ir::Graph*> before_graphs = std::move(graphs_);
  graphs_.assign(1, &g);
  g.for_each_node([&](const ir::Node* n) {
    bool redo = dirty.count(n) != 0;
    for (size_t i = 0; i < n->num_inputs() && !redo; ++i) redo = n->input(i) && changed.count(n->input(i));
    // A body may read any value of the enclosing graphs.
    if (!n->subgraphs().empty() && !changed.empty()) redo = true;
    if (!redo) return;
    std::vector<std::optional<TypeInfo>> before(n->num_outputs());
    for (size_t i = 0; i < n->num_outputs(); ++i)
      if (TypeInfo* f = n->output(i) ? find_fact(n->output(i)) : nullptr)
        before[i] = std::move(*f);  // infer_node writes every output's facts
    infer_node(*n);
    for (size_t i = 0; i < n->num_outputs(); ++i)
      if (n->output(i)) compare(n->output(i), before[i] ? &*before[i] : nullptr);
  });
  // Every graph inferred, in the order a new run infers them: the bodies inferred now, and
  // those inferred before that are still in the model.
  std::unordered_set<const ir::Graph*> inferred(graphs_.begin(), graphs_.end());
  inferred.insert(before_graphs.begin(), before_graphs.end());
  graphs_.clear();
  std::function<void(const ir::Graph&)> walk = [&](const ir::Graph& sg) {
    if (!inferred.count(&sg)) return;
    graphs_.push_back(&sg);
    sg.for_each_node([&](const ir::Node* n) {
      for (const ir::Graph* b : n->subgraphs()) walk(*b);
    });
  };
  walk(g);
}

const ir::Tensor* ShapeInference::pinned(const ir::Value* v) const {
  if (!v || !v->is_graph_input() || v->graph() != model_.graph.get()) return nullptr;
  auto it = opts_.input_tensors.find(v->name());
  return it == opts_.input_tensors.end() ? nullptr : &it->second;
}

Status ShapeInference::run() {
  for (const auto& [name, shape] : opts_.input_shapes) {
    bool found = false;
    for (const ir::Value* v : model_.graph->inputs()) found |= v->name() == name;
    if (!found) return Status(ErrorCode::kUsage, "--input-shape: the model has no input named '" + name + "'");
  }
  auto r = infer_graph(*model_.graph, {});
  if (!r) return std::move(r).take_status();
  return Status::ok();
}

namespace {

// The declared type `decl` of a graph output with what `proved` adds where it is open. With
// keep_names false (body outputs), declared dim names that are not proved are dropped first.
ir::Type merge_declaration(ir::Type decl, const std::optional<ir::Type>& proved, bool keep_names) {
  if (!decl.is_known()) return proved ? *proved : decl;
  const ir::Type* p = proved && proved->kind == decl.kind ? &*proved : nullptr;
  bool same_rank = p && p->has_shape && decl.has_shape && p->dims.size() == decl.dims.size();
  if (!keep_names)
    for (size_t k = 0; k < decl.dims.size(); ++k) {
      ir::Dim& d = decl.dims[k];
      if (d.is_known() || d.param.empty()) continue;
      if (!same_rank || p->dims[k].param != d.param) d.param.clear();
    }
  if (!p) return decl;
  if (decl.elem == ir::DataType::kUndefined) decl.elem = p->elem;
  if (!decl.has_shape && p->has_shape) {
    decl.has_shape = true;
    decl.dims = p->dims;
  } else if (same_rank) {
    // Open dims take what is proved; a declared name gives way to a proved size only.
    for (size_t k = 0; k < decl.dims.size(); ++k)
      if (!decl.dims[k].is_known() && (decl.dims[k].param.empty() || p->dims[k].is_known())) decl.dims[k] = p->dims[k];
  }
  if (decl.inner && p->inner)
    decl.inner = std::make_shared<ir::Type>(merge_declaration(*decl.inner, *p->inner, keep_names));
  else if (!decl.inner && p->inner) decl.inner = p->inner;
  return decl;
}

}  // namespace

void ShapeInference::write_back(ir::Rewriter& rw, bool add_value_info) const {
  for (const ir::Graph* cg : graphs_) {
    auto& g = const_cast<ir::Graph&>(*cg);
    auto apply = [&](ir::Value* v) {
      if (!v || v->is_graph_input()) return;  // inputs never change
      const TypeInfo* f = facts(v);
      std::optional<ir::Type> t = f ? written_type(*f) : std::nullopt;
      if (v->is_graph_output()) {
        // The main graph's outputs are the interface: kept as declared, open parts filled in.
        // A body's outputs keep only what is proved of their declaration.
        const auto& mo = model_.graph->outputs();
        bool interface = std::find(mo.begin(), mo.end(), v) != mo.end();
        rw.set_type(v, merge_declaration(v->type, t, /*keep_names=*/interface));
        return;
      }
      if (v->is_initializer()) return;  // typed by its tensor
      if (!t) {
        // Nothing proved: the declaration was a hint, and no value_info is written.
        if (v->type.is_known()) rw.set_type(v, ir::Type{});
        rw.remove_value_info(v);
        return;
      }
      rw.set_type(v, *t);
      if (add_value_info && !v->has_value_info) {
        v->has_value_info = true;
        g.value_info_order().push_back(v);
        rw.note_change(v->producer());
      }
    };
    g.for_each_node([&](ir::Node* n) {
      for (ir::Value* o : n->outputs()) apply(o);
    });
    for (ir::Value* o : g.outputs()) apply(o);
  }
}

}  // namespace onnxtrim::passes
