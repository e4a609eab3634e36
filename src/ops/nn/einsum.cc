// Einsum: sum of products over labelled axes (explicit or implicit output, ellipsis,
// repeated labels taking diagonals).
#include <algorithm>
#include <map>

#include "ops/infer.h"
#include "ops/kernel_util.h"
#include "ops/nn/nn_util.h"

namespace onnxtrim::ops {
namespace {

// ---- evaluate
// Labels: 0..51 for letters, 64 + j for the j-th ellipsis axis (counted from the left of the
// broadcast ellipsis block).
struct Term {
  std::vector<int> labels;
  bool has_ellipsis = false;
  size_t ellipsis_pos = 0;  // index in `letters` where the ellipsis sits
  std::vector<int> letters;
};

int letter_id(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

bool parse_term(const std::string& s, Term* t, std::string* err) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (s.compare(i, 3, "...") != 0 || t->has_ellipsis) {
        *err = "malformed ellipsis";
        return false;
      }
      t->has_ellipsis = true;
      t->ellipsis_pos = t->letters.size();
      i += 2;
      continue;
    }
    int id = letter_id(c);
    if (id < 0) {
      *err = std::string("invalid character '") + c + "' in equation";
      return false;
    }
    t->letters.push_back(id);
  }
  return true;
}

// The terms of the equation's left-hand side `lhs` (before "->"), one per input, comma-separated.
bool parse_terms(const std::string& lhs, std::vector<Term>* terms, std::string* err) {
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    Term t;
    if (!parse_term(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start), &t, err))
      return false;
    terms->push_back(t);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

