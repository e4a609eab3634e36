#include "eval/verify.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_map>

#include <random>

#include "ir/mapped.h"
#include "ir/scratch.h"
#include "ops/kernel_util.h"
#include "support/limits.h"

namespace onnxtrim::eval {

namespace {

uint64_t mix(uint64_t seed, const std::string& name) {
  uint64_t h = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

// Upper bound (exclusive) for an integer input that some node uses as indices into an axis of
// known size; 0 when nothing tells.
int64_t index_bound(const ir::Value* v) {
  int64_t bound = 0;
  for (const ir::Use& u : v->uses()) {
    const ir::Node* n = u.node;
    if (!n->is_default_domain() || u.index != 1) continue;
    if (n->op_type != "Gather" && n->op_type != "GatherElements") continue;
    const ir::Value* data = n->input(0);
    if (!data || !data->type.has_shape) continue;
    int64_t axis = n->attr_int("axis", 0);
    auto ax = ops::normalize_axis(axis, data->type.rank());
    if (!ax) continue;
    const ir::Dim& d = data->type.dims[static_cast<size_t>(*ax)];
    if (!d.is_known()) continue;
    bound = bound == 0 ? *d.value : std::min(bound, *d.value);
  }
  return bound;
}

// --input-fill ones|zeros|arange: element i holds 1, 0 or i (i modulo `bound` when bound > 0;
// bools: i odd; strings: "1", "" or the number).
Status fill_input(ir::Tensor& t, InputSpec::Fill fill, int64_t bound) {
  const int64_t n = t.numel();
  auto value = [&](int64_t i) -> int64_t {
    if (fill == InputSpec::Fill::kZeros) return 0;
    if (fill == InputSpec::Fill::kOnes) return 1;
    return bound > 0 ? i % bound : i;
  };
  const ir::DataType dt = t.dtype();
  if (dt == ir::DataType::kString) {
    int64_t i = 0;
    for (auto& s : t.strings()) {
      s = fill == InputSpec::Fill::kZeros ? std::string() : std::to_string(value(i));
      ++i;
    }
    return Status::ok();
  }
  if (dt == ir::DataType::kBool) {
    uint8_t* p = t.mutable_data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) p[i] = fill == InputSpec::Fill::kArange ? (i & 1) : value(i) != 0;
    return Status::ok();
  }
  bool ok = ops::dispatch(dt, ops::kFloats | ops::kSigned | ops::kUnsigned, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.mutable_data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = T(static_cast<ops::compute_t<T>>(value(i)));
  });
  if (!ok) return Status(ErrorCode::kUnsupported, "cannot fill values of type " + std::string(ir::dtype_name(dt)));
  return Status::ok();
}

}  // namespace

