#include "eval/sizes.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace onnxtrim::eval {

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

bool free_input(const ir::Value* v, const InputSpec& given) {
  return !v->is_initializer() && v->type.is_tensor() && v->type.has_shape && !given.shapes.count(v->name()) &&
         !given.pinned.count(v->name());
}

}  // namespace

bool looks_like_batch(const std::string& dim_name) {
  std::string s = lower_alnum(dim_name);
  static const std::set<std::string> names = {"n", "b", "bs", "bsz", "nb", "nbatch", "numbatch", "batches", "nbatches"};
  return names.count(s) > 0 || s.find("batch") != std::string::npos;
}

std::vector<SizeCandidate> size_candidates(const ir::Model& m, const InputSpec& given, int64_t max_elements) {
  // The free dims and their roles.
  std::vector<Slot> slots;
  std::map<std::string, size_t> named;  // name -> slot
  struct Use {
    size_t axis;
    int64_t rank;
  };
  std::map<std::string, std::vector<Use>> named_uses;
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
    out.push_back(SizeCandidate{given, 0, {}, {}});
    return out;
  }
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
        if (grows) c.length = len;
        c.dims.emplace_back(s.key, value[s.key]);
        if (!grows && s.role == Role::kBatch) c.batches.push_back(s.key);
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

std::string explain_sizes(const std::vector<SizeCandidate>& cands, size_t chosen,
                          const std::vector<Status>& failures) {
  if (chosen >= cands.size() || cands[chosen].dims.empty()) return "";
  const SizeCandidate& c = cands[chosen];
  std::string s = grown(c);
  if (!s.empty()) {
    if (chosen == 0) {
      s += ": the first sizes tried";
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
  std::string batches;
  for (const auto& b : c.batches) batches += (batches.empty() ? "" : ", ") + b + "=1";
  if (!batches.empty()) s += (s.empty() ? "" : "; ") + batches + ": " + (c.batches.size() == 1 ? "looks" : "look") +
                             " like a batch";
  return s;
}

std::string sizes_tried(const std::vector<SizeCandidate>& cands) {
  if (cands.empty() || cands[0].dims.empty()) return "";
  std::string s = "sizes tried: " + describe_sizes(cands[0]);
  if (cands.size() > 1) s += " ... " + describe_sizes(cands.back());
  return s;
}

Result<SizedRun> run_with_sizes(const Interpreter& interp, const ir::Model& m, const InputSpec& given, uint64_t seed) {
  const std::vector<SizeCandidate> cands = size_candidates(m, given);
  std::vector<Status> failures;
  Status last;
  for (size_t i = 0; i < cands.size(); ++i) {
    auto feeds = make_random_inputs(m, cands[i].spec, seed);
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

}  // namespace onnxtrim::eval
