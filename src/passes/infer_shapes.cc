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
    // The facts the other passes share (inferred now only if the model changed since).
    std::shared_ptr<const ShapeInference> si = current_facts(ctx);
    if (!si) {
      InferOptions io;
      io.input_shapes = ctx.options.input_shapes;
      io.dims = ctx.options.dims;
      ShapeInference fresh(ctx.model, io);
      ctx.warnings->push_back("shape inference: " + fresh.run().message());
      return;
    }
    // Facts written back already (before the first round, or by the last run of this pass)
    // with no change since would be written again to no effect (6,800 values of swin_t).
    if (!ctx.facts || !ctx.facts->written(si.get(), ctx.options.write_value_info)) {
      si->write_back(rw, ctx.options.write_value_info);
      // Writing them back changes declarations only, to what the facts hold: they still
      // describe the model, and the next pass need not infer again.
      if (ctx.facts) {
        ctx.facts->store(si);
        ctx.facts->note_written(si.get(), ctx.options.write_value_info);
      }
    }
    for (const auto& w : si->warnings())
      if (std::find(ctx.warnings->begin(), ctx.warnings->end(), w) == ctx.warnings->end()) ctx.warnings->push_back(w);
  }
};

}  // namespace

ONNXTRIM_REGISTER_PASS(
    InferShapes, "infer_shapes",
    "infers element types and symbolic shapes of every value (value_info in the output); never changes graph inputs");

}  // namespace onnxtrim::passes
