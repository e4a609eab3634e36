// The check's making: which sizes the original runs at (sizes.h), whether one sample fits the
// budget of multiply-adds (--verify-budget), the original's recorded outputs (eval::Verifier),
// and the comparison as the report's Verification. The driver's check stage, the --dtype
// stage and the public verify() use it.
#include <algorithm>
#include <cstdio>

#include "driver/driver.h"
#include "driver/sizes.h"
#include "eval/interpreter.h"
#include "ops/registry.h"
#include "passes/shape_inference.h"

namespace onnxtrim::driver {

// Multiply-adds of one run of the main graph with every input dim fixed (the check's inputs):
// each node's cost rule from its op file (ops::CostContext), one per output element for an op
// without one.
double estimate_macs(const ir::Model& m, const eval::InputSpec& spec) {
  passes::ShapeInference si(m, infer_options(spec));
  if (!si.run().is_ok()) return 0;
  const ops::CostContext sizes([&](const ir::Value* v) -> std::optional<std::vector<int64_t>> {
    const ops::TypeInfo* t = si.facts(v);
    return t ? t->static_shape() : std::nullopt;
  });
  const ops::OpRegistry& reg = ops::OpRegistry::instance();
  double macs = 0;
  m.graph->for_each_node([&](const ir::Node* n) { macs += reg.cost(*n, sizes); });
  return macs;
}

eval::InputSpec::Fill input_fill(const Options& o) {
  if (o.input_fill == "ones") return eval::InputSpec::Fill::kOnes;
  if (o.input_fill == "zeros") return eval::InputSpec::Fill::kZeros;
  if (o.input_fill == "arange") return eval::InputSpec::Fill::kArange;
  return eval::InputSpec::Fill::kRandom;
}

// What fixes the sizes of the check's inputs: --dim, --input-shape, --input, and a dim the
// candidate declares fixed. The other symbolic dims are free: size_candidates sizes them.
eval::InputSpec check_spec(const ir::Model& m, const ir::Model& candidate, const Options& o, std::string* error,
                           const std::map<std::string, std::string>& renamed) {
  eval::InputSpec spec;
  spec.dims = o.dims;
  spec.fill = input_fill(o);
  // A dim the candidate declares fixed (simplified for one size) where the original has a
  // symbol: that size.
  for (const ir::Value* v : m.graph->inputs()) {
    if (v->is_initializer() || !v->type.has_shape) continue;
    auto rn = renamed.find(v->name());
    const std::string& cname = rn == renamed.end() ? v->name() : rn->second;
    for (const ir::Value* c : candidate.graph->inputs()) {
      if (c->name() != cname || !c->type.has_shape || c->type.rank() != v->type.rank()) continue;
      for (size_t i = 0; i < v->type.dims.size(); ++i) {
        const ir::Dim& d = v->type.dims[i];
        if (!d.is_known() && !d.param.empty() && c->type.dims[i].is_known() && !spec.dims.count(d.param))
          spec.dims[d.param] = *c->type.dims[i].value;
      }
    }
  }
  spec.shapes = resolve_shapes(m, o.input_shapes);
  for (const auto& [k, v] : resolve_shapes(m, o.check_input_shapes)) spec.shapes[k] = v;
  for (const auto& p : o.input_values) {
    Status st = eval::pin_input(m, p, spec);
    if (!st.is_ok()) {
      *error = st.message();
      return spec;
    }
  }
  return spec;
}

namespace {

std::string gmac_str(double macs) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", macs / 1e9);
  return b;
}

}  // namespace

