// The opset converter's driver: every default-domain node of every graph (subgraphs and
// function bodies included) is stepped from the model's opset to the target across each
// version boundary of its op. A boundary with a registered step (the files beside this one)
// gets that rewrite; every boundary then gets the generic treatment from the spec's tables:
// a default that changed is written out, an attribute or input the other version lacks must
// be absent or hold its default (else the node is refused), and in the end the node's types
// must be ones the target version admits.
#include "convert/opset.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>

#include "convert/opset_context.h"
#include "ir/dtype.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"

namespace onnxtrim::convert {

// ------------------------------------------------------------------ registries

namespace {
std::map<std::pair<std::string, int>, StepFn>& steps() {
  static std::map<std::pair<std::string, int>, StepFn> m;
  return m;
}
std::map<std::string, ExpandFn>& expansions() {
  static std::map<std::string, ExpandFn> m;
  return m;
}
}  // namespace

void register_step(const char* op, int version, StepFn fn) { steps()[{op, version}] = fn; }
StepFn find_step(std::string_view op, int version) {
  auto it = steps().find({std::string(op), version});
  return it == steps().end() ? nullptr : it->second;
}
void register_expansion(const char* op, ExpandFn fn) { expansions()[op] = fn; }
ExpandFn find_expansion(std::string_view op) {
  auto it = expansions().find(std::string(op));
  return it == expansions().end() ? nullptr : it->second;
}
std::vector<std::string> expandable_ops() {
  std::vector<std::string> out;
  for (const auto& [k, _] : expansions()) out.push_back(k);
  return out;
}
std::vector<std::pair<std::string, int>> registered_steps() {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [k, _] : steps()) out.push_back(k);
  return out;
}

int64_t max_opset() { return newest_opset(); }

// ------------------------------------------------------------------ StepContext

const ir::Tensor* StepContext::constant(const ir::Value* v) const {
  if (!v) return nullptr;
  if (v->is_initializer()) return v->is_graph_input() ? nullptr : v->initializer();
  const ir::Node* p = v->producer();
  if (p && p->op_type == "Constant" && p->is_default_domain()) {
    const ir::Attribute* a = p->attr("value");
    if (a && a->t && a->ref_attr_name.empty()) return a->t.get();
  }
  return nullptr;
}

std::optional<std::vector<int64_t>> StepContext::ints(const ir::Value* v) const {
  if (!v) return std::nullopt;
  if (const ir::Tensor* t = constant(v)) {
    std::vector<int64_t> out;
    if (t->dtype() == ir::DataType::kInt64) {
      out = t->to_vector<int64_t>();
    } else if (t->dtype() == ir::DataType::kInt32) {
      for (int32_t x : t->to_vector<int32_t>()) out.push_back(x);
    } else {
      return std::nullopt;
    }
    return out;
  }
  if (const ir::Node* p = v->producer(); p && p->op_type == "Constant" && p->is_default_domain()) {
    if (const ir::Attribute* a = p->attr("value_ints"); a && a->ref_attr_name.empty()) return a->ints;
    if (const ir::Attribute* a = p->attr("value_int"); a && a->ref_attr_name.empty()) return std::vector<int64_t>{a->i};
  }
  if (si_) {
    if (const ops::TypeInfo* f = si_->facts(v)) return f->static_values();
  }
  return std::nullopt;
}

