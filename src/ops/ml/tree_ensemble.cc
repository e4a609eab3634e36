// TreeEnsemble (ai.onnx.ml 5): a forest of binary decision trees over the features of each row
// of X [N, F]; output [N, n_targets] of X's type.
// Interior nodes (nodes_*): feature, mode (0 <=, 1 <, 2 >=, 3 >, 4 ==, 5 !=, 6 member of a set
// from membership_values, sets separated by NaN), split value, and true/false children, each a
// node index or (when *_leafs is 1) a leaf index. A NaN feature follows the true branch where
// nodes_missing_value_tracks_true is 1. Leaves (leaf_*) add a weight to one target. Per
// target the reached leaves are aggregated (0 average, 1 sum, 2 min, 3 max), then post_transform
// (0 none, 1 softmax, 2 logistic, 3 softmax with zeros kept, 4 probit).
#include <cmath>
#include <limits>
#include <set>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

std::vector<double> doubles_of(const ir::Node& n, const char* name) {
  const ir::Attribute* a = n.attr(name);
  std::vector<double> v;
  if (!a) return v;
  if (a->t)
    for (int64_t i = 0; i < a->t->numel(); ++i) v.push_back(element_as_double(*a->t, i));
  else
    for (float f : a->floats) v.push_back(f);
  return v;
}

double probit(double p) {
  // Inverse of the standard normal CDF: sqrt(2) * erfinv(2p - 1), by Newton steps on erf.
  double y = 2 * p - 1;
  if (y <= -1) return -std::numeric_limits<double>::infinity();
  if (y >= 1) return std::numeric_limits<double>::infinity();
  double x = 0;
  for (int it = 0; it < 100; ++it) {
    double err = std::erf(x) - y;
    double step = err / (2 / std::sqrt(M_PI) * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) < 1e-15) break;
  }
  return std::sqrt(2.0) * x;
}

