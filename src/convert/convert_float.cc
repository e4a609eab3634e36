// convert_float: float32 compute and weights -> float16 / bfloat16 (and any of them back to float32)
//
//   Op(x:f32, w:f32) -> y:f32   =>   Op(Cast(x, f16), w':f16) -> y:f16 [-> Cast(y, f32) at a kept reader]
//
// Which inputs share a type with which outputs comes from the spec's type constraints, per
// version (the spec table, ops/spec_table.h, generated from Changelog.md): the inputs and outputs of
// one type variable form a group, and a group converts as a whole. What stays float32, and why
// (each kept node is reported with its reason):
// - inputs the spec types as tensor(float) only (Resize scales, ...), and groups whose type
//   variable has no target type at the model's opset (Range-11, Conv-11 for bfloat16);
// - shape arithmetic: small float values computed from Shape/Size (and small constants), held
//   in float32 (a reader that converts casts them); and small float values of rank <= 1 read only
//   where float32 is required for the op's sake (a Cast to an integer type, a float32-only
//   input, a node kept in float32 for such a reason): the value flow, backwards;
// - a value whose largest finite magnitude on the observed run leaves the target's range (with
//   headroom): its producer and every reader that takes it in that group stay float32;
// - a node whose own error in the target type (inputs and outputs rounded, computed as
//   before) exceeds the tolerance on the observed run, and the producers of what it reads;
//   Range (its size depends on the values);
// - operators of other domains, model-local functions, values of unknown type, sequence
//   values, and the values a Loop or Scan carries (the loop keeps one type per iteration; the
//   body's readers cast them).
// Converting back to float32 keeps nothing behind.
// With keep_io_types the main graph's inputs and outputs keep their types: Casts at the boundary.
// Cast `to`, the dtype of generator ops (RandomNormal[Like], RandomUniform[Like], EyeLike,
// Bernoulli) and ConstantOfShape's value follow their output's new type. A Cast from a float
// type other than float32 is a precision boundary someone placed and is left alone (this is
// what makes a second conversion change nothing), except when converting back to float32.
// A Cast whose input is itself an exact widening Cast of a value of the wanted type is not made:
// that value is read instead (fp16 -> fp32 -> fp16 folds; fp32 -> fp16 -> fp32 never does).
#include "convert/convert_float.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

#include "ir/mapped.h"
#include "ir/rewriter.h"
#include "ir/scratch.h"
#include "ops/kernel_util.h"
#include "ops/registry.h"
#include "ops/spec_table.h"

namespace onnxtrim::convert {

using ir::DataType;
using ir::Node;
using ir::Value;

namespace {

// ---------------------------------------------------------------- the spec's type variables

enum : unsigned { kMaskF32 = 1, kMaskF16 = 2, kMaskBF16 = 4 };

struct FloatFormal {
  std::string var;  // type variable, or "@float" for a fixed type
  bool fixed = false;
  DataType fixed_type = DataType::kUndefined;
  bool non_diff = false;
  bool variadic = false;
};

struct FloatSignature {
  std::vector<FloatFormal> ins, outs;
  std::map<std::string, unsigned> masks;
  int since = 0;
};

std::vector<FloatFormal> float_formals(const char* s) {
  std::vector<FloatFormal> out;
  for (const ops::SpecFormal& sf : ops::parse_spec_formals(s)) {
    FloatFormal f;
    f.var = sf.type;
    f.non_diff = sf.non_differentiable;
    f.variadic = sf.variadic;
    if (!f.var.empty() && f.var[0] == '@') {
      f.fixed = true;
      auto t = ir::dtype_from_name(f.var.substr(1));
      f.fixed_type = t ? *t : DataType::kUndefined;
    }
    out.push_back(f);
  }
  return out;
}

// Which of float, float16 and bfloat16 a type variable admits (as a tensor type, or inside a
// sequence or optional type).
unsigned float_mask(const std::vector<std::string>& types) {
  unsigned mask = 0;
  for (const std::string& t : types)
    for (auto [name, bit] :
         {std::pair{"float", kMaskF32}, std::pair{"float16", kMaskF16}, std::pair{"bfloat16", kMaskBF16}})
      if (t == name || t.find("tensor(" + std::string(name) + ")") != std::string::npos) mask |= bit;
  return mask;
}

const std::map<std::string, std::vector<FloatSignature>>& signatures() {
  static const std::map<std::string, std::vector<FloatSignature>> m = [] {
    std::map<std::string, std::vector<FloatSignature>> out;
    for (const ops::SpecRow& r : ops::spec_rows()) {
      FloatSignature s;
      s.since = r.since;
      s.ins = float_formals(r.inputs);
      s.outs = float_formals(r.outputs);
      for (const auto& [var, types] : ops::parse_spec_constraints(r.constraints)) s.masks[var] = float_mask(types);
      out[r.op].push_back(std::move(s));
    }
    return out;
  }();
  return m;
}

// The version of the op that applies at `opset` (nullptr: unknown here).
const FloatSignature* find_signature(const std::string& op, int64_t opset) {
  auto it = signatures().find(op);
  if (it == signatures().end()) return nullptr;
  const FloatSignature* best = nullptr;
  for (const FloatSignature& s : it->second)
    if (s.since <= opset) best = &s;
  return best;
}

const FloatFormal* formal_at(const std::vector<FloatFormal>& fs, size_t i) {
  if (i < fs.size()) return &fs[i];
  if (!fs.empty() && fs.back().variadic) return &fs.back();
  return nullptr;
}

unsigned mask_of(DataType t) {
  switch (t) {
    case DataType::kFloat: return kMaskF32;
    case DataType::kFloat16: return kMaskF16;
    case DataType::kBFloat16: return kMaskBF16;
    default: return 0;
  }
}

std::string type_word(DataType t) { return std::string(ir::dtype_name(t)); }

double max_finite_of(DataType t) {
  switch (t) {
    case DataType::kFloat16: return 65504.0;
    case DataType::kBFloat16: return 3.3895313892515355e38;
    default: return 3.4028234663852886e38;
  }
}

std::string fmt(double x) {
  std::ostringstream os;
  os.precision(3);
  os << x;
  return os.str();
}

bool is_float(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kDouble;
}

// Tensors past this size are large: a mapped one's pages leave memory once read (below).
constexpr size_t kLarge = size_t{1} << 20;

// Runs body(i0, i1) over elements [0, n) a few MB at a time. With `let_go`, the pages of
// elements [i0, i1) of each of `tensors` that is mapped (a weight in the model's file or
// external data, a result in the scratch file) leave memory as soon as the chunk is done: a
// tensor read or written whole is never in memory whole (nothing for a tensor in the heap).
template <typename Body>
void in_chunks(int64_t n, bool let_go, std::initializer_list<const ir::Tensor*> tensors, Body&& body) {
  constexpr int64_t kChunk = int64_t{1} << 20;
  for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
    int64_t i1 = std::min(n, i0 + kChunk);
    body(i0, i1);
    if (!let_go) continue;
    for (const ir::Tensor* t : tensors) {
      size_t esz = t->byte_size() / static_cast<size_t>(t->numel());
      ir::release_pages(*t, static_cast<size_t>(i0) * esz, static_cast<size_t>(i1 - i0) * esz);
    }
  }
}

// A float tensor as another float type, rounded to nearest even. With `let_go`, the pages of
// the source (and of the result, when it is in the scratch file) leave memory as they are done.
ir::Tensor convert_tensor(const ir::Tensor& t, DataType to, bool let_go = false) {
  ir::Tensor out(to, t.dims());
  ops::dispatch(t.dtype(), ops::kFloats, [&](auto from) {
    using F = typename decltype(from)::type;
    ops::dispatch(to, ops::kFloats, [&](auto into) {
      using T = typename decltype(into)::type;
      const F* p = t.data<F>();
      T* q = out.mutable_data<T>();
      in_chunks(t.numel(), let_go, {&t, &out}, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i)
          q[i] = T(static_cast<ops::compute_t<T>>(static_cast<double>(static_cast<ops::compute_t<F>>(p[i]))));
      });
    });
  });
  return out;
}