std::optional<std::vector<double>> StepContext::floats(const ir::Value* v) const {
  if (!v) return std::nullopt;
  if (const ir::Node* p = v->producer(); p && p->op_type == "Constant" && p->is_default_domain()) {
    if (const ir::Attribute* a = p->attr("value_float"); a && a->ref_attr_name.empty())
      return std::vector<double>{a->f};
    if (const ir::Attribute* a = p->attr("value_floats"); a && a->ref_attr_name.empty())
      return std::vector<double>(a->floats.begin(), a->floats.end());
  }
  const ir::Tensor* t = constant(v);
  if (!t) return std::nullopt;
  std::vector<double> out;
  switch (t->dtype()) {
    case ir::DataType::kFloat:
      for (float x : t->to_vector<float>()) out.push_back(x);
      break;
    case ir::DataType::kDouble:
      for (double x : t->to_vector<double>()) out.push_back(x);
      break;
    case ir::DataType::kFloat16:
      for (uint16_t x : t->to_vector<uint16_t>()) out.push_back(ops::half_to_float(x));
      break;
    case ir::DataType::kBFloat16:
      for (uint16_t x : t->to_vector<uint16_t>()) out.push_back(ops::bf16_to_float(x));
      break;
    case ir::DataType::kInt64:
      for (int64_t x : t->to_vector<int64_t>()) out.push_back(static_cast<double>(x));
      break;
    case ir::DataType::kInt32:
      for (int32_t x : t->to_vector<int32_t>()) out.push_back(x);
      break;
    default: return std::nullopt;
  }
  return out;
}

int64_t StepContext::rank(const ir::Value* v) const {
  if (!v) return -1;
  if (si_)
    if (const ops::TypeInfo* f = si_->facts(v); f && f->has_rank()) return f->rank();
  if (v->type.is_tensor() && v->type.has_shape) return v->type.rank();
  if (const ir::Tensor* t = constant(v)) return t->rank();
  return -1;
}

ir::DataType StepContext::dtype(const ir::Value* v) const {
  if (!v) return ir::DataType::kUndefined;
  if (v->type.is_tensor() && v->type.elem != ir::DataType::kUndefined) return v->type.elem;
  if (si_)
    if (const ops::TypeInfo* f = si_->facts(v); f && f->is_tensor()) return f->elem;
  if (const ir::Tensor* t = constant(v)) return t->dtype();
  return ir::DataType::kUndefined;
}

std::optional<std::vector<int64_t>> StepContext::static_shape(const ir::Value* v) const {
  if (!v) return std::nullopt;
  if (si_)
    if (const ops::TypeInfo* f = si_->facts(v))
      if (auto s = f->static_shape()) return s;
  if (v->type.is_tensor() && v->type.has_shape) {
    std::vector<int64_t> out;
    for (const ir::Dim& d : v->type.dims) {
      if (!d.is_known()) return std::nullopt;
      out.push_back(*d.value);
    }
    return out;
  }
  if (const ir::Tensor* t = constant(v)) return t->dims();
  return std::nullopt;
}

std::optional<int64_t> StepContext::dim(const ir::Value* v, int64_t axis) const {
  int64_t r = rank(v);
  if (r < 0) return std::nullopt;
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return std::nullopt;
  if (si_)
    if (const ops::TypeInfo* f = si_->facts(v); f && f->shape)
      if (auto c = (*f->shape)[static_cast<size_t>(axis)].constant_value()) return *c;
  if (v->type.is_tensor() && v->type.has_shape && v->type.rank() == r) {
    const ir::Dim& d = v->type.dims[static_cast<size_t>(axis)];
    if (d.is_known()) return *d.value;
  }
  if (const ir::Tensor* t = constant(v)) return t->dims()[static_cast<size_t>(axis)];
  return std::nullopt;
}

namespace {
// A function body: the root of its graph chain is not the model's main graph.
bool in_function(const ir::Graph& g) {
  const ir::Graph* r = &g;
  while (r->parent()) r = r->parent();
  return r != r->model()->graph.get();
}
}  // namespace

ir::Value* StepContext::make_const(ir::Graph& g, ir::Node* before, ir::Tensor t, std::string_view hint) {
  if (!in_function(g)) return rw_.add_initializer(g, std::move(t), hint);
  ir::Node* c = rw_.insert_node(g, before, "Constant", {}, 1, hint);
  c->attributes.push_back(ir::Attribute::make_tensor("value", std::move(t)));
  made_.emplace_back(c, to_);  // Constant's `value` means the same at every version
  return c->output(0);
}

