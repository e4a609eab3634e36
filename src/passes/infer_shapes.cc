// infer_shapes: fills in every value's element type and shape (symbolic dims such as batch or
// 2*seq), with value propagation of shape tensors, and records them as value_info (unless
// --no-value-info). Graph inputs keep their declared types; outputs only gain missing detail.
// Subgraphs are inferred from their owning If/Loop/Scan node, with the types it gives them, so
// this pass acts on the main graph only (it is a whole-model analysis).
#include <algorithm>

#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "passes/shape_inference.h"

namespace onnxtrim::passes {
namespace {

class InferShapes final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) override {
    if (g.parent() != nullptr) return;
    InferOptions io;
    io.input_shapes = ctx.options.input_shapes;
    io.dims = ctx.options.dims;
    ShapeInference si(ctx.model, io);
    Status st = si.run();
    if (!st.is_ok()) {
      ctx.warnings->push_back("shape inference: " + st.message());
      return;
    }
    si.write_back(rw, ctx.options.write_value_info);
    for (const auto& w : si.warnings())
      if (std::find(ctx.warnings->begin(), ctx.warnings->end(), w) == ctx.warnings->end()) ctx.warnings->push_back(w);
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(InferShapes, "infer_shapes", 10,
                       "infers element types and symbolic shapes of every value (value_info in the output); never changes graph inputs");

}  // namespace onnxtrim::passes
