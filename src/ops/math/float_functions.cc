// The float functions of one element: Exp, Log, Sqrt, the trigonometric and hyperbolic
// functions and their inverses, Erf, Reciprocal, Sigmoid, Softplus, Softsign, HardSwish, Mish,
// Ceil, Floor, Round. What they share: one input of a float type and an output of its type and
// shape (infer_same), each element computed in double by the row's function and rounded to the
// type (unary_float); all are element-wise. Ceil, Floor and Round are idempotent, f(f(x)) ->
// f(x). Erf's type constraint is the spec's (numbers), its kernel takes float types like the
// others'. One row of the table below is one op: its versions, its function, its types.
#include <cmath>

#include "ops/math/elementwise.h"

namespace onnxtrim::ops {
namespace {
using namespace math;

// ---- evaluate: F(x) in double, rounded to the element type (a kernel of its own for each F,
// which calls it directly)
template <double (*F)(double)>
Status map_float(KernelContext& ctx) {
  return unary_float(ctx, [](double x) { return F(x); });
}

// ---- local folds: f(f(x)) -> f(x) (math::fold_idempotent), in the rows that name it
const Folds kFloatIdempotent = {{"eliminate_idempotent_ops", fold_idempotent}};

// ---- registration (versions from Changelog.md)
// A row: input 0 of type T, the output of its shape and type, element-wise.
OpRegistration float_function(const char* op, std::vector<int> versions, EvalFn eval, uint64_t types = kFloatTypes,
                              Folds folds = {}) {
  return elementwise_op(op, std::move(versions), eval, infer_same, "T", types, std::move(folds));
}

const OpRegistration kFloatFunctions[] = {
    float_function("Acos", {7, 22}, map_float<+[](double x) { return std::acos(x); }>),
    float_function("Acosh", {9, 22}, map_float<+[](double x) { return std::acosh(x); }>),
    float_function("Asin", {7, 22}, map_float<+[](double x) { return std::asin(x); }>),
    float_function("Asinh", {9, 22}, map_float<+[](double x) { return std::asinh(x); }>),
    float_function("Atan", {7, 22}, map_float<+[](double x) { return std::atan(x); }>),
    float_function("Atanh", {9, 22}, map_float<+[](double x) { return std::atanh(x); }>),
    float_function("Ceil", {1, 6, 13}, map_float<+[](double x) { return std::ceil(x); }>, kFloatTypes,
                   kFloatIdempotent),
    float_function("Cos", {7, 22}, map_float<+[](double x) { return std::cos(x); }>),
    float_function("Cosh", {9, 22}, map_float<+[](double x) { return std::cosh(x); }>),
    float_function("Erf", {9, 13}, map_float<+[](double x) { return std::erf(x); }>, kNumericTypes),
    float_function("Exp", {1, 6, 13}, map_float<+[](double x) { return std::exp(x); }>),
    float_function("Floor", {1, 6, 13}, map_float<+[](double x) { return std::floor(x); }>, kFloatTypes,
                   kFloatIdempotent),
    float_function("HardSwish", {14, 22},
                   map_float<+[](double x) { return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5)); }>),
    float_function("Log", {1, 6, 13}, map_float<+[](double x) { return std::log(x); }>),
    float_function("Mish", {18, 22}, map_float<+[](double x) {
                     return x * std::tanh(x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)));
                   }>),
    float_function("Reciprocal", {1, 6, 13}, map_float<+[](double x) { return 1.0 / x; }>),
    float_function("Round", {11, 22}, map_float<+[](double x) { return std::nearbyint(x); }>, kFloatTypes,
                   kFloatIdempotent),
    float_function(
        "Sigmoid", {1, 6, 13},
        map_float<+[](double x) { return (x >= 0) ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }>),
    float_function("Sin", {7, 22}, map_float<+[](double x) { return std::sin(x); }>),
    float_function("Sinh", {9, 22}, map_float<+[](double x) { return std::sinh(x); }>),
    float_function(
        "Softplus", {1, 22},
        map_float<+[](double x) { return (x > 0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }>),
    float_function("Softsign", {1, 22}, map_float<+[](double x) { return x / (1.0 + std::fabs(x)); }>),
    float_function("Sqrt", {1, 6, 13}, map_float<+[](double x) { return std::sqrt(x); }>),
    float_function("Tan", {7, 22}, map_float<+[](double x) { return std::tan(x); }>),
    float_function("Tanh", {1, 6, 13}, map_float<+[](double x) { return std::tanh(x); }>),
};

}  // namespace

ONNXTRIM_REGISTER_OPS(FloatFunctions, kFloatFunctions);

}  // namespace onnxtrim::ops