Result<std::map<std::string, ir::RuntimeValue>> make_random_inputs(const ir::Model& m, const InputSpec& spec,
                                                                   uint64_t seed) {
  std::map<std::string, ir::RuntimeValue> feeds;
  for (const ir::Value* v : m.graph->inputs()) {
    if (v->is_initializer()) continue;
    auto pin = spec.pinned.find(v->name());
    if (pin != spec.pinned.end()) {
      feeds[v->name()] = pin->second;
      continue;
    }
    if (!v->type.is_tensor())
      return Status(ErrorCode::kUsage, "input '" + v->name() + "' is a " + v->type.str() +
                                           ": random values are made only for tensors; pin it with --input");
    std::vector<int64_t> dims;
    auto sh = spec.shapes.find(v->name());
    if (sh != spec.shapes.end()) {
      dims = sh->second;
    } else {
      if (!v->type.has_shape)
        return Status(ErrorCode::kUsage,
                      "input '" + v->name() + "' has no shape in the model: give it with --input-shape");
      for (const ir::Dim& d : v->type.dims) {
        if (d.is_known()) dims.push_back(*d.value);
        else if (!d.param.empty() && spec.dims.count(d.param)) dims.push_back(spec.dims.at(d.param));
        else dims.push_back(spec.default_dim);
      }
    }
    std::mt19937_64 rng(mix(seed, v->name()));
    ir::DataType dt = v->type.elem;
    ir::Tensor t;
    try {
      t = ir::Tensor(dt, dims);
    } catch (const LimitExceeded& e) {
      return Status(ErrorCode::kUnsupported, "input '" + v->name() + "': cannot make random values: " + e.what());
    }
    int64_t n = t.numel();
    if (spec.fill != InputSpec::Fill::kRandom) {
      // --input-fill: ones, zeros, or 0, 1, 2, ... (an index input wraps at its axis's size).
      Status st = fill_input(t, spec.fill, index_bound(v));
      if (!st.is_ok()) return Status(st.code(), "input '" + v->name() + "': " + st.message());
    } else if (dt == ir::DataType::kString) {
      for (auto& s : t.strings()) s = std::string(1 + rng() % 5, static_cast<char>('a' + rng() % 26));
    } else if (ir::dtype_is_float(dt)) {
      std::uniform_real_distribution<double> U(-1.0, 1.0);
      bool ok = ops::dispatch(dt, ops::kFloats, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = t.mutable_data<T>();
        for (int64_t i = 0; i < n; ++i) p[i] = T(static_cast<ops::compute_t<T>>(U(rng)));
      });
      if (!ok)
        return Status(ErrorCode::kUnsupported, "cannot make random values of type " + std::string(ir::dtype_name(dt)));
    } else if (dt == ir::DataType::kBool) {
      uint8_t* p = t.mutable_data<uint8_t>();
      for (int64_t i = 0; i < n; ++i) p[i] = rng() & 1;
    } else {
      int64_t bound = index_bound(v);
      if (bound <= 0) bound = 8;
      bool ok = ops::dispatch(dt, ops::kSigned | ops::kUnsigned, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = t.mutable_data<T>();
        for (int64_t i = 0; i < n; ++i)
          p[i] = static_cast<T>(static_cast<int64_t>(rng() % static_cast<uint64_t>(bound)));
      });
      if (!ok)
        return Status(ErrorCode::kUnsupported, "cannot make random values of type " + std::string(ir::dtype_name(dt)));
    }
    feeds[v->name()] = ir::RuntimeValue::of(std::move(t));
  }
  return feeds;
}

namespace {

// Tensors joined along axis 0 (equal dtypes and trailing dims).
Result<ir::RuntimeValue> join_axis0(const std::vector<const ir::RuntimeValue*>& parts, const std::string& name) {
  auto bad = [&](const std::string& why) {
    return Status(ErrorCode::kUsage, "the batch check cannot join '" + name + "' of the samples: " + why);
  };
  const ir::Tensor& first = parts[0]->tensor;
  std::vector<int64_t> dims = first.dims();
  if (dims.empty()) return bad("it is a scalar");
  int64_t rows = 0;
  for (const ir::RuntimeValue* p : parts) {
    if (!p->is_tensor()) return bad("it is not a tensor");
    const ir::Tensor& t = p->tensor;
    if (t.dtype() != first.dtype() || t.rank() != first.rank() ||
        !std::equal(t.dims().begin() + 1, t.dims().end(), first.dims().begin() + 1))
      return bad("the samples give it different shapes");
    rows += t.dims()[0];
  }
  dims[0] = rows;
  ir::Tensor out(first.dtype(), dims);
  if (first.dtype() == ir::DataType::kString) {
    out.strings().clear();
    for (const ir::RuntimeValue* p : parts)
      out.strings().insert(out.strings().end(), p->tensor.strings().begin(), p->tensor.strings().end());
    return ir::RuntimeValue::of(std::move(out));
  }
  uint8_t* dst = out.numel() ? out.mutable_bytes() : nullptr;
  size_t at = 0;
  for (const ir::RuntimeValue* p : parts) {
    size_t n = p->tensor.byte_size();
    if (at + n > out.byte_size()) return bad("its element type is not byte-aligned");
    if (n) std::memcpy(dst + at, p->tensor.bytes(), n);
    at += n;
  }
  if (at != out.byte_size()) return bad("its element type is not byte-aligned");
  return ir::RuntimeValue::of(std::move(out));
}

}  // namespace