// A float32 tensor with each element rounded to `to` and widened back: the value a reader in
// `to` sees, made in one pass without the intermediate tensor in `to`. A large source's pages
// leave memory as they are read (the copy is what its reader uses next), so that a mapped
// weight and its copy are not in memory together.
ir::Tensor round_through(const ir::Tensor& t, DataType to) {
  ir::Tensor out(DataType::kFloat, t.dims());
  ops::dispatch(to, ops::kFloats, [&](auto into) {
    using T = typename decltype(into)::type;
    const float* p = t.data<float>();
    float* q = out.mutable_data<float>();
    in_chunks(t.numel(), t.byte_size() >= kLarge, {&t}, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i)
        q[i] = static_cast<float>(static_cast<ops::compute_t<T>>(T(static_cast<ops::compute_t<T>>(p[i]))));
    });
  });
  return out;
}

// The largest finite magnitude in t; a large mapped t's pages leave memory as they are read.
double tensor_max_abs(const ir::Tensor& t) {
  double m = 0;
  ops::dispatch(t.dtype(), ops::kFloats, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    in_chunks(t.numel(), t.byte_size() >= kLarge, {&t}, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        double x = std::fabs(static_cast<double>(static_cast<ops::compute_t<T>>(p[i])));
        if (std::isfinite(x)) m = std::max(m, x);  // infinities are infinities in every float type
      }
    });
  });
  return m;
}

// A stored constant converted: past 1 MB into the scratch file, whose pages leave memory as
// they are written (as the source's do as they are read), so that a model larger than memory
// converts in bounded memory and saving copies the result from there.
ir::Tensor convert_stored(const ir::Tensor& t, DataType to) {
  ir::ScratchScope scratch(kLarge);
  return convert_tensor(t, to, /*let_go=*/t.byte_size() >= kLarge);
}

// The relative L2 error of `z` rounded to `to` against the float32 `y` (elements where y is
// not finite are skipped; infinity when a finite y meets a non-finite z), read in place: no
// copy of either, whatever their size. Negative when the sizes differ.
double rounded_rel_l2(const ir::Tensor& y, const ir::Tensor& z, DataType to) {
  if (y.numel() != z.numel() || y.dtype() != DataType::kFloat) return -1;
  double num = 0, den = 0;
  bool blown = false;
  ops::dispatch(z.dtype(), ops::kFloats, [&](auto from) {
    using F = typename decltype(from)::type;
    ops::dispatch(to, ops::kFloats, [&](auto into) {
      using T = typename decltype(into)::type;
      const float* py = y.data<float>();
      const F* pz = z.data<F>();
      for (int64_t k = 0; k < y.numel(); ++k) {
        double a = py[k];
        if (!std::isfinite(a)) continue;
        double b = static_cast<double>(static_cast<ops::compute_t<T>>(
            T(static_cast<ops::compute_t<T>>(static_cast<double>(static_cast<ops::compute_t<F>>(pz[k]))))));
        if (!std::isfinite(b)) {
          blown = true;
          continue;
        }
        num += (b - a) * (b - a);
        den += a * a;
      }
    });
  });
  return blown ? INFINITY : den > 0 ? std::sqrt(num / den) : 0;
}

bool has_subgraphs(const Node* n) { return !n->subgraphs().empty(); }

int64_t static_numel(const Value* v) {
  auto d = v->type.static_dims();
  if (!d) return -1;
  int64_t n = 1;
  for (int64_t x : *d) n *= x;
  return n;
}

}  // namespace