ir::Value* StepContext::const_i64(ir::Graph& g, ir::Node* before, const std::vector<int64_t>& v, std::string_view hint,
                                  bool scalar) {
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(v.size()));
  return make_const(g, before, ir::Tensor::from_vector<int64_t>(ir::DataType::kInt64, dims, v), hint);
}

ir::Value* StepContext::const_of(ir::Graph& g, ir::Node* before, ir::DataType t, const std::vector<double>& v,
                                 std::string_view hint, std::vector<int64_t> dims) {
  ir::Tensor out(t, dims);
  if (out.numel() != static_cast<int64_t>(v.size())) out = ir::Tensor(t, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) {
    double x = v[i];
    switch (t) {
      case ir::DataType::kFloat: out.mutable_data<float>()[i] = static_cast<float>(x); break;
      case ir::DataType::kDouble: out.mutable_data<double>()[i] = x; break;
      case ir::DataType::kFloat16: out.mutable_data<uint16_t>()[i] = ops::float_to_half(static_cast<float>(x)); break;
      case ir::DataType::kBFloat16: out.mutable_data<uint16_t>()[i] = ops::float_to_bf16(static_cast<float>(x)); break;
      case ir::DataType::kInt64: out.mutable_data<int64_t>()[i] = static_cast<int64_t>(x); break;
      case ir::DataType::kInt32: out.mutable_data<int32_t>()[i] = static_cast<int32_t>(x); break;
      case ir::DataType::kInt16: out.mutable_data<int16_t>()[i] = static_cast<int16_t>(x); break;
      case ir::DataType::kInt8: out.mutable_data<int8_t>()[i] = static_cast<int8_t>(x); break;
      case ir::DataType::kUint8: out.mutable_data<uint8_t>()[i] = static_cast<uint8_t>(x); break;
      case ir::DataType::kUint16: out.mutable_data<uint16_t>()[i] = static_cast<uint16_t>(x); break;
      case ir::DataType::kUint32: out.mutable_data<uint32_t>()[i] = static_cast<uint32_t>(x); break;
      case ir::DataType::kUint64: out.mutable_data<uint64_t>()[i] = static_cast<uint64_t>(x); break;
      case ir::DataType::kBool: out.mutable_data<uint8_t>()[i] = x != 0; break;
      default: return nullptr;
    }
  }
  return make_const(g, before, std::move(out), hint);
}

ir::Node* StepContext::insert(ir::Node* before, std::string op, const std::vector<ir::Value*>& inputs,
                              size_t num_outputs, int64_t at, std::vector<ir::Attribute> attrs) {
  ir::Graph& g = *before->graph();
  std::string hint = (before->name.empty() ? op : before->name + "_" + op);
  ir::Node* n = rw_.insert_node(g, before, std::move(op), inputs, num_outputs, hint);
  n->attributes = std::move(attrs);
  made_.emplace_back(n, at);
  return n;
}

Status StepContext::refuse(const ir::Node& n, const std::string& detail) const {
  return Status(ErrorCode::kUnsupported, "--opset " + std::to_string(to_) + ": " + detail).with_node(n.describe());
}

std::optional<std::vector<int64_t>> attr_ints(const ir::Node& n, std::string_view name, bool* ref) {
  const ir::Attribute* a = n.attr(name);
  if (!a) return std::nullopt;
  if (!a->ref_attr_name.empty()) {
    if (ref) *ref = true;
    return std::nullopt;
  }
  if (a->type == ir::AttrType::kInt) return std::vector<int64_t>{a->i};
  return a->ints;
}

bool attr_is_ref(const ir::Node& n, std::string_view name) {
  const ir::Attribute* a = n.attr(name);
  return a && !a->ref_attr_name.empty();
}

Status refuse_value_before(StepContext& ctx, const ir::Node& n, bool up, const std::string& name,
                           const std::string& dflt, const std::string& value, int version) {
  if (!up && n.attr_string(name, dflt) == value)
    return ctx.refuse(n, name + " '" + value + "' exists from " + n.op_type + "-" + std::to_string(version) + " only");
  return Status::ok();
}