RandomFacts random_facts(const ir::Model& m, const std::vector<std::string>& cut) {
  RandomFacts f;
  bool any = false;
  std::function<void(const ir::Graph&)> find = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* n) {
      any = any || is_random_op(*n);
      for (const ir::Graph* sg : n->subgraphs()) find(*sg);
    });
  };
  find(*m.graph);
  for (const auto& fn : m.functions)
    if (fn.body) find(*fn.body);
  if (!any) {
    f.output_deps.resize(m.graph->outputs().size());
    return f;
  }
  RandomIdentity ids(m);
  std::set<std::string> cut_set(cut.begin(), cut.end());
  // A value's dependence, shared between the values that have the same one.
  using Deps = std::shared_ptr<const std::set<std::string>>;
  std::unordered_map<const ir::Value*, Deps> deps;
  std::set<std::string> listed;
  std::map<const ir::Function*, Deps> function_deps;
  std::set<const ir::Function*> walking;
  std::function<void(const ir::Graph&)> walk;
  auto of_function = [&](const ir::Function& fn) -> Deps {
    auto it = function_deps.find(&fn);
    if (it != function_deps.end()) return it->second;
    if (!fn.body || !walking.insert(&fn).second) return nullptr;  // a recursive call adds nothing new
    walk(*fn.body);
    std::set<std::string> d;
    for (const ir::Value* o : fn.body->outputs()) {
      auto dv = deps.find(o);
      if (o && dv != deps.end() && dv->second) d.insert(dv->second->begin(), dv->second->end());
    }
    walking.erase(&fn);
    return function_deps[&fn] = d.empty() ? nullptr : std::make_shared<const std::set<std::string>>(std::move(d));
  };
  walk = [&](const ir::Graph& g) {
    g.for_each_node([&](const ir::Node* n) {
      std::vector<Deps> parts;
      auto add = [&](const ir::Value* v) {
        if (!v) return;
        auto it = deps.find(v);
        if (it != deps.end() && it->second) parts.push_back(it->second);
      };
      for (const ir::Value* v : n->inputs()) add(v);
      for (const ir::Graph* sg : n->subgraphs()) {
        walk(*sg);
        for (const ir::Value* o : sg->outputs()) add(o);
      }
      std::string own;
      if (is_random_op(*n)) {
        if (n->attr("seed")) {
          ++f.seeded;
        } else {
          own = ids.of(*n);
          if (listed.insert(own).second) f.unseeded.emplace_back(own, RandomIdentity::describe(*n));
        }
      } else if (n->subgraphs().empty()) {
        for (const auto& fn : m.functions)
          if (fn.name == n->op_type && fn.domain == n->domain)
            if (Deps d = of_function(fn)) parts.push_back(d);
      }
      Deps d;
      if (own.empty() && !parts.empty() &&
          std::all_of(parts.begin(), parts.end(), [&](const Deps& p) { return p == parts[0]; })) {
        d = parts[0];
      } else if (!own.empty() || !parts.empty()) {
        std::set<std::string> u;
        for (const Deps& p : parts) u.insert(p->begin(), p->end());
        if (!own.empty()) u.insert(own);
        d = std::make_shared<const std::set<std::string>>(std::move(u));
      }
      for (const ir::Value* o : n->outputs())
        if (o) deps[o] = cut_set.count(o->name()) ? nullptr : d;
    });
  };
  walk(*m.graph);
  for (const ir::Value* o : m.graph->outputs()) {
    auto it = deps.find(o);
    f.output_deps.push_back(it != deps.end() && it->second ? *it->second : std::set<std::string>{});
  }
  return f;
}

