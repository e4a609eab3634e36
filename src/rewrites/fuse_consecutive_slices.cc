// Slice(Slice(x, s1, e1, axes1, steps1), s2, e2, axes2, steps2) -> Slice(x, s, e, axes, steps)
//   An axis sliced by one of them keeps its window. An axis sliced by both, each with step 1,
//   takes [s1 + s2, min(e1, s1 + e2)) with every bound resolved to be non-negative (negative
//   bounds need the dim; with an unknown dim both must already be non-negative, and the runtime
//   clamps the result to the dim exactly as it would have clamped the two windows).
// Pure data movement: exact for every type.
// Refuses: non-constant parameters, a shared axis where a step is not 1 or a bound cannot be
// resolved, an inner Slice output with other consumers or that is a graph output.
#include <algorithm>
#include <limits>

#include "ops/fold.h"
#include "ops/kernel_util.h"
#include "passes/rule.h"
#include "rewrites/slice_spec.h"

namespace onnxtrim::passes {
namespace {

int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::numeric_limits<int64_t>::max();
  return r;
}

struct SliceWindows {
  ir::Node* inner = nullptr;
  std::map<int64_t, AxisWindow> windows;
};

class FuseConsecutiveSlices final : public Rule<SliceWindows> {
 public:
  std::vector<std::string> roots() const override { return {"Slice"}; }

 protected:
  Match<SliceWindows> match(const ir::Node& s2, RuleContext& ctx) override {
    const int64_t opset = ctx.opset();
    ir::Node* s1 = const_cast<ir::Node*>(private_producer(s2.input(0), "Slice", &s2));
    if (!s1 || !s1->input(0)) return refuse("the input is not a Slice read only by this one");
    ir::Value* x = s1->input(0);
    int64_t rank = x->type.rank();
    auto w1 = slice_windows(*s1, opset, rank);
    auto w2 = slice_windows(s2, opset, rank);
    if (!w1 || !w2) return refuse("a Slice's parameters are not constant");
    auto merged = merge(*w1, *w2, x);
    if (!merged) return refuse("an axis both slice has a step other than 1 or a bound that cannot be resolved");
    return SliceWindows{s1, std::move(*merged)};
  }

  void apply(ir::Node& s2, SliceWindows& f, RuleContext& ctx, ir::Rewriter& rw) override {
    write(*f.inner, s2, f.windows, ctx.opset(), ctx.graph(), rw);
  }

 private:
  static std::optional<std::map<int64_t, AxisWindow>> merge(const std::map<int64_t, AxisWindow>& w1,
                                                            const std::map<int64_t, AxisWindow>& w2,
                                                            const ir::Value* x) {
    std::map<int64_t, AxisWindow> out = w1;
    for (const auto& [a, b] : w2) {
      auto it = out.find(a);
      if (it == out.end()) {
        out[a] = b;
        continue;
      }
      std::optional<int64_t> d = known_dim(x, a);
      auto r1 = resolve_window(it->second, d);
      if (!r1) return std::nullopt;
      std::optional<int64_t> d1;
      if (d) d1 = std::max<int64_t>(0, r1->second - r1->first);
      auto r2 = resolve_window(b, d1);
      if (!r2) return std::nullopt;
      it->second = AxisWindow{sat_add(r1->first, r2->first), std::min(r1->second, sat_add(r1->first, r2->second)), 1};
    }
    return out;
  }

  static void write(ir::Node& s1, ir::Node& s2, const std::map<int64_t, AxisWindow>& w, int64_t opset, ir::Graph& g,
                    ir::Rewriter& rw) {
    std::vector<int64_t> starts, ends, axes, steps;
    for (const auto& [a, win] : w) {
      axes.push_back(a);
      starts.push_back(win.start);
      ends.push_back(win.end);
      steps.push_back(win.step);
    }
    auto n = static_cast<int64_t>(axes.size());
    std::string base = s2.output(0)->name();
    if (opset < 10) {
      rw.set_attribute(&s2, ir::Attribute::make_ints("starts", starts));
      rw.set_attribute(&s2, ir::Attribute::make_ints("ends", ends));
      rw.set_attribute(&s2, ir::Attribute::make_ints("axes", axes));
    } else {
      rw.set_input(&s2, 1, rw.add_initializer(g, ops::make_tensor<int64_t>({n}, starts), base + "_starts"));
      rw.set_input(&s2, 2, rw.add_initializer(g, ops::make_tensor<int64_t>({n}, ends), base + "_ends"));
      rw.set_input(&s2, 3, rw.add_initializer(g, ops::make_tensor<int64_t>({n}, axes), base + "_axes"));
      rw.set_input(&s2, 4, rw.add_initializer(g, ops::make_tensor<int64_t>({n}, steps), base + "_steps"));
    }
    rw.set_input(&s2, 0, s1.input(0));
    rw.erase_node_and_dead_producers(&s1);
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseConsecutiveSlices, "fuse_consecutive_slices",
    "Slice of a Slice with constant parameters -> one Slice (disjoint axes, or the same axis with step 1); "
    "refuses unresolvable negative bounds, other steps on a shared axis, shared intermediates");

}  // namespace onnxtrim::passes