// ------------------------------------------------------------------ the generic step

namespace {

// The spec's default text as an attribute of the spec's type; nullopt when it cannot be read.
std::optional<ir::Attribute> default_attr(const AttrSpec& s) {
  if (!s.default_) return std::nullopt;
  const std::string& d = *s.default_;
  if (s.type == "int") {
    char* end = nullptr;
    long long v = std::strtoll(d.c_str(), &end, 10);
    if (*end) return std::nullopt;
    return ir::Attribute::make_int(s.name, v);
  }
  if (s.type == "float") {
    char* end = nullptr;
    double v = std::strtod(d.c_str(), &end);
    if (*end) return std::nullopt;
    return ir::Attribute::make_float(s.name, static_cast<float>(v));
  }
  if (s.type == "string") {
    std::string v = d;
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    return ir::Attribute::make_string(s.name, v);
  }
  return std::nullopt;
}

// True when attribute a holds the spec default of s (or s has no default and a is empty).
bool holds_default(const ir::Attribute& a, const AttrSpec& s) {
  if (!a.ref_attr_name.empty()) return false;
  auto d = default_attr(s);
  if (!d)
    return (a.type == ir::AttrType::kInts && a.ints.empty()) || (a.type == ir::AttrType::kFloats && a.floats.empty());
  if (d->type == ir::AttrType::kInt) return a.type == ir::AttrType::kInt && a.i == d->i;
  if (d->type == ir::AttrType::kFloat) return a.type == ir::AttrType::kFloat && a.f == d->f;
  if (d->type == ir::AttrType::kString) return a.type == ir::AttrType::kString && a.s == d->s;
  return false;
}

std::string attr_text(const ir::Attribute& a) {
  switch (a.type) {
    case ir::AttrType::kInt: return std::to_string(a.i);
    case ir::AttrType::kFloat: return std::to_string(a.f);
    case ir::AttrType::kString: return "'" + a.s + "'";
    default: return "(set)";
  }
}

struct Driver {
  ir::Model& m;
  ir::Rewriter& rw;
  StepContext& ctx;
  OpsetResult& res;
  std::set<const ir::Node*> rewritten;

  // Before a step: an attribute whose default differs between the two versions is written
  // out with the value the node had.
  void pin_defaults(ir::Node& n, const OpVersion& from, const OpVersion& to) {
    for (const AttrSpec& a : from.attrs) {
      const AttrSpec* b = to.attr(a.name);
      if (!b || n.has_attr(a.name) || a.default_ == b->default_ || !a.default_) continue;
      if (auto d = default_attr(a)) {
        rw.set_attribute(&n, *d);
        rewritten.insert(&n);
      }
    }
  }