std::string RandomHandling::summary() const {
  auto list = [](const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size() && i < 6; ++i) out += (i ? ", " : "") + names[i];
    if (names.size() > 6) out += " and " + std::to_string(names.size() - 6) + " more";
    return out;
  };
  std::string s;
  auto part = [&s](const std::string& p) { s += (s.empty() ? "" : "; ") + p; };
  if (!alike.empty()) part(std::to_string(alike.size()) + " drawn alike in both models (" + list(alike) + ")");
  if (seeded > 0) part(std::to_string(seeded) + " seeded by their own `seed` attribute");
  if (!unmatched.empty())
    part(std::to_string(unmatched.size()) + " without a counterpart, whose outputs are not compared (" +
         list(unmatched) + ")");
  return s;
}

namespace {
// The samples' inputs and expected outputs wait for compare_with in the scratch file, their
// pages out of memory, when they are large: the check then holds one run's tensors at a time,
// not every sample's (onnxsim's 500 MB-input test with --check-n 3: 4.1 GB -> about 2 GB).
// Each goes to a scratch file of its own (a scratch::Session), never to the run's, which saving
// may adopt as the result's external-data file.
constexpr size_t kParkBytes = size_t{16} << 20;

void park(ir::RuntimeValue& v) {
  if (!v.is_tensor() || v.tensor.dtype() == ir::DataType::kString) return;
  const ir::Tensor& t = v.tensor;
  const size_t n = t.byte_size();
  if (n < kParkBytes || ir::file_ref(t)) return;
  ir::Tensor copy;
  {
    ir::scratch::Session own("");
    ir::ScratchScope in_scratch(kParkBytes);
    copy = ir::Tensor(t.dtype(), t.dims());
  }
  if (!ir::file_ref(copy)) return;  // no scratch file: it stays in the heap
  std::memcpy(copy.mutable_bytes(), t.bytes(), n);
  ir::release_pages(copy);
  v.tensor = std::move(copy);
}

void release(const ir::RuntimeValue& v) {
  if (v.is_tensor() && v.tensor.dtype() != ir::DataType::kString && v.tensor.byte_size() >= kParkBytes)
    ir::release_pages(v.tensor);
}
}  // namespace