// Makes the checker of `original`: runs it on random inputs. In auto mode anything that keeps
// the check from running is a reason to skip it (returned in *skipped); with --verify it is an
// error.
std::unique_ptr<eval::Verifier> make_checker(const ir::Model& original, const ir::Model& simplified, const Options& o,
                                             std::string* skipped, double* macs_out, const surgery::Plan* plan,
                                             int stack) {
  bool forced = o.verify == Options::Verify::kOn;
  auto give_up = [&](const Status& st, const std::string& advice) -> std::unique_ptr<eval::Verifier> {
    if (forced) throw_if_error(st);
    *skipped = st.message() + advice;
    return nullptr;
  };
  {
    eval::Interpreter probe(original);
    Status st = probe.check_supported();
    if (!st.is_ok()) return give_up(st, "; the result was written unchecked");
  }
  // The free symbolic dims grow until the original runs (a convolution stack needs a minimum
  // image size, a spectrogram a minimum signal length); dims that look like a batch stay 1.
  std::string err;
  eval::InputSpec given =
      check_spec(original, simplified, o, &err, plan ? plan->renamed : std::map<std::string, std::string>{});
  if (!err.empty()) throw Error(kExitUsage, err);
  const std::vector<SizeCandidate> cands = size_candidates(original, given);
  std::vector<Status> failures;
  Status last;
  for (size_t i = 0; i < cands.size(); ++i) {
    const eval::InputSpec& spec = cands[i].spec;
    if (!forced) {
      double macs = estimate_macs(simplified, spec) * std::max(1, stack);
      if (macs_out) *macs_out = macs;
      if (macs > o.verify_budget_gmac * 1e9) {
        *skipped = "one sample needs about " + gmac_str(macs) + " GMAC";
        if (i > 0)
          *skipped += " with " + describe_sizes(cands[i]) +
                      " (the original fails on smaller sizes: " + failures.back().message() + ")";
        *skipped += ", over the budget of " + gmac_str(o.verify_budget_gmac * 1e9) +
                    " (force the check with --verify, or raise --verify-budget";
        *skipped += i > 0 ? ", or give sizes with --dim, --input-shape or --input)" : ")";
        return nullptr;
      }
    }
    eval::VerifyOptions vo;
    vo.samples = o.samples > 0 ? o.samples : 1;
    vo.seed = o.seed;
    vo.rtol = o.rtol;
    vo.atol = o.atol;
    vo.inputs = spec;
    vo.fast = true;  // float accumulation, as ONNX Runtime computes: both models alike
    if (plan) {
      vo.carried = plan->carried;
      vo.renamed = plan->renamed;
      vo.stack = stack;
      vo.stacked = plan->batched_inputs;
    }
    auto v = eval::Verifier::create(original, vo);
    if (v) {
      v.value()->set_sizes(explain_sizes(cands, i, failures));
      return std::move(v).value();
    }
    last = v.status();
    if (last.code() == ErrorCode::kInterrupted) throw_if_error(last);
    if (last.code() == ErrorCode::kUsage || last.code() == ErrorCode::kUnsupported) break;
    failures.push_back(last);
  }
  std::string tried = sizes_tried(cands);
  return give_up(last, last.code() == ErrorCode::kUsage
                           ? ""
                           : " (the original model fails on these random inputs" + (tried.empty() ? "" : ", " + tried) +
                                 ": give sizes with --dim, --input-shape or --input)");
}

Verification run_check(const eval::Verifier& checker, const ir::Model& candidate, const Options& o,
                       const eval::CompareExtras& extras) {
  Verification v;
  auto rep = checker.compare_with(candidate, extras);
  throw_if_error(rep.is_ok() ? Status::ok() : rep.status());
  v.ran = true;
  v.ok = rep.value().ok;
  v.samples = o.samples > 0 ? o.samples : 1;
  v.rtol = o.rtol;
  v.atol = o.atol;
  v.l2_tol = extras.l2_tol;
  v.dims = checker.dims_used();
  v.sizes = checker.sizes();
  v.why = rep.value().why;
  for (const auto& od : rep.value().outputs) {
    bool comparable = od.not_comparable.empty();
    v.outputs.push_back(OutputCheck{od.name, od.diff.max_abs, od.diff.max_rel, od.diff.scale, od.diff.rel_l2,
                                    od.diff.ok, comparable ? od.diff.why : od.not_comparable, comparable});
  }
  const eval::RandomHandling& r = rep.value().random;
  v.random = r.summary();
  v.random_alike = r.alike;
  v.random_unmatched = r.unmatched;
  v.random_seeded = r.seeded;
  return v;
}

}  // namespace onnxtrim::driver