bool parse_float_dtype(const std::string& s, DataType* out) {
  if (s == "fp16" || s == "float16" || s == "half") *out = DataType::kFloat16;
  else if (s == "bf16" || s == "bfloat16") *out = DataType::kBFloat16;
  else if (s == "fp32" || s == "float32" || s == "float") *out = DataType::kFloat;
  else return false;
  return true;
}

// ---------------------------------------------------------------- observations

FloatObservations::FloatObservations(const ir::Model& model, const ConvertFloatOptions& opts)
    : model_(model), opts_(opts), probe_(std::make_unique<eval::Interpreter>(model)) {
  probe_->set_fast_float(true);  // as the check runs (float accumulation, as ONNX Runtime)
}
FloatObservations::~FloatObservations() = default;

eval::Interpreter::Observer FloatObservations::observer() {
  ran = true;
  return [this](const Node& n, const std::vector<const ir::RuntimeValue*>& ins,
                const std::vector<ir::RuntimeValue>& outs) {
    // A node of a function's instance (a body with its attribute references resolved, made and
    // freed by the interpreter) is no node of the model: recorded, its address would outlive it.
    if (n.graph()->model() != &model_) return;
    bool any_float = false;
    for (size_t i = 0; i < outs.size() && i < n.num_outputs(); ++i) {
      const Value* v = n.output(i);
      if (!v || !outs[i].is_tensor() || !is_float(outs[i].tensor.dtype())) continue;
      any_float |= outs[i].tensor.dtype() == DataType::kFloat;
      double& slot = max_abs[v];
      slot = std::max(slot, tensor_max_abs(outs[i].tensor));
    }
    // The node's own error in the target type: float32 inputs rounded to it, the same
    // computation, the float32 outputs rounded to it, against what the node computed.
    if (!any_float || opts_.target == DataType::kFloat || has_subgraphs(&n) || n.op_type == "Constant") return;
    const ops::OpSchema* s = ops::OpRegistry::instance().find(n.domain, n.op_type, model_.opset(n.domain));
    if (!s || !s->eval || !s->deterministic || !n.is_default_domain()) return;
    double worst = 0;
    if (ops::OpRegistry::instance().has(n.domain, n.op_type, ops::OpProperty::kCopiesElements)) {
      // Its outputs are copies of input elements: the run on rounded inputs would give exactly
      // the outputs rounded, so the error is measured on them (no copies, no second run).
      for (size_t i = 0; i < outs.size(); ++i)
        if (outs[i].is_tensor() && outs[i].tensor.dtype() == DataType::kFloat)
          worst = std::max(worst, rounded_rel_l2(outs[i].tensor, outs[i].tensor, opts_.target));
      double& slot = node_error[&n];
      slot = std::max(slot, worst);
      return;
    }
    // One rounded copy per distinct input (a value read twice is rounded once). A mapped
    // weight's pages leave memory as its copy is made (round_through): the node has run on them
    // already and the re-run reads the copy, so that a weight is in memory once, not twice.
    std::vector<ir::RuntimeValue> rounded(ins.size());
    std::vector<const ir::RuntimeValue*> rin(ins.size(), nullptr);
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!ins[i]) continue;
      if (ins[i]->is_tensor() && ins[i]->tensor.dtype() == DataType::kFloat) {
        auto same = std::find(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(i), ins[i]);
        if (same != ins.begin() + static_cast<std::ptrdiff_t>(i)) {
          rin[i] = rin[static_cast<size_t>(same - ins.begin())];
          continue;
        }
        rounded[i] = ir::RuntimeValue::of(round_through(ins[i]->tensor, opts_.target));
        rin[i] = &rounded[i];
      } else {
        rin[i] = ins[i];
      }
    }
    auto r = probe_->run_node(n, rin, nullptr);
    if (!r) return;
    for (size_t i = 0; i < outs.size() && i < r.value().size(); ++i) {
      if (!outs[i].is_tensor() || outs[i].tensor.dtype() != DataType::kFloat || !r.value()[i].is_tensor()) continue;
      double e = rounded_rel_l2(outs[i].tensor, r.value()[i].tensor, opts_.target);
      if (e < 0) continue;
      worst = std::max(worst, e);
    }
    double& slot = node_error[&n];
    slot = std::max(slot, worst);
  };
}

// ---------------------------------------------------------------- the conversion

namespace {

class Converter {
 public:
  Converter(ir::Model& m, const ConvertFloatOptions& o, const FloatObservations* seen)
      : m_(m), o_(o), seen_(seen), rw_(m) {}

  Result<ConvertFloatResult> run();

 private:
  // ---- analysis
  bool is_src(DataType t) const {
    if (o_.target == DataType::kFloat) return t == DataType::kFloat16 || t == DataType::kBFloat16;
    return t == DataType::kFloat;
  }
  bool src_tensor(const Value* v) const { return v && v->type.is_tensor() && is_src(orig(v)); }
  DataType orig(const Value* v) const {
    auto it = orig_.find(v);
    return it != orig_.end() ? it->second : v->type.elem;
  }
  DataType ty(const Value* v) const {
    auto it = ty_.find(v);
    return it != ty_.end() ? it->second : orig(v);
  }
  bool flexible(const Value* v) const {
    if (v->is_initializer()) return !v->is_graph_input();
    return v->producer() && v->producer()->op_type == "Constant" && v->producer()->is_default_domain();
  }
  bool pinned(const Value* v) const { return pinned_.count(v) != 0; }
  const std::string* must_keep(const Value* v) const {
    auto it = must_.find(v);
    return it == must_.end() ? nullptr : &it->second;
  }

  void collect(ir::Graph& g);
  void shape_derived(ir::Graph& g);
  void range_facts();
  void decide_graph(ir::Graph& g);
  void decide(Node* n);
  void decide_if(Node* n);
  void decide_loop(Node* n, bool scan);
  void keep_node(Node* n, const std::string& reason);
  void want(Node* n, size_t i, DataType t) { wants_[{n, i}] = t; }
  bool index_pass();