Result<std::unique_ptr<Verifier>> Verifier::create(const ir::Model& reference, const VerifyOptions& opts) {
  auto v = std::unique_ptr<Verifier>(new Verifier());
  v->opts_ = opts;
  auto cand_name = [&](const std::string& n) {
    auto it = opts.renamed.find(n);
    return it == opts.renamed.end() ? n : it->second;
  };
  std::vector<std::string> ref_outputs;
  std::vector<bool> carried;
  for (const ir::Value* o : reference.graph->outputs()) {
    ref_outputs.push_back(o->name());
    bool c = std::find(opts.carried.begin(), opts.carried.end(), o->name()) != opts.carried.end();
    carried.push_back(c);
    if (!c) v->output_names_.push_back(cand_name(o->name()));
  }
  Interpreter interp(reference);
  interp.set_fast_float(opts.fast);
  OT_RETURN_IF_ERROR(interp.check_supported());
  for (const ir::Value* in : reference.graph->inputs()) {
    if (in->is_initializer() || !in->type.has_shape || opts.inputs.shapes.count(in->name()) ||
        opts.inputs.pinned.count(in->name()))
      continue;
    for (const ir::Dim& d : in->type.dims)
      if (!d.is_known() && !d.param.empty())
        v->dims_used_[d.param] =
            opts.inputs.dims.count(d.param) ? opts.inputs.dims.at(d.param) : opts.inputs.default_dim;
  }
  const int stack = std::max(1, opts.stack);
  v->draws_can_match_ = stack == 1;
  v->ref_random_ = random_facts(reference, opts.carried);
  for (size_t i = 0; i < ref_outputs.size(); ++i)
    if (!carried[i]) v->ref_deps_.push_back(v->ref_random_.output_deps[i]);
  auto stacked = [&](const std::string& n) {
    return stack > 1 && std::find(opts.stacked.begin(), opts.stacked.end(), n) != opts.stacked.end();
  };
  for (int s = 0; s < opts.samples; ++s) {
    // Each run: reference inputs by name, then its outputs by name.
    std::vector<std::map<std::string, ir::RuntimeValue>> runs;
    for (int j = 0; j < stack; ++j) {
      const uint64_t run_seed =
          opts.seed + static_cast<uint64_t>(s) * static_cast<uint64_t>(stack) + static_cast<uint64_t>(j);
      auto feeds = make_random_inputs(reference, opts.inputs, run_seed);
      if (!feeds) return std::move(feeds).take_status();
      if (j > 0)
        for (auto& [name, val] : feeds.value())
          if (!stacked(name)) val = runs[0].at(name);
      if (j == 0) v->stream_seeds_.push_back(run_seed);
      interp.set_random_seed(run_seed);
      auto out = interp.run(feeds.value());
      if (!out) return std::move(out).take_status();
      std::map<std::string, ir::RuntimeValue> run = std::move(feeds.value());
      for (size_t i = 0; i < ref_outputs.size(); ++i) run["\x01out:" + ref_outputs[i]] = out.value()[i];
      runs.push_back(std::move(run));
    }
    auto pick = [&](const std::string& key, const std::string& name, bool join) -> Result<ir::RuntimeValue> {
      if (!join) return runs[0].at(key);
      std::vector<const ir::RuntimeValue*> parts;
      for (const auto& r : runs) parts.push_back(&r.at(key));
      return join_axis0(parts, name);
    };
    std::map<std::string, ir::RuntimeValue> feeds;
    for (const auto& [name, val] : runs[0]) {
      if (name.rfind("\x01out:", 0) == 0) continue;
      auto x = pick(name, name, stacked(name));
      if (!x) return std::move(x).take_status();
      feeds[cand_name(name)] = std::move(x.value());
    }
    std::vector<ir::RuntimeValue> expected;
    for (size_t i = 0; i < ref_outputs.size(); ++i) {
      bool join = stack > 1 && (!carried[i] || stacked(ref_outputs[i]));
      auto x = pick("\x01out:" + ref_outputs[i], ref_outputs[i], join);
      if (!x) return std::move(x).take_status();
      if (carried[i]) feeds[cand_name(ref_outputs[i])] = std::move(x.value());
      else expected.push_back(std::move(x.value()));
    }
    for (auto& [name, val] : feeds) park(val);
    for (ir::RuntimeValue& e : expected) park(e);
    v->feeds_.push_back(std::move(feeds));
    v->expected_.push_back(std::move(expected));
  }
  return v;
}

namespace {
// A float tensor as another float type (round to nearest even), for a candidate whose inputs
// were converted (--dtype without --keep-io-types).
ir::RuntimeValue cast_float(const ir::RuntimeValue& v, ir::DataType to) {
  if (!v.is_tensor() || v.tensor.dtype() == to || !ir::dtype_is_float(v.tensor.dtype())) return v;
  const ir::Tensor& t = v.tensor;
  ir::Tensor out(to, t.dims());
  bool ok = ops::dispatch(t.dtype(), ops::kFloats, [&](auto from) {
    using F = typename decltype(from)::type;
    ops::dispatch(to, ops::kFloats, [&](auto into) {
      using T = typename decltype(into)::type;
      const F* p = t.data<F>();
      T* q = out.mutable_data<T>();
      for (int64_t i = 0; i < t.numel(); ++i)
        q[i] = T(static_cast<ops::compute_t<T>>(static_cast<double>(static_cast<ops::compute_t<F>>(p[i]))));
    });
  });
  return ok ? ir::RuntimeValue::of(std::move(out)) : v;
}
}  // namespace

