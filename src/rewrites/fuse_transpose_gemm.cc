// Gemm(Transpose(a, perm = [1, 0]), B, C, transA = t) -> Gemm(a, B, C, transA = 1 - t)
// Gemm(A, Transpose(b, perm = [1, 0]), C, transB = t) -> Gemm(A, b, C, transB = 1 - t)
// Pure data movement: exact for every type.
// Refuses: a Transpose output with other consumers (the same Gemm reading it twice included) or
// that is a graph output, a perm other than [1, 0] (or absent on a 2-D input).
#include "passes/rule.h"

namespace onnxtrim::passes {
namespace {

// Which of the Gemm's A and B are such Transposes.
struct GemmTransposes {
  bool a = false, b = false;
};

class FuseTransposeGemm final : public Rule<GemmTransposes> {
 public:
  std::vector<std::string> roots() const override { return {"Gemm"}; }

 protected:
  Match<GemmTransposes> match(const ir::Node& n, RuleContext&) override {
    GemmTransposes s{swaps_2d(n.input(0), &n), swaps_2d(n.input(1), &n)};
    if (!s.a && !s.b) return refuse("neither A nor B is a [1, 0] Transpose read only by the Gemm");
    return s;
  }

  void apply(ir::Node& n, GemmTransposes& s, RuleContext&, ir::Rewriter& rw) override {
    for (size_t side = 0; side < 2; ++side) {
      if (!(side == 0 ? s.a : s.b)) continue;
      ir::Node* tr = n.input(side)->producer();
      const char* flag = side == 0 ? "transA" : "transB";
      rw.set_attribute(&n, ir::Attribute::make_int(flag, n.attr_int(flag, 0) != 0 ? 0 : 1));
      rw.set_input(&n, side, tr->input(0));
      rw.erase_node(tr);
    }
  }

 private:
  static bool swaps_2d(const ir::Value* v, const ir::Node* gemm) {
    const ir::Node* tr = private_producer(v, "Transpose", gemm);
    if (!tr || !tr->input(0)) return false;
    std::vector<int64_t> perm = tr->attr_ints("perm");
    if (perm.empty()) return tr->input(0)->type.rank() == 2;  // reversed axes
    return perm == std::vector<int64_t>{1, 0};
  }
};

}  // namespace

ONNXTRIM_REGISTER_RULE(
    FuseTransposeGemm, "fuse_transpose_gemm",
    "Transpose (perm [1,0]) of a Gemm input A or B -> the transA/transB toggle; refuses shared or graph-output "
    "transposes");

}  // namespace onnxtrim::passes