  // After a step: the node must fit `to` (attributes, input and output counts).
  Status fit(ir::Node& n, const OpVersion& from, const OpVersion& to) {
    std::vector<std::string> drop;
    for (const ir::Attribute& a : n.attributes) {
      if (to.attr(a.name)) continue;
      const AttrSpec* s = from.attr(a.name);
      // consumed_inputs: a legacy optimization hint of opset 1 without meaning since.
      // dilations of all 1 (the spec's default per axis, which the table cannot spell).
      bool unit_dilations = a.name == "dilations" && a.type == ir::AttrType::kInts && a.ref_attr_name.empty() &&
                            std::all_of(a.ints.begin(), a.ints.end(), [](int64_t x) { return x == 1; });
      if (a.name == "consumed_inputs" || unit_dilations || (s && holds_default(a, *s))) {
        drop.push_back(a.name);
        continue;
      }
      return ctx.refuse(n, "attribute " + a.name + "=" + attr_text(a) + " of " + n.op_type + "-" +
                               std::to_string(from.since) + " has no equivalent in " + n.op_type + "-" +
                               std::to_string(to.since));
    }
    for (const auto& name : drop) rw.remove_attribute(&n, name);
    for (const AttrSpec& s : to.attrs)
      if (s.required && !n.has_attr(s.name))
        return ctx.refuse(n, n.op_type + "-" + std::to_string(to.since) + " needs attribute " + s.name +
                                 ", which the node cannot provide");
    int64_t max_in = to.max_inputs();
    if (max_in >= 0 && static_cast<int64_t>(n.num_inputs()) > max_in) {
      for (size_t i = static_cast<size_t>(max_in); i < n.num_inputs(); ++i)
        if (n.input(i)) {
          std::string name = i < from.inputs.size() ? from.inputs[i].name : std::to_string(i);
          return ctx.refuse(n, "input '" + name + "' of " + n.op_type + "-" + std::to_string(from.since) +
                                   " has no equivalent in " + n.op_type + "-" + std::to_string(to.since));
        }
      rw.remove_trailing_inputs(&n, static_cast<size_t>(max_in));
    }
    while (n.num_inputs() > 0 && !n.input(n.num_inputs() - 1)) rw.remove_trailing_inputs(&n, n.num_inputs() - 1);
    for (size_t i = 0; i < to.min_inputs(); ++i)
      if (!n.input(i))
        return ctx.refuse(n, n.op_type + "-" + std::to_string(to.since) + " needs input '" + to.inputs[i].name + "'");
    bool variadic_out = std::any_of(to.outputs.begin(), to.outputs.end(), [](const Formal& f) { return f.variadic; });
    if (!variadic_out && n.num_outputs() > to.outputs.size()) {
      for (size_t i = to.outputs.size(); i < n.num_outputs(); ++i) {
        ir::Value* o = n.output(i);
        if (o && (o->has_uses() || o->is_graph_output()))
          return ctx.refuse(n, "output " + std::to_string(i) + " of " + n.op_type + "-" + std::to_string(from.since) +
                                   " has no equivalent in " + n.op_type + "-" + std::to_string(to.since));
      }
      ir::Graph& g = *n.graph();
      for (size_t i = to.outputs.size(); i < n.num_outputs(); ++i)
        if (ir::Value* o = n.output(i)) {
          g.set_node_output(&n, i, nullptr);
          g.erase_value(o);
        }
      g.trim_trailing_empty_outputs(&n);
      rewritten.insert(&n);
    }
    return Status::ok();
  }

  // The node's known tensor types must be admitted by `v`.
  Status check_types(ir::Node& n, const OpVersion& v) {
    auto check = [&](const std::vector<Formal>& formals, const std::vector<ir::Value*>& vals,
                     const char* what) -> Status {
      for (size_t i = 0; i < vals.size(); ++i) {
        if (!vals[i]) continue;
        const Formal* f = nullptr;
        if (i < formals.size()) f = &formals[i];
        else if (!formals.empty() && formals.back().variadic) f = &formals.back();
        if (!f) continue;
        ir::DataType t = ctx.dtype(vals[i]);
        if (t == ir::DataType::kUndefined) continue;
        if (vals[i]->type.kind != ir::Type::Kind::kTensor && vals[i]->type.kind != ir::Type::Kind::kUnknown) continue;
        auto admitted = v.admitted(*f);
        if (admitted.empty()) continue;
        std::string name(ir::dtype_name(t));
        if (std::find(admitted.begin(), admitted.end(), name) != admitted.end()) continue;
        // A fixed type spelled as a list of alternatives is not parsed: do not guess.
        return ctx.refuse(n, std::string(what) + " '" + f->name + "' is " + name + ", which " + n.op_type + "-" +
                                 std::to_string(v.since) + " does not admit");
      }
      return Status::ok();
    };
    OT_RETURN_IF_ERROR(check(v.inputs, n.inputs(), "input"));
    return check(v.outputs, n.outputs(), "output");
  }