Result<VerifyReport> Verifier::compare_with(const ir::Model& candidate, const CompareExtras& extras) const {
  VerifyReport rep;
  const auto& outs = candidate.graph->outputs();
  if (outs.size() != output_names_.size())
    return Status(ErrorCode::kMismatch, "the models have " + std::to_string(output_names_.size()) + " and " +
                                            std::to_string(outs.size()) + " outputs");
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i]->name() != output_names_[i])
      return Status(ErrorCode::kMismatch, "output " + std::to_string(i) + " is named '" + output_names_[i] +
                                              "' in one model and '" + outs[i]->name() + "' in the other");
    rep.outputs.push_back(OutputDiff{output_names_[i], {}, {}});
  }
  // Random ops: the nodes both models have draw alike; an output that depends on one without a
  // counterpart is not compared.
  RandomFacts cand_random = random_facts(candidate);
  std::map<std::string, std::string> ref_only, cand_only;
  std::set<std::string> ref_ids;
  for (const auto& [id, what] : ref_random_.unseeded) {
    ref_only[id] = what;
    ref_ids.insert(id);
  }
  for (const auto& [id, what] : cand_random.unseeded) {
    if (ref_ids.count(id) && draws_can_match_) ref_only.erase(id);
    else cand_only[id] = what;
  }
  // When a sample of the candidate stacks several runs of the reference, no draw can match.
  const std::string stacked = " (a sample of the result stacks several samples of the original: no draw matches)";
  for (const auto& [id, what] : ref_random_.unseeded) {
    if (!ref_only.count(id)) rep.random.alike.push_back(what);
    else rep.random.unmatched.push_back(what + (draws_can_match_ ? " (only in the original)" : stacked));
  }
  for (const auto& [id, what] : cand_random.unseeded)
    if (!ref_ids.count(id))
      rep.random.unmatched.push_back(what + (draws_can_match_ ? " (only in the result)" : stacked));
  rep.random.seeded = ref_random_.seeded;
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string& why = rep.outputs[i].not_comparable;
    for (const std::string& id : ref_deps_[i])
      if (why.empty() && ref_only.count(id))
        why = "depends on random op " + ref_only[id] +
              (draws_can_match_ ? ", which has no counterpart in the result" : stacked);
    for (const std::string& id : cand_random.output_deps[i])
      if (why.empty() && cand_only.count(id))
        why = "depends on random op " + cand_only[id] +
              (draws_can_match_ ? ", which has no counterpart in the original" : stacked);
  }
  Interpreter interp(candidate);
  interp.set_fast_float(opts_.fast);
  if (extras.observer) interp.set_observer(extras.observer);
  OT_RETURN_IF_ERROR(interp.check_supported());
  for (size_t s = 0; s < feeds_.size(); ++s) {
    // Inputs the candidate no longer has (folded away) are dropped; new ones are an error.
    std::map<std::string, ir::RuntimeValue> feeds;
    for (const ir::Value* in : candidate.graph->inputs()) {
      if (in->is_initializer()) continue;
      auto it = feeds_[s].find(in->name());
      if (it == feeds_[s].end())
        return Status(ErrorCode::kMismatch, "input '" + in->name() + "' exists only in the second model");
      feeds[in->name()] = it->second;
      if (extras.cast_float_inputs && in->type.is_tensor() && ir::dtype_is_float(in->type.elem))
        feeds[in->name()] = cast_float(it->second, in->type.elem);
    }
    interp.set_random_seed(stream_seeds_[s]);
    auto out = interp.run(feeds);
    if (!out) return std::move(out).take_status();
    for (size_t i = 0; i < outs.size(); ++i) {
      if (!rep.outputs[i].not_comparable.empty()) continue;
      Diff d = compare_values(out.value()[i], expected_[s][i], opts_.rtol, opts_.atol, opts_.scaled, extras.l2_tol);
      Diff& acc = rep.outputs[i].diff;
      acc.scale = std::max(acc.scale, d.scale);
      acc.rel_l2 = std::max(acc.rel_l2, d.rel_l2);
      acc.max_abs = std::max(acc.max_abs, d.max_abs);
      acc.max_rel = std::max(acc.max_rel, d.max_rel);
      if (!d.ok && acc.ok) {
        acc.ok = false;
        acc.why = d.why;
      }
      if (!d.ok && rep.ok) {
        rep.ok = false;
        rep.why = "output '" + output_names_[i] + "' (sample " + std::to_string(s) + "): " + d.why;
      }
    }
    for (const auto& [name, val] : feeds_[s]) release(val);
    for (const ir::RuntimeValue& e : expected_[s]) release(e);
  }
  return rep;
}

}  // namespace onnxtrim::eval