  // ---- mutation
  void apply();
  Value* cast_of(Value* v, DataType to);
  std::pair<ir::Graph*, Node*> cast_position(Value* v);

  ir::Model& m_;
  const ConvertFloatOptions& o_;
  const FloatObservations* seen_;
  ir::Rewriter rw_;

  std::vector<ir::Graph*> graphs_;                                  // main graph and every subgraph
  std::unordered_map<const Value*, DataType> orig_;                 // types before the conversion
  std::unordered_map<const Value*, DataType> ty_;                   // decided types
  std::unordered_map<const Value*, std::string> must_;              // stays at its type, read so too, and why
  std::unordered_set<const Value*> numeric_;                        // must_ for its values (range), not its role
  std::unordered_map<const Value*, std::string> hold_;              // produced at its type (readers may cast), and why
  std::unordered_set<const Value*> structural_hold_;                // hold_ for its role (shape arithmetic)
  std::set<std::pair<Node*, size_t>> structural_reads_;             // reads that need the old type for the op's sake
  std::unordered_set<const Value*> pinned_;                         // main graph inputs/outputs (keep_io_types)
  std::unordered_set<const Value*> derived_;                        // computed from Shape/Size
  std::map<std::pair<Node*, size_t>, DataType> wants_;              // the type each read needs
  std::map<std::pair<ir::Graph*, size_t>, DataType> body_outputs_;  // subgraph outputs' types
  std::map<Node*, std::string> kept_;  // node -> reason (ordered by pointer; reported in graph order)
  std::unordered_set<Node*> converted_;
  std::map<std::pair<Value*, DataType>, Value*> casts_;
  ConvertFloatResult res_;
};

void Converter::collect(ir::Graph& g) {
  graphs_.push_back(&g);
  auto note = [&](const Value* v) {
    if (v && !orig_.count(v)) orig_[v] = v->type.elem;
  };
  for (const Value* v : g.inputs()) note(v);
  for (const Value* v : g.initializers()) note(v);
  for (const Value* v : g.outputs()) note(v);
  g.for_each_node([&](Node* n) {
    for (const Value* v : n->inputs()) note(v);
    for (const Value* v : n->outputs()) note(v);
    for (ir::Graph* sg : n->subgraphs()) collect(*sg);
  });
}

// Shape arithmetic, forwards: values computed from Shape/Size and small constants only.
void Converter::shape_derived(ir::Graph& g) {
  g.for_each_node([&](Node* n) {
    for (ir::Graph* sg : n->subgraphs()) shape_derived(*sg);
    if (has_subgraphs(n) || !n->is_default_domain()) return;
    bool derived = n->op_type == "Shape" || n->op_type == "Size";
    if (!derived && n->num_inputs() > 0) {
      bool any = false, all = true;
      for (const Value* v : n->inputs()) {
        if (!v) continue;
        if (derived_.count(v)) {
          any = true;
        } else if (!(flexible(v) && static_numel(v) >= 0 && static_numel(v) <= 64)) {
          all = false;
        }
      }
      derived = any && all;
    }
    // Shape arithmetic works on small tensors: a ConstantOfShape or Expand of a shape is data.
    for (const Value* v : n->outputs())
      if (v && (static_numel(v) < 0 || static_numel(v) > 64)) derived = false;
    if (!derived) return;
    for (const Value* v : n->outputs())
      if (v) {
        derived_.insert(v);
        if (src_tensor(v) && !hold_.count(v)) {
          hold_[v] = "shape arithmetic (computed from Shape/Size)";
          structural_hold_.insert(v);
        }
      }
  });
}

// Values beyond the target's range on the observed run (and constants beyond it).
void Converter::range_facts() {
  if (o_.target == DataType::kFloat) return;
  double limit = max_finite_of(o_.target) / o_.range_headroom;
  auto check = [&](const Value* v, double m) {
    if (!src_tensor(v) || !(m > limit) || must_.count(v)) return;
    must_[v] = "'" + v->name() + "' reaches |x| = " + fmt(m) + ", beyond " + type_word(o_.target) + "'s range (" +
               fmt(max_finite_of(o_.target)) + ", with headroom " + fmt(o_.range_headroom) + ")";
    numeric_.insert(v);
  };
  for (ir::Graph* g : graphs_)
    for (const Value* v : g->initializers())
      check(v, tensor_max_abs(*v->initializer()));  // a large mapped weight's pages leave memory as read
  if (seen_)
    for (const auto& [v, m] : seen_->max_abs) check(v, m);
  // A node whose error in the target type is over the tolerance stays in float32, and so are
  // the values it reads computed: the error comes as much from rounding them as from its own
  // output. (Other readers of those values may still cast them.)
  if (seen_)
    for (const auto& [n, e] : seen_->node_error) {
      if (!(e > o_.tolerance)) continue;
      for (const Value* v : n->inputs())
        if (v && src_tensor(v) && !flexible(v) && v->producer() && !hold_.count(v) && !must_.count(v))
          hold_[v] = "'" + v->name() + "' is read by " + n->describe() + ", whose error in " + type_word(o_.target) +
                     " is " + fmt(e) + " (relative L2), over the tolerance " + fmt(o_.tolerance);
    }
}

void Converter::keep_node(Node* n, const std::string& reason) {
  if (!kept_.count(n)) kept_[n] = reason;
}

void Converter::decide_graph(ir::Graph& g) {
  for (Node* n : g.node_list()) {
    if (n->op_type == "If" && n->is_default_domain()) decide_if(n);
    else if ((n->op_type == "Loop" || n->op_type == "Scan") && n->is_default_domain())
      decide_loop(n, n->op_type == "Scan");
    else decide(n);
  }
}

void Converter::decide(Node* n) {
  bool touches = false;
  for (const Value* v : n->inputs()) touches |= src_tensor(v) && !flexible(v);
  for (const Value* v : n->outputs()) touches |= src_tensor(v);
  auto keep_all = [&](const std::string& reason) {
    for (size_t i = 0; i < n->num_inputs(); ++i)
      if (Value* v = n->input(i); v && v->type.is_tensor() && is_float(orig(v))) {
        want(n, i, orig(v));
        structural_reads_.insert({n, i});
      }
    if (touches) keep_node(n, reason);
  };
  if (n->op_type == "Constant" && n->is_default_domain()) return;  // a constant: converted per reader
  if (!touches) {
    // Nothing of the source type here; reads of converted values keep their old type where
    // the op needs it (an integer op reading nothing float needs nothing).
    for (size_t i = 0; i < n->num_inputs(); ++i)
      if (Value* v = n->input(i); v && v->type.is_tensor() && is_float(orig(v))) want(n, i, orig(v));
    return;
  }
  if (!n->is_default_domain()) return keep_all("operator of domain '" + n->domain + "'");
  for (const auto& f : m_.functions)
    if (f.name == n->op_type && f.domain == n->domain) return keep_all("model-local function");
  if (has_subgraphs(n)) return keep_all("operator with a subgraph");
  for (const Value* v : n->inputs())
    if (v && (!v->type.is_known() || (v->type.is_tensor() && v->type.elem == DataType::kUndefined)))
      return keep_all("the type of '" + v->name() + "' is not known");
  for (const Value* v : n->outputs())
    if (v && (!v->type.is_known() || (v->type.is_tensor() && v->type.elem == DataType::kUndefined)))
      return keep_all("the type of '" + v->name() + "' is not known");
  for (const Value* v : n->inputs())
    if (v && !v->type.is_tensor() && v->type.is_known()) return keep_all("sequence, optional or map values");
  for (const Value* v : n->outputs())
    if (v && !v->type.is_tensor() && v->type.is_known()) return keep_all("sequence, optional or map values");
  const FloatSignature* sig = find_signature(n->op_type, m_.opset(""));
  if (!sig) return keep_all("no type constraints known for " + n->op_type);
  const unsigned tmask = mask_of(o_.target);
  const std::string opv = n->op_type + "-" + std::to_string(sig->since);

  // Groups: type variable -> input and output positions.
  struct Group {
    std::vector<size_t> ins, outs;
    const FloatFormal* formal = nullptr;
  };
  std::map<std::string, Group> groups;
  for (size_t i = 0; i < n->num_inputs(); ++i) {
    if (!n->input(i)) continue;
    const FloatFormal* f = formal_at(sig->ins, i);
    if (!f) return keep_all("input " + std::to_string(i) + " beyond " + opv + "'s inputs");
    std::string key = f->fixed ? f->var + "#in" + std::to_string(i) : f->var;
    groups[key].ins.push_back(i);
    groups[key].formal = f;
  }
  for (size_t i = 0; i < n->num_outputs(); ++i) {
    if (!n->output(i)) continue;
    const FloatFormal* f = formal_at(sig->outs, i);
    if (!f) return keep_all("output " + std::to_string(i) + " beyond " + opv + "'s outputs");
    std::string key = f->fixed ? f->var + "#out" + std::to_string(i) : f->var;
    groups[key].outs.push_back(i);
    if (!groups[key].formal) groups[key].formal = f;
  }

  // Why the node's computation cannot move to the target type (node-level).
  std::string block;
  bool block_structural = false;
  if (n->op_type == "Range") {
    block = "Range: its output's size depends on the values";
    block_structural = true;
  }
  if (seen_ && block.empty()) {
    auto it = seen_->node_error.find(n);
    if (it != seen_->node_error.end() && it->second > o_.tolerance)
      block = "its error in " + type_word(o_.target) + " is " + fmt(it->second) +
              " (relative L2), over the tolerance " + fmt(o_.tolerance);
  }

  // Ops whose output type an attribute gives.
  const std::string& op = n->op_type;
  bool attr_typed = op == "Cast" || op == "RandomNormal" || op == "RandomUniform" || op == "RandomNormalLike" ||
                    op == "RandomUniformLike" || op == "EyeLike" || op == "Bernoulli" || op == "ConstantOfShape";

  bool any_converted = false;
  std::string kept_reason;
  // Groups with outputs first (they decide whether the node converts), then the others.
  for (int pass = 0; pass < 2; ++pass) {
    for (auto& entry : groups) {
      // A plain reference, not a structured binding: clang 14 (the fuzz build) cannot capture
      // a binding in the lambda below.
      auto& grp = entry.second;
      bool with_outputs = !grp.outs.empty();
      if ((pass == 0) != with_outputs) continue;
      bool src = false;
      for (size_t i : grp.ins) src |= src_tensor(n->input(i));
      for (size_t i : grp.outs) src |= src_tensor(n->output(i));
      if (!src) {
        for (size_t i : grp.ins)
          if (Value* v = n->input(i); v->type.is_tensor() && is_float(orig(v))) want(n, i, orig(v));
        continue;
      }
      const FloatFormal* f = grp.formal;
      if (f->fixed) {
        for (size_t i : grp.ins) {
          want(n, i, f->fixed_type != DataType::kUndefined ? f->fixed_type : orig(n->input(i)));
          structural_reads_.insert({n, i});
        }
        continue;
      }
      unsigned mask = sig->masks.count(f->var) ? sig->masks.at(f->var) : 0;
      std::string why;
      // Why the group keeps its type; `structural` when the reason is the op's or the value's
      // role (then the group's reads count for the index rule), not its numbers.
      bool structural = false;
      auto member_reason = [&]() -> std::string {
        if (!(mask & tmask)) {
          structural = true;
          return opv + " has no " + type_word(o_.target);
        }
        for (size_t i : grp.ins)
          if (const std::string* r = must_keep(n->input(i))) {
            structural = !numeric_.count(n->input(i));
            return *r;
          }
        for (size_t i : grp.outs)
          if (const std::string* r = must_keep(n->output(i))) {
            structural = !numeric_.count(n->output(i));
            return *r;
          }
        if (with_outputs && !block.empty()) {
          structural = block_structural;
          return block;
        }
        for (size_t i : grp.outs) {
          auto h = hold_.find(n->output(i));
          if (h != hold_.end()) {
            structural = structural_hold_.count(n->output(i)) != 0;
            return h->second;
          }
        }
        return "";
      };
      bool to_target;
      if (with_outputs) {
        if (!attr_typed && grp.ins.empty()) {
          // An output whose type an attribute fixes (LayerNormalization's Mean with stash_type):
          // as it was.
          for (size_t i : grp.outs) ty_[n->output(i)] = orig(n->output(i));
          continue;
        }
        if (attr_typed && grp.ins.empty()) {
          // Cast from a float type other than the source: a precision boundary, left alone.
          bool boundary = op == "Cast" && o_.target != DataType::kFloat && n->input(0) && is_float(orig(n->input(0))) &&
                          !is_src(orig(n->input(0)));
          if (boundary) {
            for (size_t i : grp.outs) ty_[n->output(i)] = orig(n->output(i));
            continue;
          }
          why = member_reason();
          to_target = why.empty();
        } else {
          why = member_reason();
          to_target = why.empty();
        }
      } else {
        // Inputs only (Equal's operands, Shape's data, Resize roi): the type the non-constant
        // operands arrive in; constants follow the node unless they are control inputs.
        why = member_reason();
        bool arrives = false, all_flexible = true, control = false;
        for (size_t i : grp.ins) {
          const Value* v = n->input(i);
          if (flexible(v)) {
            control |= formal_at(sig->ins, i)->non_diff;
            continue;
          }
          all_flexible = false;
          arrives |= ty(v) == o_.target;
        }
        to_target = why.empty() && (arrives || (all_flexible && any_converted && !control));
      }
      DataType t = to_target ? o_.target : DataType::kUndefined;
      for (size_t i : grp.ins) {
        Value* v = n->input(i);
        want(n, i, t != DataType::kUndefined ? t : orig(v));
        if (!to_target && structural) structural_reads_.insert({n, i});
      }
      for (size_t i : grp.outs) {
        Value* v = n->output(i);
        ty_[v] = (t != DataType::kUndefined && src_tensor(v)) ? t : orig(v);
      }
      if (with_outputs) {
        if (to_target) any_converted = true;
        else if (kept_reason.empty()) kept_reason = why;
      }
    }
  }
  if (any_converted) converted_.insert(n);
  if (!kept_reason.empty()) keep_node(n, kept_reason);
}

void Converter::decide_if(Node* n) {
  ir::Graph* then_g = nullptr;
  ir::Graph* else_g = nullptr;
  for (const auto& a : n->attributes) {
    if (a.name == "then_branch") then_g = a.g.get();
    if (a.name == "else_branch") else_g = a.g.get();
  }
  if (!then_g || !else_g) return;
  decide_graph(*then_g);
  decide_graph(*else_g);
  for (size_t k = 0; k < n->num_outputs(); ++k) {
    Value* out = n->output(k);
    if (!out || !src_tensor(out) || k >= then_g->outputs().size() || k >= else_g->outputs().size()) continue;
    const Value* a = then_g->outputs()[k];
    const Value* b = else_g->outputs()[k];
    bool keep = must_keep(out) || must_keep(a) || must_keep(b);
    DataType t = !keep && (ty(a) == o_.target || ty(b) == o_.target) ? o_.target : orig(out);
    ty_[out] = t;
    body_outputs_[{then_g, k}] = t;
    body_outputs_[{else_g, k}] = t;
  }
}

// Loop and Scan: the values carried from one iteration to the next keep their types; what the
// bodies compute converts like any graph, and scan outputs take the type their body gives.
void Converter::decide_loop(Node* n, bool scan) {
  ir::Graph* body = nullptr;
  for (const auto& a : n->attributes)
    if (a.name == "body") body = a.g.get();
  if (!body) return;
  for (size_t i = 0; i < n->num_inputs(); ++i)
    if (Value* v = n->input(i); v && v->type.is_tensor() && is_float(orig(v))) {
      want(n, i, orig(v));
      structural_reads_.insert({n, i});
    }
  // The body's inputs keep their types (no decision retypes a graph input of a body): readers
  // that convert cast them.
  decide_graph(*body);
  size_t carried = scan ? static_cast<size_t>(n->attr_int("num_scan_inputs", 0)) : 0;
  // Loop: body outputs = [cond, carried..., scan outputs...]; Scan: [state..., scan outputs...].
  size_t n_state = scan ? n->num_inputs() - carried : (n->num_inputs() >= 2 ? n->num_inputs() - 2 : 0);
  size_t first = scan ? 0 : 1;
  for (size_t k = 0; k < body->outputs().size(); ++k) {
    const Value* bo = body->outputs()[k];
    if (!src_tensor(bo) && !(bo && ty(bo) != orig(bo))) continue;
    bool state = k >= first && k < first + n_state;
    size_t out_index = k - first;
    Value* out = out_index < n->num_outputs() ? n->output(out_index) : nullptr;
    DataType t = orig(bo);
    if (!state && ty(bo) == o_.target && !(out && must_keep(out))) t = o_.target;
    body_outputs_[{body, k}] = t;
    if (out && src_tensor(out)) ty_[out] = t;
  }
}

// Small float values read only where float32 is needed are index and shape arithmetic: they
// keep their type, and so, at the next decision, do their producers' groups. True when a new
// value was found.
bool Converter::index_pass() {
  std::unordered_map<const Value*, int> src_reads, all_reads;
  std::unordered_map<const Value*, std::string> first_read;
  for (ir::Graph* g : graphs_)
    g->for_each_node([&](Node* n) {
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        Value* v = n->input(i);
        if (!v || !src_tensor(v)) continue;
        all_reads[v]++;
        bool needs_src = structural_reads_.count({n, i}) != 0;
        if (n->op_type == "Cast" && i == 0) {
          auto to = static_cast<DataType>(n->attr_int("to", 0));
          needs_src |= !is_float(to);
        }
        if (needs_src) {
          src_reads[v]++;
          if (!first_read.count(v)) first_read[v] = n->describe() + " input " + std::to_string(i);
        }
      }
    });
  bool added = false;
  for (const auto& [v, n_all] : all_reads) {
    if (must_.count(v) || hold_.count(v) || flexible(v) || pinned(v) || v->is_graph_output() || src_reads[v] != n_all)
      continue;
    int64_t numel = static_numel(v);
    if (numel < 0 || numel > 64 || v->type.rank() > 1) continue;
    must_[v] = "index or shape arithmetic ('" + v->name() + "' is read only as " + type_word(orig(v)) + ", by " +
               first_read[v] + ")";
    added = true;
  }
  return added;
}