// ---- evaluate
Status eval_tree_ensemble(KernelContext& ctx) {
  const ir::Node& n = ctx.node();
  if (!ctx.has_input(0)) return ctx.error("TreeEnsemble needs an input");
  const Tensor& x = ctx.input(0);
  if (x.rank() != 2) return ctx.error("TreeEnsemble needs X of rank 2");
  if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble && x.dtype() != DataType::kFloat16)
    return ctx.error("TreeEnsemble takes float types, not " + std::string(ir::dtype_name(x.dtype())));
  std::vector<int64_t> feat = n.attr_ints("nodes_featureids");
  std::vector<double> modes = doubles_of(n, "nodes_modes");
  std::vector<double> splits = doubles_of(n, "nodes_splits");
  std::vector<int64_t> tid = n.attr_ints("nodes_truenodeids"), tleaf = n.attr_ints("nodes_trueleafs");
  std::vector<int64_t> fid = n.attr_ints("nodes_falsenodeids"), fleaf = n.attr_ints("nodes_falseleafs");
  std::vector<int64_t> missing = n.attr_ints("nodes_missing_value_tracks_true");
  std::vector<int64_t> roots = n.attr_ints("tree_roots");
  std::vector<int64_t> leaf_target = n.attr_ints("leaf_targetids");
  std::vector<double> leaf_weight = doubles_of(n, "leaf_weights");
  std::vector<double> members = doubles_of(n, "membership_values");
  int64_t n_targets = n.attr_int("n_targets", 0);
  int64_t agg = n.attr_int("aggregate_function", 1);
  int64_t post = n.attr_int("post_transform", 0);
  size_t nn = feat.size();
  if (modes.size() != nn || splits.size() != nn || tid.size() != nn || tleaf.size() != nn || fid.size() != nn ||
      fleaf.size() != nn || (!missing.empty() && missing.size() != nn))
    return ctx.error("TreeEnsemble nodes_* attributes differ in length");
  if (leaf_target.size() != leaf_weight.size()) return ctx.error("TreeEnsemble leaf_* attributes differ in length");
  if (n_targets <= 0) return ctx.error("TreeEnsemble needs n_targets > 0");
  for (int64_t t : leaf_target)
    if (t < 0 || t >= n_targets) return ctx.error("TreeEnsemble leaf target " + std::to_string(t) + " is out of range");
  // The sets of the member nodes, in node order.
  std::vector<std::set<double>> sets(nn);
  {
    size_t pos = 0;
    for (size_t i = 0; i < nn; ++i) {
      if (modes[i] != 6) continue;
      while (pos < members.size() && !std::isnan(members[pos])) sets[i].insert(members[pos++]);
      ++pos;  // the NaN separator
    }
  }
  int64_t rows = x.dims()[0], f = x.dims()[1];
  Tensor y(x.dtype(), {rows, n_targets});
  std::vector<double> acc(static_cast<size_t>(n_targets));
  std::vector<bool> hit(static_cast<size_t>(n_targets));
  for (int64_t r = 0; r < rows; ++r) {
    double init = agg == 2 ? INFINITY : (agg == 3 ? -INFINITY : 0.0);
    std::fill(acc.begin(), acc.end(), init);
    std::fill(hit.begin(), hit.end(), false);
    for (int64_t root : roots) {
      int64_t node = root;
      bool at_leaf = false;
      for (size_t steps = 0; !at_leaf; ++steps) {
        if (node < 0 || static_cast<size_t>(node) >= nn || steps > nn)
          return ctx.error("TreeEnsemble tree reaches node " + std::to_string(node) + ", which does not exist");
        size_t i = static_cast<size_t>(node);
        if (feat[i] < 0 || feat[i] >= f)
          return ctx.error("TreeEnsemble feature id " + std::to_string(feat[i]) + " is out of range");
        double v = element_as_double(x, r * f + feat[i]);
        double s = splits[i];
        bool go;
        if (std::isnan(v) && !missing.empty() && missing[i]) {
          go = true;
        } else {
          switch (static_cast<int>(modes[i])) {
            case 0: go = v <= s; break;
            case 1: go = v < s; break;
            case 2: go = v >= s; break;
            case 3: go = v > s; break;
            case 4: go = v == s; break;
            case 5: go = v != s; break;
            case 6: go = sets[i].count(v) > 0; break;
            default: return ctx.error("TreeEnsemble node mode " + std::to_string(modes[i]) + " is unknown");
          }
        }
        node = go ? tid[i] : fid[i];
        at_leaf = go ? tleaf[i] != 0 : fleaf[i] != 0;
      }
      if (node < 0 || static_cast<size_t>(node) >= leaf_target.size())
        return ctx.error("TreeEnsemble leaf " + std::to_string(node) + " does not exist");
      size_t t = static_cast<size_t>(leaf_target[static_cast<size_t>(node)]);
      double w = leaf_weight[static_cast<size_t>(node)];
      hit[t] = true;
      if (agg == 2) acc[t] = std::min(acc[t], w);
      else if (agg == 3) acc[t] = std::max(acc[t], w);
      else acc[t] += w;
    }
    for (size_t t = 0; t < acc.size(); ++t) {
      if (!hit[t]) acc[t] = 0;
      if (agg == 0 && !roots.empty()) acc[t] /= static_cast<double>(roots.size());
    }
    if (post == 1 || post == 3) {
      double mx = -INFINITY;
      for (double a : acc) mx = std::max(mx, a);
      double sum = 0;
      for (double& a : acc) {
        a = (post == 3 && a == 0) ? 0 : std::exp(a - mx);
        sum += a;
      }
      for (double& a : acc) a = sum > 0 ? a / sum : 0;
    } else if (post == 2) {
      for (double& a : acc) a = 1 / (1 + std::exp(-a));
    } else if (post == 4) {
      for (double& a : acc) a = probit(a);
    } else if (post != 0) {
      return ctx.error("TreeEnsemble post_transform " + std::to_string(post) + " is unknown");
    }
    for (int64_t t = 0; t < n_targets; ++t) {
      double a = acc[static_cast<size_t>(t)];
      if (x.dtype() == DataType::kFloat) y.mutable_data<float>()[r * n_targets + t] = static_cast<float>(a);
      else if (x.dtype() == DataType::kDouble) y.mutable_data<double>()[r * n_targets + t] = a;
      else y.mutable_data<Half>()[r * n_targets + t] = Half(static_cast<float>(a));
    }
  }
  ctx.set_output(0, std::move(y));
  return Status::ok();
}

// ---- shape inference
Status infer_tree_ensemble(InferContext& ctx) {
  const TypeInfo& x = ctx.input(0);
  std::optional<SymShape> shape;
  if (x.shape && x.shape->size() == 2) shape = SymShape{(*x.shape)[0], dim(ctx.node().attr_int("n_targets", 0))};
  ctx.output(0) = TypeInfo::tensor(x.elem, shape);
  return Status::ok();
}

}  // namespace

// ---- registration (versions of the ai.onnx.ml domain)
ONNXTRIM_REGISTER_OP(TreeEnsemble, "ai.onnx.ml", "TreeEnsemble", (std::vector<int>{5}), eval_tree_ensemble);
ONNXTRIM_REGISTER_INFER(TreeEnsemble, "ai.onnx.ml", "TreeEnsemble", infer_tree_ensemble);

}  // namespace onnxtrim::ops