#include <cstring>
#include <fstream>
#include <sstream>

#include "onnx_io/onnx_io.h"

namespace onnxtrim::eval {

Status parse_input_shape(const std::string& arg, InputSpec& spec) {
  auto colon = arg.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return Status(ErrorCode::kUsage, "--input-shape needs NAME:D1,D2,... (got '" + arg + "')");
  std::vector<int64_t> dims;
  std::stringstream ss(arg.substr(colon + 1));
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    char* end = nullptr;
    long long v = std::strtoll(tok.c_str(), &end, 10);
    if (tok.empty() || *end || v < 0)
      return Status(ErrorCode::kUsage, "--input-shape: '" + tok + "' is not a dimension");
    dims.push_back(v);
  }
  std::string name = arg.substr(0, colon);
  auto it = spec.shapes.find(name);
  if (it != spec.shapes.end() && it->second != dims)
    return Status(ErrorCode::kUsage, "--input-shape given twice for '" + name + "' with different shapes");
  spec.shapes[name] = dims;
  return Status::ok();
}

Status parse_dim(const std::string& arg, InputSpec& spec) {
  auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    return Status(ErrorCode::kUsage, "--dim needs NAME=VALUE (got '" + arg + "')");
  char* end = nullptr;
  std::string val = arg.substr(eq + 1);
  long long v = std::strtoll(val.c_str(), &end, 10);
  if (val.empty() || *end || v < 0) return Status(ErrorCode::kUsage, "--dim: '" + val + "' is not a size");
  std::string name = arg.substr(0, eq);
  auto it = spec.dims.find(name);
  if (it != spec.dims.end() && it->second != v)
    return Status(ErrorCode::kUsage, "--dim given twice for '" + name + "' with different values");
  spec.dims[name] = v;
  return Status::ok();
}

// A NumPy .npy file (format versions 1-3): little-endian numeric or bool arrays in C order.
Result<ir::Tensor> parse_npy(const std::string& bytes) {
  auto bad = [](const std::string& why) { return Status(ErrorCode::kParse, "not a readable .npy file: " + why); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return bad("no NumPy magic");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t hlen, hstart;
  if (major == 1) {
    hlen = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    hstart = 10;
  } else {
    if (bytes.size() < 12) return bad("truncated header");
    hlen = 0;
    for (int i = 0; i < 4; ++i) hlen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    hstart = 12;
  }
  if (hstart + hlen > bytes.size()) return bad("truncated header");
  std::string h = bytes.substr(hstart, hlen);
  auto field = [&](const std::string& key) -> std::string {
    auto k = h.find("'" + key + "'");
    if (k == std::string::npos) return "";
    auto colon = h.find(':', k);
    if (colon == std::string::npos) return "";
    size_t b = h.find_first_not_of(' ', colon + 1);
    if (b == std::string::npos) return "";
    if (h[b] == '\'') return h.substr(b + 1, h.find('\'', b + 1) - b - 1);
    if (h[b] == '(') return h.substr(b + 1, h.find(')', b) - b - 1);
    return h.substr(b, h.find_first_of(",}", b) - b);
  };
  std::string descr = field("descr"), fortran = field("fortran_order"), shape = field("shape");
  if (fortran == "True") return bad("Fortran-order arrays are not supported (save with np.ascontiguousarray)");
  static const std::map<std::string, ir::DataType> types = {
      {"<f4", ir::DataType::kFloat},  {"<f8", ir::DataType::kDouble}, {"<f2", ir::DataType::kFloat16},
      {"|i1", ir::DataType::kInt8},   {"<i2", ir::DataType::kInt16},  {"<i4", ir::DataType::kInt32},
      {"<i8", ir::DataType::kInt64},  {"|u1", ir::DataType::kUint8},  {"<u2", ir::DataType::kUint16},
      {"<u4", ir::DataType::kUint32}, {"<u8", ir::DataType::kUint64}, {"|b1", ir::DataType::kBool}};
  auto it = types.find(descr);
  if (it == types.end()) return bad("element type '" + descr + "' is not supported");
  std::vector<int64_t> dims;
  std::stringstream ss(shape);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    size_t b = tok.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    dims.push_back(std::strtoll(tok.c_str() + b, nullptr, 10));
  }
  ir::Tensor t(it->second, dims);
  size_t n = t.byte_size();
  if (hstart + hlen + n != bytes.size()) return bad("data size does not match the shape");
  if (n) std::memcpy(t.mutable_bytes(), bytes.data() + hstart + hlen, n);
  return t;
}