// Where a Cast of v goes: after its producer in v's graph (before the node that followed it),
// or at the start of v's graph for inputs and initializers.
std::pair<ir::Graph*, Node*> Converter::cast_position(Value* v) {
  ir::Graph* g = v->graph();
  if (Node* p = v->producer()) {
    std::vector<Node*> list = g->node_list();
    auto it = std::find(list.begin(), list.end(), p);
    if (it != list.end() && std::next(it) != list.end()) return {g, *std::next(it)};
    return {g, nullptr};
  }
  return {g, g->first_node()};
}

bool exact_widening(DataType from, DataType to) {
  if (from == to) return true;
  if (to == DataType::kDouble)
    return from == DataType::kFloat || from == DataType::kFloat16 || from == DataType::kBFloat16;
  if (to == DataType::kFloat) return from == DataType::kFloat16 || from == DataType::kBFloat16;
  return false;
}

Value* Converter::cast_of(Value* v, DataType to) {
  if (v->type.elem == to) return v;
  // Cast(Cast(x: A -> B), B -> A) with A -> B exact: x itself.
  if (Node* p = v->producer(); p && p->op_type == "Cast" && p->is_default_domain() && p->input(0) &&
                               p->input(0)->type.elem == to && exact_widening(to, v->type.elem))
    return p->input(0);
  auto key = std::make_pair(v, to);
  auto it = casts_.find(key);
  if (it != casts_.end()) return it->second;
  auto [g, pos] = cast_position(v);
  std::string hint = v->name() + "_" +
                     (to == DataType::kFloat16    ? "fp16"
                      : to == DataType::kBFloat16 ? "bf16"
                                                  : type_word(to));
  Node* c = rw_.insert_node(*g, pos, "Cast", {v}, 1, hint);
  rw_.set_attribute(c, ir::Attribute::make_int("to", static_cast<int64_t>(to)));
  ir::Type t = v->type;
  t.elem = to;
  rw_.set_type(c->output(0), t);
  res_.casts_added++;
  casts_[key] = c->output(0);
  return c->output(0);
}

