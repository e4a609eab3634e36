// NonMaxSuppression (10, 11): per batch and class, greedily selects boxes in decreasing score
// order (ties: lower index first), skipping those with score below score_threshold and those
// whose IoU with an already selected box is strictly greater than iou_threshold, up to
// max_output_boxes_per_class (0 or absent: none). Boxes are corners [y1, x1, y2, x2] in any
// order, or [x_center, y_center, width, height] with center_point_box = 1. Output
// [num_selected, 3] of (batch, class, box).
#include <algorithm>
#include <numeric>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops {
namespace {

struct Box {
  double y1, x1, y2, x2;
};

double iou(const Box& a, const Box& b) {
  double iy1 = std::max(a.y1, b.y1), ix1 = std::max(a.x1, b.x1);
  double iy2 = std::min(a.y2, b.y2), ix2 = std::min(a.x2, b.x2);
  double inter = std::max(0.0, iy2 - iy1) * std::max(0.0, ix2 - ix1);
  double area_a = (a.y2 - a.y1) * (a.x2 - a.x1), area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
  double uni = area_a + area_b - inter;
  return uni > 0 ? inter / uni : 0.0;
}

// ---- evaluate
Status eval_non_max_suppression(KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.has_input(1)) return ctx.error("NonMaxSuppression needs boxes and scores");
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  if (boxes.rank() != 3 || boxes.dims()[2] != 4 || scores.rank() != 3 || scores.dims()[0] != boxes.dims()[0] ||
      scores.dims()[2] != boxes.dims()[1])
    return ctx.error("NonMaxSuppression needs boxes [B, N, 4] and scores [B, C, N]");
  int64_t max_out = ctx.has_input(2) && ctx.input(2).numel() > 0 ? to_int64_vector(ctx.input(2))[0] : 0;
  double iou_th = ctx.has_input(3) && ctx.input(3).numel() > 0 ? element_as_double(ctx.input(3), 0) : 0.0;
  bool has_score_th = ctx.has_input(4) && ctx.input(4).numel() > 0;
  double score_th = has_score_th ? element_as_double(ctx.input(4), 0) : 0.0;
  bool center = ctx.node().attr_int("center_point_box", 0) != 0;
  int64_t B = boxes.dims()[0], N = boxes.dims()[1], C = scores.dims()[1];
  std::vector<int64_t> out;
  std::vector<Box> bx(static_cast<size_t>(N));
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < N; ++i) {
      double v[4];
      for (int k = 0; k < 4; ++k) v[k] = element_as_double(boxes, (b * N + i) * 4 + k);
      Box& o = bx[static_cast<size_t>(i)];
      if (center) {
        o = {v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2};
      } else {
        o = {std::min(v[0], v[2]), std::min(v[1], v[3]), std::max(v[0], v[2]), std::max(v[1], v[3])};
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < N; ++i)
        if (!has_score_th || element_as_double(scores, (b * C + c) * N + i) > score_th) cand.push_back(i);
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t p, int64_t q) {
        return element_as_double(scores, (b * C + c) * N + p) > element_as_double(scores, (b * C + c) * N + q);
      });
      std::vector<int64_t> kept;
      for (int64_t i : cand) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        bool ok = true;
        for (int64_t k : kept)
          if (iou(bx[static_cast<size_t>(i)], bx[static_cast<size_t>(k)]) > iou_th) {
            ok = false;
            break;
          }
        if (ok) kept.push_back(i);
      }
      for (int64_t k : kept) out.insert(out.end(), {b, c, k});
    }
  }
  ctx.set_output(0, make_tensor<int64_t>({static_cast<int64_t>(out.size() / 3), 3}, out));
  return Status::ok();
}

// ---- shape inference: the selection count is data-dependent
Status infer_non_max_suppression(InferContext& ctx) {
  ctx.output(0) = TypeInfo::tensor(DataType::kInt64, SymShape{ctx.fresh(), dim(3)});
  return Status::ok();
}

}  // namespace

// ---- registration (versions from Changelog.md)
ONNXTRIM_REGISTER_OP(NonMaxSuppression, "", "NonMaxSuppression", (std::vector<int>{10, 11}), eval_non_max_suppression);
ONNXTRIM_REGISTER_INFER(NonMaxSuppression, "", "NonMaxSuppression", infer_non_max_suppression);
ONNXTRIM_REGISTER_TYPES(NonMaxSuppression, "", "NonMaxSuppression",
                        "boxes scores max_output_boxes_per_class iou_threshold score_threshold",
                        {{"boxes", type_bits({ir::DataType::kFloat})},
                         {"scores", type_bits({ir::DataType::kFloat})},
                         {"max_output_boxes_per_class", type_bits({ir::DataType::kInt64})},
                         {"iou_threshold", type_bits({ir::DataType::kFloat})},
                         {"score_threshold", type_bits({ir::DataType::kFloat})}});

}  // namespace onnxtrim::ops