  // Converts node n (written for opset `cur`) to the target.
  Status convert_node(ir::Node& n, int64_t cur) {
    const int64_t to = ctx.to();
    const OpVersion* vs = at(n.op_type, cur);
    if (!vs) {
      if (versions(n.op_type).empty())
        return ctx.refuse(n, n.op_type + " is not an operator of the default domain this converter knows");
      return ctx.refuse(n, n.op_type + " does not exist at opset " + std::to_string(cur) + ", which the model imports");
    }
    const OpVersion* vt = at(n.op_type, to);
    if (vs == vt) return Status::ok();
    ++res.nodes_converted;
    if (vt) {
      const std::string op = n.op_type;
      OT_RETURN_IF_ERROR(step_to(n, cur, to));
      if (n.is_dead() || n.op_type != op) return Status::ok();  // renamed: queued again
      const OpVersion* now = at(n.op_type, to);
      return now ? check_types(n, *now) : convert_node(n, to);
    }
    int first = first_version(n.op_type);
    if (to < first) {
      // Too new for the target: its function body, written for the op's first version.
      ExpandFn fx = find_expansion(n.op_type);
      if (!fx)
        return ctx.refuse(n, n.op_type + " has no version at opset " + std::to_string(to) + "; it exists from opset " +
                                 std::to_string(first) + ", and the converter has no expansion of it");
      OT_RETURN_IF_ERROR(step_to(n, cur, first));
      ++res.nodes_expanded;
      expanded_[n.op_type]++;
      return fx(ctx, n);
    }
    // Removed at or before `to` (Upsample at 10, Scatter at 11): the step at the removal
    // renames the op, which then continues from there.
    const OpVersion& last = versions(n.op_type).back();
    StepFn fn = find_step(n.op_type, last.since);
    if (!fn)
      return ctx.refuse(n, n.op_type + " was removed at opset " + std::to_string(last.since) +
                               " and the converter has no replacement for it");
    OT_RETURN_IF_ERROR(step_to(n, cur, last.since - 1));
    std::string old_op = n.op_type;
    OT_RETURN_IF_ERROR(fn(ctx, n, true));
    rewritten.insert(&n);
    if (n.op_type == old_op) return ctx.refuse(n, "internal: the replacement of a removed op kept its name");
    --res.nodes_converted;  // counted once
    return convert_node(n, last.since);
  }

  // Steps n from version-at-`cur` to version-at-`target` of its op, boundary by boundary. A
  // step that renames the op (ScatterElements -> Scatter below 11) hands the node back to
  // convert_node from there.
  Status step_to(ir::Node& n, int64_t cur, int64_t target) {
    const auto& all = versions(n.op_type);
    const std::string op = n.op_type;
    if (target > cur) {
      for (size_t k = 1; k < all.size(); ++k) {
        const OpVersion& b = all[k];
        if (b.since <= cur || b.since > target) continue;
        const OpVersion& a = all[k - 1];
        if (b.deprecated && &b == &all.back()) break;
        pin_defaults(n, a, b);
        if (StepFn fn = find_step(op, b.since)) {
          OT_RETURN_IF_ERROR(fn(ctx, n, true));
          rewritten.insert(&n);
          if (n.is_dead()) return Status::ok();
          if (n.op_type != op) return step_renamed(n, b.since);
        }
        OT_RETURN_IF_ERROR(fit(n, a, b));
      }
    } else {
      for (size_t k = all.size(); k-- > 1;) {
        const OpVersion& b = all[k];
        if (b.since > cur || b.since <= target) continue;
        const OpVersion& a = all[k - 1];
        pin_defaults(n, b, a);
        if (StepFn fn = find_step(op, b.since)) {
          OT_RETURN_IF_ERROR(fn(ctx, n, false));
          rewritten.insert(&n);
          if (n.is_dead()) return Status::ok();
          if (n.op_type != op) return step_renamed(n, b.since - 1);
        }
        OT_RETURN_IF_ERROR(fit(n, b, a));
      }
    }
    return Status::ok();
  }

  // A step renamed the op; the renamed node is written for `at` and converted on from there.
  Status step_renamed(ir::Node& n, int64_t at_version) {
    ctx.made().emplace_back(&n, at_version);
    --res.nodes_converted;
    return Status::ok();
  }