Status eval_einsum(KernelContext& ctx) {
  std::string eq = ctx.node().attr_string("equation", "");
  if (eq.empty()) return ctx.error("Einsum requires the equation attribute");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  std::string err;
  if (!parse_terms(lhs, &terms, &err)) return ctx.error("Einsum: " + err);
  size_t n_in = ctx.num_inputs();
  if (terms.size() != n_in)
    return ctx.error("Einsum equation has " + std::to_string(terms.size()) + " operands but the node has " +
                     std::to_string(n_in) + " inputs");
  DataType dt = DataType::kUndefined;
  for (size_t i = 0; i < n_in; ++i) {
    if (!ctx.has_input(i)) return ctx.error("Einsum inputs must all be present");
    if (i == 0) dt = ctx.input(0).dtype();
    else if (ctx.input(i).dtype() != dt) return ctx.error("Einsum inputs have different element types");
  }
  // Ellipsis rank = max over operands; ellipsis axes right-aligned.
  int64_t ell_rank = 0;
  for (size_t i = 0; i < n_in; ++i) {
    int64_t r = ctx.input(i).rank(), nl = static_cast<int64_t>(terms[i].letters.size());
    if (terms[i].has_ellipsis) {
      if (r < nl) return ctx.error("Einsum operand " + std::to_string(i) + " has too few axes for its term");
      ell_rank = std::max(ell_rank, r - nl);
    } else if (r != nl) {
      return ctx.error("Einsum operand " + std::to_string(i) + " rank does not match its term");
    }
  }
  std::map<int, int64_t> size;
  std::vector<std::vector<int>> op_labels(n_in);
  for (size_t i = 0; i < n_in; ++i) {
    const Term& t = terms[i];
    const Dims& d = ctx.input(i).dims();
    int64_t er = t.has_ellipsis ? ctx.input(i).rank() - static_cast<int64_t>(t.letters.size()) : 0;
    std::vector<int>& labs = op_labels[i];
    for (size_t k = 0; k < t.letters.size(); ++k) {
      if (t.has_ellipsis && k == t.ellipsis_pos)
        for (int64_t j = 0; j < er; ++j) labs.push_back(64 + static_cast<int>(ell_rank - er + j));
      labs.push_back(t.letters[k]);
    }
    if (t.has_ellipsis && t.ellipsis_pos == t.letters.size())
      for (int64_t j = 0; j < er; ++j) labs.push_back(64 + static_cast<int>(ell_rank - er + j));
    for (size_t a = 0; a < labs.size(); ++a) {
      int l = labs[a];
      int64_t s = d[a];
      auto it = size.find(l);
      if (it == size.end()) {
        size[l] = s;
      } else if (it->second != s) {
        if (l >= 64 && it->second == 1) it->second = s;
        else if (!(l >= 64 && s == 1)) return ctx.error("Einsum dimension mismatch for a label");
      }
    }
  }
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    Term ot;
    if (!parse_term(eq.substr(arrow + 2), &ot, &err)) return ctx.error("Einsum: " + err);
    for (size_t k = 0; k <= ot.letters.size(); ++k) {
      if (ot.has_ellipsis && k == ot.ellipsis_pos)
        for (int64_t j = 0; j < ell_rank; ++j) out_labels.push_back(64 + static_cast<int>(j));
      if (k < ot.letters.size()) {
        int l = ot.letters[k];
        if (!size.count(l)) return ctx.error("Einsum output label does not appear in the inputs");
        if (std::count(out_labels.begin(), out_labels.end(), l)) return ctx.error("Einsum output label repeated");
        out_labels.push_back(l);
      }
    }
  } else {
    for (int64_t j = 0; j < ell_rank; ++j) out_labels.push_back(64 + static_cast<int>(j));
    std::map<int, int> count;
    for (const Term& t : terms)
      for (int l : t.letters) count[l]++;
    std::vector<int> once;
    for (auto [l, c] : count)
      if (c == 1) once.push_back(l);
    // Implicit output: labels seen once, in character-code order (upper case first).
    std::sort(once.begin(), once.end(), [](int a, int b) {
      auto ch = [](int v) { return v < 26 ? 'a' + v : 'A' + (v - 26); };
      return ch(a) < ch(b);
    });
    out_labels.insert(out_labels.end(), once.begin(), once.end());
  }
  std::vector<int> sum_labels;
  for (auto [l, s] : size)
    if (!std::count(out_labels.begin(), out_labels.end(), l)) sum_labels.push_back(l);
  Dims out_dims;
  for (int l : out_labels) out_dims.push_back(size[l]);
  std::vector<int> all = out_labels;
  all.insert(all.end(), sum_labels.begin(), sum_labels.end());
  size_t nl = all.size();
  // stride[i][k]: element stride of operand i along label all[k] (0 when broadcast/absent).
  std::vector<std::vector<int64_t>> stride(n_in, std::vector<int64_t>(nl, 0));
  for (size_t i = 0; i < n_in; ++i) {
    Dims st = strides_of(ctx.input(i).dims());
    const Dims& d = ctx.input(i).dims();
    for (size_t a = 0; a < op_labels[i].size(); ++a) {
      size_t k = static_cast<size_t>(std::find(all.begin(), all.end(), op_labels[i][a]) - all.begin());
      if (d[a] != 1 || size[op_labels[i][a]] == 1) stride[i][k] += st[a];
    }
  }
  Dims dims_all;
  for (int l : all) dims_all.push_back(size[l]);
  int64_t out_n = numel_of(out_dims);
  int64_t sum_n = 1;
  for (size_t k = out_labels.size(); k < nl; ++k) sum_n *= dims_all[k];
  Tensor out(dt, out_dims);
  bool ok = dispatch(dt, kAllNumeric, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using CT = compute_t<T>;
    if (out_n == 0) return;
    T* po = out.mutable_data<T>();
    std::vector<const T*> ptr(n_in);
    for (size_t i = 0; i < n_in; ++i) ptr[i] = ctx.input(i).data<T>();
    std::vector<int64_t> idx(nl, 0), off(n_in, 0);
    for (int64_t o = 0; o < out_n; ++o) {
      CT acc = 0;
      if (sum_n > 0) {
        for (int64_t s = 0; s < sum_n; ++s) {
          CT prod = 1;
          for (size_t i = 0; i < n_in; ++i) prod = nn::wrap_mul(prod, static_cast<CT>(ptr[i][off[i]]));
          acc = nn::wrap_add(acc, prod);
          // advance the summed labels (innermost last)
          for (size_t k = nl; k-- > out_labels.size();) {
            for (size_t i = 0; i < n_in; ++i) off[i] += stride[i][k];
            if (++idx[k] < dims_all[k]) break;
            for (size_t i = 0; i < n_in; ++i) off[i] -= stride[i][k] * dims_all[k];
            idx[k] = 0;
          }
        }
      }
      po[o] = T(acc);
      for (size_t k = out_labels.size(); k-- > 0;) {
        for (size_t i = 0; i < n_in; ++i) off[i] += stride[i][k];
        if (++idx[k] < dims_all[k]) break;
        for (size_t i = 0; i < n_in; ++i) off[i] -= stride[i][k] * dims_all[k];
        idx[k] = 0;
      }
    }
  });
  if (!ok) return ctx.error("Einsum does not support element type " + std::string(ir::dtype_name(dt)));
  ctx.set_output(0, std::move(out));
  return Status::ok();
}

