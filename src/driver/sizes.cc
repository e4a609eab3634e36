#include "driver/sizes.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "passes/shape_inference.h"
#include "symbolic/expr.h"

namespace onnxtrim::driver {

namespace {

enum class Role { kBatch, kLength, kUnclear };

// A free dim: a name (all its uses), or one unnamed dim of one input.
struct Slot {
  std::string key;  // "seq", or "x[1]"
  Role role = Role::kLength;
};

std::string lower_alnum(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

bool free_input(const ir::Value* v, const eval::InputSpec& given) {
  return !v->is_initializer() && v->type.is_tensor() && v->type.has_shape && !given.shapes.count(v->name()) &&
         !given.pinned.count(v->name());
}

// Calls on_id(identifier) for each identifier of expression text `e`, and on_other(c) for each
// other character, in order.
template <typename F, typename G>
void walk_identifiers(const std::string& e, F&& on_id, G&& on_other) {
  for (size_t i = 0; i < e.size();) {
    unsigned char c = static_cast<unsigned char>(e[i]);
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < e.size() && (std::isalnum(static_cast<unsigned char>(e[j])) || e[j] == '_')) ++j;
      on_id(e.substr(i, j - i));
      i = j;
    } else {
      on_other(e[i++]);
    }
  }
}

// The value of expression text `e` with identifier `tok` replaced by v (nullopt when it does
// not come out a constant).
std::optional<int64_t> eval_with(const std::string& e, const std::string& tok, int64_t v) {
  std::string out;
  walk_identifiers(
      e, [&](const std::string& id) { out += id == tok ? std::to_string(v) : id; }, [&](char c) { out += c; });
  return symbolic::Expr::parse(out).constant_value();
}

// The identifiers of expression text `e` other than its functions.
std::set<std::string> identifiers(const std::string& e) {
  std::set<std::string> ids;
  walk_identifiers(
      e,
      [&](const std::string& id) {
        if (id != "floor" && id != "mod" && id != "min" && id != "max") ids.insert(id);
      },
      [](char) {});
  return ids;
}

// The smallest v in [1, hi] for which expression text `e`, with `tok` set to v, is at least
// want (e not decreasing in v); nullopt when even hi does not reach it or e cannot be evaluated.
std::optional<int64_t> smallest_reaching(const std::string& e, const std::string& tok, int64_t want, int64_t hi) {
  auto at_hi = eval_with(e, tok, hi);
  if (!at_hi || *at_hi < want) return std::nullopt;
  int64_t lo = 0, up = hi;  // f(lo) < want <= f(up), f(0) taken as < want
  while (up - lo > 1) {
    int64_t mid = lo + (up - lo) / 2;
    auto f = eval_with(e, tok, mid);
    if (!f) return std::nullopt;
    (*f >= want ? up : lo) = mid;
  }
  return up;
}

struct Floor {
  int64_t at_least = 0;
  std::string why;        // "x[2] >= 100 for node 'producing c (Conv)'"
  bool exact = false;     // the dim must be at_least itself (a Reshape to a fixed shape)
  bool conflict = false;  // two Reshapes want different sizes: no fact
};

// Lower bounds the facts give the free dims (slot keys of `slot_of`, input name and axis ->
// slot key): a free dim that sizes a spatial dim of a convolution's or a pool's output, or the
// frames of an STFT, must make it at least 1 (the kernel, the frame fits). Main graph only.
std::map<std::string, Floor> facts_floors(const ir::Model& m, const eval::InputSpec& given,
                                          const std::map<std::pair<std::string, size_t>, std::string>& slot_of) {
  std::map<std::string, Floor> floors;
  passes::ShapeInference si(m, infer_options(given));
  if (!si.run().is_ok()) return floors;
  // Each free dim's symbol in the facts ("seq", or the unknown an unnamed dim became).
  std::map<std::string, std::string> slot_of_token;
  for (const ir::Value* v : m.graph->inputs()) {
    const ops::TypeInfo* t = si.facts(v);
    if (!t || !t->shape) continue;
    for (size_t i = 0; i < t->shape->size(); ++i) {
      auto it = slot_of.find({v->name(), i});
      const symbolic::Expr& e = (*t->shape)[i];
      if (it == slot_of.end() || !(e.is_symbol() || e.is_fresh())) continue;
      slot_of_token[e.str()] = it->second;
    }
  }
  static const std::set<std::string> spatial = {"Conv",    "ConvInteger", "QLinearConv", "AveragePool",
                                                "MaxPool", "LpPool",      "DeformConv"};
  // The token of the one free dim e depends on, and e's text; nullopt for any other e.
  struct OneFree {
    std::string text, tok;
  };
  auto one_free = [&](const symbolic::Expr& e) -> std::optional<OneFree> {
    if (e.is_constant()) return std::nullopt;
    std::string text = e.str();
    std::set<std::string> ids = identifiers(text);
    if (ids.size() != 1 || !slot_of_token.count(*ids.begin())) return std::nullopt;
    return OneFree{text, *ids.begin()};
  };
  // e, depending on one free dim alone, must be `want`: that dim is the smallest value giving
  // want exactly (when one does), for node n.
  auto exact_fact = [&](const symbolic::Expr& e, int64_t want, const ir::Node* n) {
    auto free = one_free(e);
    if (!free) return;
    auto up = smallest_reaching(free->text, free->tok, want, int64_t{1} << 24);
    if (!up) return;
    auto f = eval_with(free->text, free->tok, *up);
    if (!f || *f != want) return;
    const std::string& key = slot_of_token[free->tok];
    Floor& fl = floors[key];
    if (fl.exact && fl.at_least != *up) fl.conflict = true;
    if (!fl.exact) fl = Floor{*up, key + " = " + std::to_string(*up) + " for node '" + n->describe() + "'", true};
  };
  // A Reshape to a fixed shape of N elements of data whose element count depends on one free
  // dim alone fixes that dim.
  auto reshape_fact = [&](const ir::Node* n) {
    const ops::TypeInfo* out = si.facts(n->output(0));
    const ops::TypeInfo* data = n->input(0) ? si.facts(n->input(0)) : nullptr;
    if (!out || !data || !data->shape) return;
    auto fixed = out->static_shape();
    if (!fixed) return;
    int64_t want = 1;
    for (int64_t d : *fixed) want *= d;
    symbolic::Expr numel = symbolic::Expr::constant(1);
    for (const symbolic::Expr& d : *data->shape) numel = numel * d;
    if (want >= 1) exact_fact(numel, want, n);
  };
  // An elementwise op that broadcasts a dim depending on one free dim alone against a constant
  // dim K > 1 of another input (a Range(0, K), a bias of K) fixes it to give K (1 would
  // broadcast too, but K is the size the model is built for).
  static const std::set<std::string> broadcasting = {"Add",
                                                     "Sub",
                                                     "Mul",
                                                     "Div",
                                                     "Pow",
                                                     "Mod",
                                                     "Max",
                                                     "Min",
                                                     "Equal",
                                                     "Less",
                                                     "Greater",
                                                     "LessOrEqual",
                                                     "GreaterOrEqual",
                                                     "And",
                                                     "Or",
                                                     "Xor",
                                                     "Where",
                                                     "PRelu"};
  auto broadcast_fact = [&](const ir::Node* n) {
    std::vector<const ops::SymShape*> shapes;
    for (const ir::Value* in : n->inputs()) {
      const ops::TypeInfo* t = in ? si.facts(in) : nullptr;
      if (t && t->shape) shapes.push_back(&*t->shape);
    }
    for (const ops::SymShape* a : shapes)
      for (const ops::SymShape* b : shapes) {
        if (a == b) continue;
        for (size_t k = 1; k <= std::min(a->size(), b->size()); ++k) {
          auto want = (*b)[b->size() - k].constant_value();
          if (want && *want > 1) exact_fact((*a)[a->size() - k], *want, n);
        }
      }
  };
  m.graph->for_each_node([&](const ir::Node* n) {
    if (!n->is_default_domain() || n->num_outputs() == 0 || !n->output(0)) return;
    if (n->op_type == "Reshape") return reshape_fact(n);
    if (broadcasting.count(n->op_type)) return broadcast_fact(n);
    bool conv = spatial.count(n->op_type) > 0, stft = n->op_type == "STFT";
    if (!conv && !stft) return;
    const ops::TypeInfo* t = si.facts(n->output(0));
    if (!t || !t->shape) return;
    for (size_t a = stft ? 1 : 2; a < t->shape->size() && (conv || a == 1); ++a) {
      auto free = one_free((*t->shape)[a]);
      if (!free) continue;
      // The output dim is at least 1 from `up` on (and less at 1, or there is nothing to say).
      auto up = smallest_reaching(free->text, free->tok, 1, int64_t{1} << 16);
      if (!up || *up <= 1) continue;
      const std::string& key = slot_of_token[free->tok];
      Floor& fl = floors[key];
      if (!fl.exact && *up > fl.at_least)
        fl = Floor{*up, key + " >= " + std::to_string(*up) + " for node '" + n->describe() + "'"};
    }
  });
  for (auto it = floors.begin(); it != floors.end();) it = it->second.conflict ? floors.erase(it) : std::next(it);
  return floors;
}

}  // namespace

