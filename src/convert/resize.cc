// Version steps of Upsample and Resize:
//
//   Upsample-9     scales attribute <-> input
//   Upsample (removed at 10) -> Resize-10: the same operator (asymmetric coordinates, nearest
//                  rounds down); below 10, Resize-10 goes back to Upsample-9
//   Resize-11      roi input and the coordinate/nearest modes: up, Resize-10's meaning spelled
//                  out (asymmetric, floor); down, only that meaning (sizes become scales when the
//                  input's shape is known and the scales give exactly those sizes)
//   Resize-13      roi and scales optional: down, empty tensors in their place
//   Resize-18      axes: down, scales (1 elsewhere) or sizes (the input's dims elsewhere) over
//                  every axis; antialias and keep_aspect_ratio_policy only at their defaults
//   Resize-19      coordinate mode half_pixel_symmetric is new
//   RoiAlign-16    coordinate_transformation_mode is new and its default (half_pixel) is not
//                  what RoiAlign-10 computes (output_half_pixel): written out going up, required
//                  going down
//   GridSample-20  modes renamed: bilinear -> linear, bicubic -> cubic
#include <cmath>

#include "convert/opset_context.h"
#include "ir/dtype.h"

namespace onnxtrim::convert {
namespace {

std::string hint(const ir::Node& n, const char* what) { return (n.name.empty() ? n.op_type : n.name) + "_" + what; }

ir::Value* float_list(StepContext& ctx, ir::Node& n, const std::vector<double>& v, const char* what) {
  return ctx.const_of(*n.graph(), &n, ir::DataType::kFloat, v, hint(n, what), {static_cast<int64_t>(v.size())});
}

Status step_upsample9(StepContext& ctx, ir::Node& n, bool up) {
  if (up) {
    const ir::Attribute* a = n.attr("scales");
    if (!a) return Status::ok();
    if (!a->ref_attr_name.empty()) return ctx.refuse(n, "scales refers to an attribute of the calling function");
    std::vector<double> s(a->floats.begin(), a->floats.end());
    ctx.rw().remove_attribute(&n, "scales");
    ctx.rw().set_input(&n, 1, float_list(ctx, n, s, "scales"));
    return Status::ok();
  }
  auto s = ctx.floats(n.input(1));
  if (!s) return ctx.refuse(n, "input 'scales' is not a constant, so it cannot become Upsample-7's attribute");
  ir::Attribute a;
  a.name = "scales";
  a.type = ir::AttrType::kFloats;
  for (double x : *s) a.floats.push_back(static_cast<float>(x));
  ctx.rw().set_attribute(&n, a);
  ctx.rw().remove_trailing_inputs(&n, 1);
  return Status::ok();
}

// Upsample (7 or 9) -> Resize-10.
Status step_upsample10(StepContext& ctx, ir::Node& n, bool up) {
  if (!up) return Status::ok();
  if (n.attr("scales")) OT_RETURN_IF_ERROR(step_upsample9(ctx, n, true));
  std::string mode = n.attr_string("mode", "nearest");
  if (mode == "bilinear") ctx.rw().set_attribute(&n, ir::Attribute::make_string("mode", "linear"));
  ctx.rw().set_op_type(&n, "Resize");
  return Status::ok();
}

// Resize-10 -> Upsample-9 (below 10).
Status expand_resize(StepContext& ctx, ir::Node& n) {
  ctx.rw().set_op_type(&n, "Upsample");
  ctx.made().emplace_back(&n, 9);
  return Status::ok();
}

Status step_resize11(StepContext& ctx, ir::Node& n, bool up) {
  ir::Graph& g = *n.graph();
  if (up) {
    ir::Value* scales = n.input(1);
    ctx.rw().set_input(&n, 1, float_list(ctx, n, {}, "roi"));
    ctx.rw().set_input(&n, 2, scales);
    ctx.rw().set_attribute(&n, ir::Attribute::make_string("coordinate_transformation_mode", "asymmetric"));
    if (n.attr_string("mode", "nearest") == "nearest")
      ctx.rw().set_attribute(&n, ir::Attribute::make_string("nearest_mode", "floor"));
    return Status::ok();
  }
  for (const char* a : {"coordinate_transformation_mode", "nearest_mode", "mode", "exclude_outside", "cubic_coeff_a",
                        "extrapolation_value"})
    if (attr_is_ref(n, a)) return ctx.refuse(n, std::string(a) + " refers to an attribute of the calling function");
  std::string coord = n.attr_string("coordinate_transformation_mode", "half_pixel");
  std::string mode = n.attr_string("mode", "nearest");
  if (coord != "asymmetric")
    return ctx.refuse(n, "coordinate_transformation_mode '" + coord +
                             "' has no equivalent in Resize-10 (which computes 'asymmetric')");
  if (mode == "cubic") return ctx.refuse(n, "mode 'cubic' has no equivalent in Resize-10");
  if (mode == "nearest" && n.attr_string("nearest_mode", "round_prefer_floor") != "floor")
    return ctx.refuse(n, "nearest_mode '" + n.attr_string("nearest_mode", "round_prefer_floor") +
                             "' has no equivalent in Resize-10 (which rounds down)");
  if (n.attr_int("exclude_outside", 0) != 0) return ctx.refuse(n, "exclude_outside=1 has no equivalent in Resize-10");
  ir::Value* scales = n.input(2);
  if (ir::Value* sizes = n.input(3)) {
    auto sz = ctx.ints(sizes);
    auto in = ctx.static_shape(n.input(0));
    if (!sz || !in || sz->size() != in->size())
      return ctx.refuse(n, "Resize-10 takes scales only: sizes must be a constant and the input's shape known");
    std::vector<double> s;
    for (size_t i = 0; i < sz->size(); ++i) {
      if ((*in)[i] == 0) return ctx.refuse(n, "cannot turn sizes into scales over an empty dim");
      float f = static_cast<float>(static_cast<double>((*sz)[i]) / static_cast<double>((*in)[i]));
      if (static_cast<int64_t>(std::floor(static_cast<double>((*in)[i]) * static_cast<double>(f))) != (*sz)[i])
        return ctx.refuse(n, "the sizes are not reached exactly by any float scale");
      s.push_back(f);
    }
    scales = float_list(ctx, n, s, "scales");
  } else if (!scales) {
    return ctx.refuse(n, "Resize without scales or sizes");
  }
  for (const char* a :
       {"coordinate_transformation_mode", "nearest_mode", "exclude_outside", "cubic_coeff_a", "extrapolation_value"})
    if (n.attr(a)) ctx.rw().remove_attribute(&n, a);
  ctx.rw().remove_trailing_inputs(&n, 1);
  ctx.rw().set_input(&n, 1, scales);
  (void)g;
  return Status::ok();
}

Status step_resize13(StepContext& ctx, ir::Node& n, bool up) {
  if (up) return Status::ok();
  if (!n.input(1)) ctx.rw().set_input(&n, 1, float_list(ctx, n, {}, "roi"));
  if (!n.input(2)) ctx.rw().set_input(&n, 2, float_list(ctx, n, {}, "scales"));
  return Status::ok();
}

Status step_resize18(StepContext& ctx, ir::Node& n, bool up) {
  if (up || !n.has_attr("axes")) return Status::ok();
  bool ref = false;
  auto axes = attr_ints(n, "axes", &ref);
  if (ref) return ctx.refuse(n, "axes refers to an attribute of the calling function");
  int64_t r = ctx.rank(n.input(0));
  if (r < 0) return ctx.refuse(n, "Resize's axes need the input's rank, which is not known");
  std::vector<int64_t> pos;
  for (int64_t a : *axes) {
    int64_t x = a < 0 ? a + r : a;
    if (x < 0 || x >= r) return ctx.refuse(n, "Resize axis out of range");
    pos.push_back(x);
  }
  if (n.attr_string("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize")
    return ctx.refuse(n, "tf_crop_and_resize with axes: the roi would have to be spread too");
  if (n.input(2)) {
    auto s = ctx.floats(n.input(2));
    if (s && !s->empty()) {
      if (s->size() != pos.size()) return ctx.refuse(n, "scales do not match axes");
      std::vector<double> full(static_cast<size_t>(r), 1.0);
      for (size_t i = 0; i < pos.size(); ++i) full[static_cast<size_t>(pos[i])] = (*s)[i];
      ctx.rw().set_input(&n, 2, float_list(ctx, n, full, "scales"));
    } else if (!s) {
      return ctx.refuse(n, "Resize's scales must be a constant to be spread over every axis");
    }
  }
  if (n.input(3)) {
    auto sz = ctx.ints(n.input(3));
    auto in = ctx.static_shape(n.input(0));
    if (!sz || !in || sz->size() != pos.size())
      return ctx.refuse(n,
                        "Resize's sizes must be a constant and the input's shape known to be spread over every axis");
    std::vector<int64_t> full = *in;
    for (size_t i = 0; i < pos.size(); ++i) full[static_cast<size_t>(pos[i])] = (*sz)[i];
    ctx.rw().set_input(&n, 3, ctx.const_i64(*n.graph(), &n, full, hint(n, "sizes")));
  }
  ctx.rw().remove_attribute(&n, "axes");
  return Status::ok();
}

Status step_resize19(StepContext& ctx, ir::Node& n, bool up) {
  return refuse_value_before(ctx, n, up, "coordinate_transformation_mode", "half_pixel", "half_pixel_symmetric", 19);
}

Status step_roi_align16(StepContext& ctx, ir::Node& n, bool up) {
  if (attr_is_ref(n, "coordinate_transformation_mode"))
    return ctx.refuse(n, "coordinate_transformation_mode refers to an attribute of the calling function");
  if (up) {
    if (!n.has_attr("coordinate_transformation_mode"))
      ctx.rw().set_attribute(&n, ir::Attribute::make_string("coordinate_transformation_mode", "output_half_pixel"));
    return Status::ok();
  }
  std::string mode = n.attr_string("coordinate_transformation_mode", "half_pixel");
  if (mode != "output_half_pixel")
    return ctx.refuse(n, "coordinate_transformation_mode '" + mode + "' has no equivalent in RoiAlign-10");
  ctx.rw().remove_attribute(&n, "coordinate_transformation_mode");
  return Status::ok();
}

Status step_grid_sample20(StepContext& ctx, ir::Node& n, bool up) {
  if (attr_is_ref(n, "mode")) return ctx.refuse(n, "mode refers to an attribute of the calling function");
  std::string mode = n.attr_string("mode", up ? "bilinear" : "linear");
  std::string to = mode;
  if (up && mode == "bilinear") to = "linear";
  if (up && mode == "bicubic") to = "cubic";
  if (!up && mode == "linear") to = "bilinear";
  if (!up && mode == "cubic") to = "bicubic";
  ctx.rw().set_attribute(&n, ir::Attribute::make_string("mode", to));
  return Status::ok();
}

}  // namespace

ONNXTRIM_OPSET_STEP(roi_align16, "RoiAlign", 16, step_roi_align16);
ONNXTRIM_OPSET_STEP(grid_sample20, "GridSample", 20, step_grid_sample20);
ONNXTRIM_OPSET_STEP(upsample9, "Upsample", 9, step_upsample9);
ONNXTRIM_OPSET_STEP(upsample10, "Upsample", 10, step_upsample10);
ONNXTRIM_OPSET_EXPANSION(resize, "Resize", expand_resize);
ONNXTRIM_OPSET_STEP(resize11, "Resize", 11, step_resize11);
ONNXTRIM_OPSET_STEP(resize13, "Resize", 13, step_resize13);
ONNXTRIM_OPSET_STEP(resize18, "Resize", 18, step_resize18);
ONNXTRIM_OPSET_STEP(resize19, "Resize", 19, step_resize19);

}  // namespace onnxtrim::convert
