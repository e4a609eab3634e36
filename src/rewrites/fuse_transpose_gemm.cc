// Gemm(Transpose(a, perm = [1, 0]), B, C, transA = t) -> Gemm(a, B, C, transA = 1 - t)
// Gemm(A, Transpose(b, perm = [1, 0]), C, transB = t) -> Gemm(A, b, C, transB = 1 - t)
// Pure data movement: exact for every type.
// Refuses: a Transpose output with other consumers (the same Gemm reading it twice included) or
// that is a graph output, a perm other than [1, 0] (or absent on a 2-D input).
#include "passes/pass.h"

namespace onnxtrim::passes {
namespace {

class FuseTransposeGemm final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    for (ir::Node* n : g.node_list()) {
      if (n->is_dead() || n->op_type != "Gemm" || !n->is_default_domain()) continue;
      for (size_t side = 0; side < 2; ++side) {
        ir::Value* v = n->input(side);
        if (!swaps_2d(v)) continue;
        ir::Node* tr = v->producer();
        const char* flag = side == 0 ? "transA" : "transB";
        rw.set_attribute(n, ir::Attribute::make_int(flag, n->attr_int(flag, 0) != 0 ? 0 : 1));
        rw.set_input(n, side, tr->input(0));
        rw.erase_node(tr);
      }
    }
  }

 private:
  static bool swaps_2d(const ir::Value* v) {
    if (!v || !v->producer() || v->uses().size() != 1 || v->is_graph_output()) return false;
    const ir::Node& tr = *v->producer();
    if (tr.op_type != "Transpose" || !tr.is_default_domain() || !tr.input(0)) return false;
    std::vector<int64_t> perm = tr.attr_ints("perm");
    if (perm.empty()) return tr.input(0)->type.rank() == 2;  // reversed axes
    return perm == std::vector<int64_t>{1, 0};
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(FuseTransposeGemm, "fuse_transpose_gemm", 540,
                       "Transpose (perm [1,0]) of a Gemm input A or B -> the transA/transB toggle; refuses shared or graph-output "
                       "transposes");

}  // namespace onnxtrim::passes