bool looks_like_batch(const std::string& dim_name) {
  std::string s = lower_alnum(dim_name);
  static const std::set<std::string> names = {"n", "b", "bs", "bsz", "nb", "nbatch", "numbatch", "batches", "nbatches"};
  return names.count(s) > 0 || s.find("batch") != std::string::npos;
}

std::vector<SizeCandidate> size_candidates(const ir::Model& m, const eval::InputSpec& given, int64_t max_elements) {
  // The free dims and their roles.
  std::vector<Slot> slots;
  std::map<std::string, size_t> named;  // name -> slot
  struct Use {
    size_t axis;
    int64_t rank;
  };
  std::map<std::string, std::vector<Use>> named_uses;
  std::map<std::pair<std::string, size_t>, std::string> slot_of;  // (input, axis) -> slot key
  for (const ir::Value* v : m.graph->inputs()) {
    if (!free_input(v, given)) continue;
    const auto& dims = v->type.dims;
    const int64_t rank = static_cast<int64_t>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
      const ir::Dim& d = dims[i];
      if (d.is_known()) continue;
      if (!d.param.empty()) {
        if (given.dims.count(d.param)) continue;
        if (!named.count(d.param)) {
          named[d.param] = slots.size();
          slots.push_back(Slot{d.param, Role::kLength});
        }
        named_uses[d.param].push_back(Use{i, rank});
        slot_of[{v->name(), i}] = d.param;
        continue;
      }
      Slot s{v->name() + "[" + std::to_string(i) + "]", Role::kLength};
      if (i == 0 && rank >= 2) {
        s.role = Role::kBatch;
      } else if (rank == 1) {
        s.role = Role::kUnclear;
      } else if (rank >= 3) {
        bool others_known = true;
        for (size_t j = 0; j < dims.size(); ++j) others_known &= j == i || dims[j].is_known();
        if (others_known) s.role = Role::kUnclear;
      }
      slot_of[{v->name(), i}] = s.key;
      slots.push_back(s);
    }
  }
  for (auto& [name, uses] : named_uses) {
    Slot& s = slots[named[name]];
    bool leading = false, other = false, only_rank1 = true;
    for (const Use& u : uses) {
      if (u.axis == 0 && u.rank >= 2) leading = true;
      else if (u.rank >= 2) other = true;
      only_rank1 &= u.rank == 1;
    }
    if (looks_like_batch(name) || (leading && !other)) s.role = Role::kBatch;
    else if ((leading && other) || only_rank1) s.role = Role::kUnclear;
    else s.role = Role::kLength;
  }

  std::vector<SizeCandidate> out;
  if (slots.empty()) {
    out.push_back(SizeCandidate{given, 0, {}, {}, {}});
    return out;
  }
  // From the facts first: a dim that must be at least k starts at k (and grows from there).
  const std::map<std::string, Floor> floors = facts_floors(m, given, slot_of);
  bool unclear = std::any_of(slots.begin(), slots.end(), [](const Slot& s) { return s.role == Role::kUnclear; });
  for (int64_t len : {int64_t{8}, int64_t{64}, int64_t{512}, int64_t{4096}}) {
    for (bool unclear_grows : {true, false}) {
      if (!unclear && !unclear_grows) continue;
      SizeCandidate c;
      c.spec = given;
      std::map<std::string, int64_t> value;  // slot key -> size
      for (const Slot& s : slots) {
        bool grows = s.role == Role::kLength || (s.role == Role::kUnclear && unclear_grows);
        value[s.key] = grows ? len : 1;
        auto fl = floors.find(s.key);
        bool exact = fl != floors.end() && fl->second.exact;
        if (exact || (grows && fl != floors.end() && fl->second.at_least > len)) {
          value[s.key] = fl->second.at_least;
          c.from_facts.push_back(fl->second.why);
        }
        if (grows && !exact) c.length = len;
        c.dims.emplace_back(s.key, value[s.key]);
        if (!grows && !exact && s.role == Role::kBatch) c.batches.push_back(s.key);
      }
      for (const auto& [name, slot] : named) c.spec.dims[name] = value[name];
      int64_t elements = 0;
      for (const ir::Value* v : m.graph->inputs()) {
        if (!free_input(v, given)) continue;
        std::vector<int64_t> shape;
        bool unnamed = false;
        for (size_t i = 0; i < v->type.dims.size(); ++i) {
          const ir::Dim& d = v->type.dims[i];
          if (d.is_known()) shape.push_back(*d.value);
          else if (!d.param.empty()) shape.push_back(c.spec.dims.at(d.param));
          else {
            unnamed = true;
            shape.push_back(value.at(v->name() + "[" + std::to_string(i) + "]"));
          }
        }
        if (unnamed) c.spec.shapes[v->name()] = shape;
        int64_t n = 1;
        for (int64_t d : shape) n = d > 0 && n > max_elements / d ? max_elements + 1 : n * d;
        elements = std::min(max_elements + 1, elements + n);
      }
      bool dup = std::any_of(out.begin(), out.end(), [&](const SizeCandidate& o) { return o.dims == c.dims; });
      if (dup) continue;
      if (elements > max_elements && !out.empty()) return out;
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::string describe_sizes(const SizeCandidate& c) {
  std::string s;
  for (const auto& [k, v] : c.dims) s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return s;
}

namespace {
// The dims of `c` that are not batches, as "seq=8, x[1]=8".
std::string grown(const SizeCandidate& c) {
  std::string s;
  for (const auto& [k, v] : c.dims)
    if (std::find(c.batches.begin(), c.batches.end(), k) == c.batches.end())
      s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return s;
}
}  // namespace

std::string explain_sizes(const std::vector<SizeCandidate>& cands, size_t chosen, const std::vector<Status>& failures) {
  if (chosen >= cands.size() || cands[chosen].dims.empty()) return "";
  const SizeCandidate& c = cands[chosen];
  std::string s = grown(c);
  if (!s.empty()) {
    if (chosen == 0) {
      s += c.from_facts.empty() ? ": the first sizes tried" : "";
    } else {
      // The sizes that failed, and how (the distinct errors, in order).
      std::string tried;
      std::vector<std::string> errors;
      if (chosen <= 2)
        for (size_t i = 0; i < chosen; ++i) tried += (i == 0 ? "" : " and ") + grown(cands[i]);
      else
        tried = "the " + std::to_string(chosen) + " smaller sizes tried (" + grown(cands[0]) + " to " +
                grown(cands[chosen - 1]) + ")";
      for (size_t i = 0; i < chosen && i < failures.size(); ++i) {
        std::string e = failures[i].message();
        if (std::find(errors.begin(), errors.end(), e) == errors.end()) errors.push_back(e);
      }
      std::string why;
      for (size_t i = 0; i < errors.size() && i < 3; ++i) why += (i ? "; " : "") + errors[i];
      if (errors.size() > 3) why += "; ...";
      s += ": the original fails on " + tried + " (" + why + ")";
    }
  }
  if (!c.from_facts.empty()) {
    std::string f;
    for (const auto& w : c.from_facts) f += (f.empty() ? "" : "; ") + w;
    s += (chosen == 0 ? ": from the facts (" : "; from the facts (") + f + ")";
  }
  std::string batches;
  for (const auto& b : c.batches) batches += (batches.empty() ? "" : ", ") + b + "=1";
  if (!batches.empty())
    s += (s.empty() ? "" : "; ") + batches + ": " + (c.batches.size() == 1 ? "looks" : "look") + " like a batch";
  return s;
}

std::string sizes_tried(const std::vector<SizeCandidate>& cands) {
  if (cands.empty() || cands[0].dims.empty()) return "";
  std::string s = "sizes tried: " + describe_sizes(cands[0]);
  if (cands.size() > 1) s += " ... " + describe_sizes(cands.back());
  return s;
}

Result<SizedRun> run_with_sizes(const eval::Interpreter& interp, const ir::Model& m, const eval::InputSpec& given,
                                uint64_t seed) {
  const std::vector<SizeCandidate> cands = size_candidates(m, given);
  std::vector<Status> failures;
  Status last;
  for (size_t i = 0; i < cands.size(); ++i) {
    auto feeds = eval::make_random_inputs(m, cands[i].spec, seed);
    if (!feeds) return std::move(feeds).take_status();
    auto out = interp.run(feeds.value());
    if (out) return SizedRun{std::move(feeds).value(), std::move(out).value(), explain_sizes(cands, i, failures)};
    last = out.status();
    if (last.code() == ErrorCode::kUnsupported || last.code() == ErrorCode::kInterrupted ||
        last.code() == ErrorCode::kUsage)
      return last;
    failures.push_back(last);
  }
  std::string tried = sizes_tried(cands);
  if (tried.empty()) return last;
  Status st(last.code(), last.detail() + " (" + tried + ": give sizes with --dim, --input-shape or --input)");
  if (!last.node().empty()) st.with_node(last.node());
  return st;
}

passes::InferOptions infer_options(const eval::InputSpec& spec) {
  passes::InferOptions io;
  io.dims = spec.dims;
  io.input_shapes = spec.shapes;
  for (const auto& [name, v] : spec.pinned)
    if (v.is_tensor()) io.input_shapes[name] = v.tensor.dims();
  return io;
}

}  // namespace onnxtrim::driver