Status pin_input(const ir::Model& m, const std::string& arg, InputSpec& spec) {
  auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    return Status(ErrorCode::kUsage, "--input needs NAME=FILE.pb or NAME=NUMBER (got '" + arg + "')");
  std::string name = arg.substr(0, eq), what = arg.substr(eq + 1);
  const ir::Value* input = nullptr;
  for (const ir::Value* v : m.graph->inputs())
    if (v->name() == name) input = v;
  if (!input) return Status(ErrorCode::kUsage, "--input: the model has no input named '" + name + "'");
  char* end = nullptr;
  double number = std::strtod(what.c_str(), &end);
  if (!what.empty() && *end == '\0') {
    std::vector<int64_t> dims;
    auto sh = spec.shapes.find(name);
    if (sh != spec.shapes.end()) {
      dims = sh->second;
    } else if (input->type.has_shape) {
      for (const ir::Dim& d : input->type.dims)
        dims.push_back(d.is_known() ? *d.value : (spec.dims.count(d.param) ? spec.dims.at(d.param) : spec.default_dim));
    }
    ir::Tensor t;
    try {
      t = ir::Tensor(input->type.elem, dims);
    } catch (const LimitExceeded& e) {
      return Status(ErrorCode::kUnsupported, "--input " + name + ": " + e.what());
    }
    bool ok = ops::dispatch(input->type.elem, ops::kAll, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = t.mutable_data<T>();
      for (int64_t i = 0; i < t.numel(); ++i) {
        if constexpr (std::is_integral_v<T>) p[i] = static_cast<T>(static_cast<long long>(number));
        else p[i] = T(static_cast<ops::compute_t<T>>(number));
      }
    });
    if (!ok) return Status(ErrorCode::kUsage, "--input: cannot make a number of type " + input->type.str());
    spec.pinned[name] = ir::RuntimeValue::of(std::move(t));
    return Status::ok();
  }
  std::ifstream f(what, std::ios::binary);
  if (!f) return Status(ErrorCode::kIo, "cannot open").with_file(what);
  std::stringstream ss;
  ss << f.rdbuf();
  if (what.size() > 4 && what.compare(what.size() - 4, 4, ".npy") == 0) {
    auto t = parse_npy(ss.str());
    if (!t) return Status(t.status()).with_file(what);
    spec.pinned[name] = ir::RuntimeValue::of(std::move(t.value()));
    return Status::ok();
  }
  auto t = onnx_io::parse_tensor_proto(ss.str());
  if (!t) return Status(t.status()).with_file(what);
  spec.pinned[name] = ir::RuntimeValue::of(std::move(t.value()));
  return Status::ok();
}

}  // namespace onnxtrim::eval