// ---- shape inference
Status infer_einsum(InferContext& ctx) {
  DataType elem = ctx.input(0).elem;
  ctx.output(0) = TypeInfo::tensor(elem, std::nullopt);
  std::string eq = ctx.node().attr_string("equation", "");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  std::string err;
  if (!parse_terms(lhs, &terms, &err)) return ctx.error("Einsum: " + err);
  if (terms.size() != ctx.num_inputs()) return Status::ok();
  // Each letter's dim (the first operand that has it), and the broadcast ellipsis block.
  std::map<int, Expr> dims;
  std::vector<SymShape> ell_blocks;
  std::map<int, int> count;
  for (size_t i = 0; i < terms.size(); ++i) {
    const TypeInfo& in = ctx.input(i);
    if (!in.shape) return Status::ok();
    const Term& t = terms[i];
    size_t named = t.letters.size();
    if (in.shape->size() < named || (!t.has_ellipsis && in.shape->size() != named))
      return ctx.error("Einsum operand " + std::to_string(i) + " has rank " + std::to_string(in.shape->size()) +
                       ", its term names " + std::to_string(named) + " axes");
    size_t ell = in.shape->size() - named;
    for (size_t k = 0; k < named; ++k) {
      size_t axis = k < t.ellipsis_pos || !t.has_ellipsis ? k : k + ell;
      int id = t.letters[k];
      const Expr& d = (*in.shape)[axis];
      auto it = dims.find(id);
      if (it == dims.end() || (it->second.is_constant() && it->second.constant_value() == 1)) dims[id] = d;
      count[id]++;
    }
    if (t.has_ellipsis)
      ell_blocks.emplace_back(in.shape->begin() + static_cast<std::ptrdiff_t>(t.ellipsis_pos),
                              in.shape->begin() + static_cast<std::ptrdiff_t>(t.ellipsis_pos + ell));
  }
  SymShape ell_shape;
  if (!ell_blocks.empty()) {
    std::vector<const SymShape*> ptrs;
    for (const auto& b : ell_blocks) ptrs.push_back(&b);
    bool bad = false;
    auto b = broadcast(ptrs, &bad);
    if (bad) return ctx.error("Einsum ellipsis dims cannot be broadcast");
    if (!b) return Status::ok();
    ell_shape = *b;
  }
  SymShape out;
  if (arrow != std::string::npos) {
    Term rhs;
    if (!parse_term(eq.substr(arrow + 2), &rhs, &err)) return ctx.error("Einsum: " + err);
    for (size_t k = 0; k <= rhs.letters.size(); ++k) {
      if (rhs.has_ellipsis && k == rhs.ellipsis_pos) out.insert(out.end(), ell_shape.begin(), ell_shape.end());
      if (k == rhs.letters.size()) break;
      auto it = dims.find(rhs.letters[k]);
      if (it == dims.end()) return ctx.error("Einsum output label is not in any input");
      out.push_back(it->second);
    }
  } else {
    // Implicit output: the ellipsis block, then the labels seen once, in alphabetical order.
    out = ell_shape;
    std::vector<char> once;
    for (const auto& [id, c] : count)
      if (c == 1) once.push_back(static_cast<char>(id < 26 ? 'a' + id : 'A' + (id - 26)));
    std::sort(once.begin(), once.end());
    for (char c : once) out.push_back(dims[letter_id(c)]);
  }
  ctx.output(0) = TypeInfo::tensor(elem, out);
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(Einsum, "", "Einsum", (std::vector<int>{12}), eval_einsum);
ONNXTRIM_REGISTER_INFER(Einsum, "", "Einsum", infer_einsum);
ONNXTRIM_REGISTER_TYPES(Einsum, "", "Einsum", "T...",
                        {{"T", kIntTypes |
                                   type_bits({ir::DataType::kDouble, ir::DataType::kFloat, ir::DataType::kFloat16})}});

}  // namespace onnxtrim::ops