  std::map<std::string, int64_t> expanded_;
};

void collect(ir::Graph& g, std::vector<ir::Node*>& out, std::vector<ir::Graph*>& graphs) {
  graphs.push_back(&g);
  for (ir::Node* n : g.node_list()) {
    for (ir::Graph* sg : n->subgraphs()) collect(*sg, out, graphs);
    if (n->is_default_domain()) out.push_back(n);
  }
}

// The IR version the ONNX release that introduced `opset` wrote.
int64_t ir_version_for(int64_t opset) {
  if (opset <= 8) return 3;
  if (opset == 9) return 4;
  if (opset == 10) return 5;
  if (opset == 11) return 6;
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  if (opset <= 22) return 10;
  if (opset <= 24) return 11;
  return 12;
}

}  // namespace

Result<OpsetResult> convert_opset(ir::Model& m, int64_t target) {
  OpsetResult res;
  res.from = m.opset("");
  res.to = target;
  if (target < kMinOpset || target > max_opset())
    return Status(ErrorCode::kUsage, "--opset: needs a version from " + std::to_string(kMinOpset) + " to " +
                                         std::to_string(max_opset()) + ", not " + std::to_string(target));
  if (res.from == 0) res.from = 1;
  if (res.from < kMinOpset)
    return Status(ErrorCode::kUnsupported, "--opset: the model imports opset " + std::to_string(res.from) +
                                               " of the default domain; the converter starts from opset " +
                                               std::to_string(kMinOpset) + " (broadcasting changed at 7)");
  if (res.from == target) return res;

  passes::ShapeInference si(m);
  const passes::ShapeInference* facts = si.run().is_ok() ? &si : nullptr;
  ir::Rewriter rw(m);
  StepContext ctx(m, rw, facts, res.from, target);
  Driver d{m, rw, ctx, res, {}, {}};

  std::vector<ir::Node*> nodes;
  std::vector<ir::Graph*> graphs;
  collect(*m.graph, nodes, graphs);
  for (auto& f : m.functions)
    if (f.body) collect(*f.body, nodes, graphs);
  std::deque<std::pair<ir::Node*, int64_t>> work;
  for (ir::Node* n : nodes) work.emplace_back(n, res.from);
  while (!work.empty()) {
    auto [n, cur] = work.front();
    work.pop_front();
    if (n->is_dead()) continue;
    OT_RETURN_IF_ERROR(d.convert_node(*n, cur));
    for (auto& made : ctx.made()) work.emplace_back(made.first, made.second);
    ctx.made().clear();
  }
  d.rewritten.erase(nullptr);
  res.nodes_rewritten = static_cast<int64_t>(d.rewritten.size());
  for (const auto& [op, k] : d.expanded_)
    res.notes.push_back(op + " x" + std::to_string(k) + " expanded from its function body (no version at opset " +
                        std::to_string(target) + ")");

  // Nodes made before the node they feed (steps insert before it) are put in order.
  for (ir::Graph* g : graphs) {
    std::string cycle;
    if (!g->topological_sort(&cycle))
      return Status(ErrorCode::kInternal, "--opset: the converted graph has a cycle at node '" + cycle + "'");
    g->purge();
  }
  for (auto& o : m.opset_import)
    if (o.domain.empty() || o.domain == "ai.onnx") o.version = target;
  for (auto& f : m.functions)
    for (auto& o : f.opset_import)
      if (o.domain.empty() || o.domain == "ai.onnx") o.version = target;
  int64_t want_ir = ir_version_for(target);
  if (!m.functions.empty()) want_ir = std::max<int64_t>(want_ir, 8);
  // Up: at least what the opset needs. Down: what the opset's release wrote, so that tools
  // of that time load the file (functions need IR 8).
  if (target > res.from) m.ir_version = std::max(m.ir_version, want_ir);
  else m.ir_version = std::min(m.ir_version, want_ir);
  return res;
}

}  // namespace onnxtrim::convert