void Converter::apply() {
  // 1. Attributes that name the output type.
  for (ir::Graph* g : graphs_)
    for (Node* n : g->node_list()) {
      if (!converted_.count(n) || !n->is_default_domain()) continue;
      Value* out = n->output(0);
      if (!out) continue;
      DataType t = ty(out);
      const std::string& op = n->op_type;
      if (op == "Cast") {
        rw_.set_attribute(n, ir::Attribute::make_int("to", static_cast<int64_t>(t)));
      } else if (op == "RandomNormal" || op == "RandomUniform" || op == "RandomNormalLike" ||
                 op == "RandomUniformLike" || op == "EyeLike" || op == "Bernoulli") {
        rw_.set_attribute(n, ir::Attribute::make_int("dtype", static_cast<int64_t>(t)));
      } else if (op == "ConstantOfShape") {
        const ir::Attribute* a = n->attr("value");
        ir::Tensor fill = a && a->t ? *a->t : ir::Tensor::from_vector<float>(DataType::kFloat, {1}, {0.0f});
        rw_.set_attribute(n, ir::Attribute::make_tensor("value", convert_tensor(fill, t)));
      }
    }
  // 2. New types of non-constant values. A main-graph output that keeps its type while its
  //    producer converts: the producer writes a new value, and a Cast gives the output.
  for (ir::Graph* g : graphs_) {
    std::vector<Value*> vals;
    for (Value* v : g->inputs()) vals.push_back(v);
    g->for_each_node([&](Node* n) {
      for (Value* v : n->outputs())
        if (v) vals.push_back(v);
    });
    for (Value* v : vals) {
      if (flexible(v) || ty(v) == v->type.elem || !v->type.is_tensor()) continue;
      DataType t = ty(v);
      if (pinned(v) && v->producer()) {
        ir::Type keep = v->type;
        auto [cg, pos] = cast_position(v);
        Node* c = rw_.insert_node(*cg, pos, "Cast", {v}, 1, v->name() + "_cast");
        rw_.set_attribute(c, ir::Attribute::make_int("to", static_cast<int64_t>(keep.elem)));
        res_.casts_added++;
        if (!rw_.replace_all_uses_with(v, c->output(0))) continue;
        rw_.set_input(c, 0, v);
        ir::Type nt = keep;
        nt.elem = t;
        rw_.set_type(v, nt);
        rw_.set_type(c->output(0), keep);
        continue;
      }
      if (pinned(v)) continue;
      ir::Type nt = v->type;
      nt.elem = t;
      rw_.set_type(v, nt);
    }
  }
  // 3. Constants: stored in the type their readers want (a copy when readers disagree).
  for (ir::Graph* g : graphs_) {
    std::vector<Value*> consts;
    for (Value* v : g->initializers())
      if (flexible(v) && src_tensor(v)) consts.push_back(v);
    g->for_each_node([&](Node* n) {
      if (n->op_type == "Constant" && n->is_default_domain() && n->output(0) && src_tensor(n->output(0)))
        consts.push_back(n->output(0));
    });
    for (Value* v : consts) {
      std::vector<std::pair<Node*, size_t>> to_target, other;
      for (const ir::Use& u : v->uses()) {
        auto w = wants_.find({u.node, static_cast<size_t>(u.index)});
        (w != wants_.end() && w->second == o_.target ? to_target : other).emplace_back(u.node, u.index);
      }
      if (to_target.empty() || must_keep(v)) continue;
      bool all = other.empty() && !v->is_graph_output();
      if (v->is_initializer()) {
        ir::Tensor t = convert_stored(*v->initializer(), o_.target);
        res_.initializers_converted++;
        if (all) {
          rw_.make_constant(v, std::move(t));
        } else {
          Value* copy = rw_.add_initializer(*g, std::move(t), v->name() + "_" + type_word(o_.target));
          for (auto [n, i] : to_target) rw_.set_input(n, i, copy);
        }
      } else {
        Node* c = v->producer();
        if (all) {
          const ir::Attribute* a = c->attr("value");
          ir::Tensor src;
          if (a && a->t) src = *a->t;
          else if (const ir::Attribute* f = c->attr("value_float")) src = ir::Tensor::scalar_f32(f->f);
          else if (const ir::Attribute* fs = c->attr("value_floats"))
            src =
                ir::Tensor::from_vector<float>(DataType::kFloat, {static_cast<int64_t>(fs->floats.size())}, fs->floats);
          else continue;
          rw_.remove_attribute(c, "value_float");
          rw_.remove_attribute(c, "value_floats");
          rw_.set_attribute(c, ir::Attribute::make_tensor("value", convert_tensor(src, o_.target)));
          ir::Type nt = v->type;
          nt.elem = o_.target;
          rw_.set_type(v, nt);
          res_.initializers_converted++;
        }
        // Readers that disagree get a Cast (step 4).
      }
    }
  }
  // 4. Casts where a read arrives in another type than it needs. In graph order (not the
  // pointer order of wants_), so that the names of the Casts made do not depend on where the
  // nodes happen to live in memory.
  std::unordered_map<const Node*, size_t> position;
  for (ir::Graph* g : graphs_) g->for_each_node([&](Node* n) { position.emplace(n, position.size()); });
  std::vector<std::pair<Node*, size_t>> reads;
  for (const auto& [key, t] : wants_) reads.push_back(key);
  std::sort(reads.begin(), reads.end(), [&](const auto& a, const auto& b) {
    return std::pair(position[a.first], a.second) < std::pair(position[b.first], b.second);
  });
  for (auto [n, i] : reads) {
    Value* v = n->input(i);
    DataType t = wants_[{n, i}];
    if (!v || !v->type.is_tensor() || v->type.elem == t || !is_float(v->type.elem) || !is_float(t)) continue;
    rw_.set_input(n, i, cast_of(v, t));
  }
  // 5. Subgraph outputs in the type their node's output now has (graphs in collection order).
  std::vector<std::pair<size_t, std::pair<ir::Graph*, size_t>>> outs;
  for (const auto& [key, t] : body_outputs_)
    outs.emplace_back(static_cast<size_t>(std::find(graphs_.begin(), graphs_.end(), key.first) - graphs_.begin()), key);
  std::sort(outs.begin(), outs.end(), [](const auto& a, const auto& b) {
    return std::pair(a.first, a.second.second) < std::pair(b.first, b.second.second);
  });
  for (const auto& [gi, key] : outs) {
    DataType t = body_outputs_[key];
    auto [g, k] = key;
    Value* v = g->outputs()[k];
    if (v->type.elem == t || !is_float(v->type.elem)) continue;
    // A Cast made in an enclosing graph serves too: subgraph outputs may name outer values.
    rw_.set_graph_output(*g, k, cast_of(v, t));
  }
}

