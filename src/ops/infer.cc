#include "ops/infer.h"

#include <algorithm>
#include <map>

#include "ops/kernel_util.h"
#include "ops/registry.h"
#include "ops/values.h"

namespace onnxtrim::ops {

namespace {
OpTable<InferFn>& infer_table() {
  static OpTable<InferFn> t;
  return t;
}
std::string_view norm(std::string_view d) { return d == "ai.onnx" ? std::string_view() : d; }
}  // namespace

void register_infer(std::string domain, std::string op_type, InferFn fn) {
  infer_table()[{std::string(norm(domain)), std::move(op_type)}] = fn;
}

InferFn find_infer(std::string_view domain, std::string_view op_type) {
  auto it = infer_table().find(OpKeyView{norm(domain), op_type});
  return it == infer_table().end() ? nullptr : it->second;
}

namespace {
OpTable<TypeConstraints>& types_table() {
  static OpTable<TypeConstraints> t;
  return t;
}
}  // namespace

void register_types(std::string domain, std::string op_type, const std::string& signature,
                    std::vector<std::pair<std::string, uint64_t>> sets) {
  TypeConstraints c;
  size_t pos = 0;
  while (pos < signature.size()) {
    size_t end = signature.find(' ', pos);
    if (end == std::string::npos) end = signature.size();
    std::string var = signature.substr(pos, end - pos);
    if (var.size() > 3 && var.compare(var.size() - 3, 3, "...") == 0) {
      var.resize(var.size() - 3);
      c.variadic = true;
    }
    c.vars.push_back(var == "-" ? std::string() : var);
    pos = end + 1;
  }
  for (auto& [k, v] : sets) c.sets[k] = v;
  types_table()[{std::string(norm(domain)), std::move(op_type)}] = std::move(c);
}

const TypeConstraints* find_types(std::string_view domain, std::string_view op_type) {
  auto it = types_table().find(OpKeyView{norm(domain), op_type});
  return it == types_table().end() ? nullptr : &it->second;
}

Status check_types(const InferContext& ctx) {
  const ir::Node& n = ctx.node();
  const TypeConstraints* c = find_types(n.domain, n.op_type);
  if (!c || c->vars.empty()) return Status::ok();
  struct Seen {
    const std::string* var;
    size_t input;
    ir::DataType elem;
  };
  std::vector<Seen> seen;  // a variable, the first input of it, its type (a few variables per op)
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    if (i >= c->vars.size() && !c->variadic) break;
    const std::string& var = c->vars[std::min(i, c->vars.size() - 1)];
    if (var.empty()) continue;
    const TypeInfo& t = ctx.input(i);
    if (!t.is_tensor() || t.elem == ir::DataType::kUndefined) continue;
    if (!ir::dtype_is_known(static_cast<int32_t>(t.elem)))
      return ctx.error("input " + std::to_string(i) + " ('" + n.input(i)->name() + "') has unknown element type " +
                       std::to_string(static_cast<int32_t>(t.elem)));
    auto set = c->sets.find(var);
    if (set != c->sets.end() && (set->second & type_bit(t.elem)) == 0)
      return ctx.error("input " + std::to_string(i) + " ('" + n.input(i)->name() + "') is " +
                       std::string(ir::dtype_name(t.elem)) + ", a type " + n.op_type + " does not take");
    auto it = std::find_if(seen.begin(), seen.end(), [&](const Seen& x) { return *x.var == var; });
    if (it == seen.end()) {
      seen.push_back({&var, i, t.elem});
    } else if (it->elem != t.elem) {
      return ctx.error("inputs " + std::to_string(it->input) + " and " + std::to_string(i) +
                       " must have one element type, but are " + std::string(ir::dtype_name(it->elem)) + " and " +
                       std::string(ir::dtype_name(t.elem)));
    }
  }
  return Status::ok();
}

namespace {
// The values of the expressions in `es` when every one is a constant.
std::optional<std::vector<int64_t>> infer_constants(const std::optional<std::vector<Expr>>& es) {
  if (!es) return std::nullopt;
  std::vector<int64_t> out;
  for (const Expr& e : *es) {
    auto v = e.constant_value();
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}
}  // namespace

std::optional<std::vector<int64_t>> TypeInfo::static_shape() const { return infer_constants(shape); }

std::optional<std::vector<int64_t>> TypeInfo::static_values() const { return infer_constants(values); }

std::optional<std::vector<Expr>> constant_values(const ir::Tensor& t) {
  if (!tracks_values(t.dtype()) || t.numel() > static_cast<int64_t>(kMaxPropagated) || t.bytes() == nullptr)
    return std::nullopt;
  std::vector<Expr> out;
  for (int64_t v : to_int64_vector(t)) {
    if (t.dtype() == ir::DataType::kUint64 && v < 0) return std::nullopt;  // past int64: not tracked
    out.push_back(Expr::constant(v));
  }
  return out;
}

std::optional<std::vector<int64_t>> InferContext::input_ints(size_t i) const {
  if (const ir::Tensor* t = input_constant(i)) {
    if (ir::dtype_is_integer(t->dtype())) return to_int64_vector(*t);
    return std::nullopt;
  }
  return input(i).static_values();
}

void propagate_same(InferContext& ctx, size_t out, size_t in) {
  if (!ctx.has_output(out)) return;
  TypeInfo t = ctx.input(in);
  t.values.reset();
  ctx.output(out) = t;
}

Status infer_same(InferContext& ctx) {
  propagate_same(ctx);
  return Status::ok();
}

std::optional<SymShape> broadcast(const std::vector<const SymShape*>& shapes, bool* error) {
  size_t rank = 0;
  for (const SymShape* s : shapes) {
    if (!s) return std::nullopt;
    rank = std::max(rank, s->size());
  }
  SymShape out(rank, Expr::constant(1));
  for (size_t k = 0; k < rank; ++k) {
    std::optional<Expr> acc;
    for (const SymShape* s : shapes) {
      if (k < rank - s->size()) continue;
      const Expr& d = (*s)[k - (rank - s->size())];
      if (!acc) {
        acc = d;
        continue;
      }
      if (*acc == d) continue;
      auto a = acc->constant_value(), b = d.constant_value();
      if (b && *b == 1) continue;
      if (a && *a == 1) {
        acc = d;
        continue;
      }
      if (a && b) {
        if (error) *error = true;
        return std::nullopt;
      }
      // A known size > 1 wins over a symbol (the symbol must be 1 or equal); two different
      // symbols give an unknown.
      if (a) continue;
      if (b) {
        acc = d;
        continue;
      }
      acc = Expr::fresh();
    }
    out[k] = acc ? *acc : Expr::constant(1);
  }
  return out;
}

Status infer_broadcast(InferContext& ctx, ir::DataType elem) {
  std::vector<const SymShape*> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const TypeInfo& t = ctx.input(i);
    shapes.push_back(t.shape ? &*t.shape : nullptr);
  }
  bool bad = false;
  auto s = broadcast(shapes, &bad);
  if (bad) return ctx.error("input shapes cannot be broadcast together");
  ir::DataType e = elem != ir::DataType::kUndefined ? elem : ctx.input(0).elem;
  if (ctx.has_output(0)) ctx.output(0) = TypeInfo::tensor(e, s);
  return Status::ok();
}

Expr product(const SymShape& s, size_t from, size_t to) {
  Expr p = Expr::constant(1);
  for (size_t i = from; i < std::min(to, s.size()); ++i) p = p * s[i];
  return p;
}

}  // namespace onnxtrim::ops