Result<ConvertFloatResult> Converter::run() {
  collect(*m_.graph);
  if (o_.keep_io_types) {
    for (const Value* v : m_.graph->inputs()) pinned_.insert(v);
    for (const Value* v : m_.graph->outputs()) pinned_.insert(v);
  }
  for (const Value* v : m_.graph->inputs())
    if (v->is_initializer()) pinned_.insert(v);  // an initializer that callers may override
  // Back to float32 loses nothing: no shape or index arithmetic needs to stay behind.
  if (o_.target != DataType::kFloat) shape_derived(*m_.graph);
  range_facts();
  for (int round = 0; round < 64; ++round) {
    ty_.clear();
    wants_.clear();
    structural_reads_.clear();
    body_outputs_.clear();
    kept_.clear();
    converted_.clear();
    for (const Value* v : m_.graph->inputs())
      if (!pinned(v) && src_tensor(v) && !must_keep(v)) ty_[v] = o_.target;
    decide_graph(*m_.graph);
    if (o_.target == DataType::kFloat || !index_pass()) break;
  }
  apply();
  res_.converted_nodes = static_cast<int64_t>(converted_.size());
  for (ir::Graph* g : graphs_)
    g->for_each_node([&](Node* n) {
      auto it = kept_.find(n);
      if (it != kept_.end()) res_.kept.push_back(KeptNode{n->describe(), it->second});
    });
  return res_;
}

}  // namespace

Result<ConvertFloatResult> convert_float(ir::Model& model, const ConvertFloatOptions& opts,
                                         const FloatObservations* seen) {
  if (opts.target != DataType::kFloat16 && opts.target != DataType::kBFloat16 && opts.target != DataType::kFloat)
    return Status(ErrorCode::kUsage, "--dtype: the target must be float16, bfloat16 or float32");
  Converter c(model, opts, seen);
  return c.run();
}

}  // namespace onnxtrim::convert
