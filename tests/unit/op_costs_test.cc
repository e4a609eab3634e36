// The check's estimate of multiply-adds (driver::estimate_macs, compared with --verify-budget):
// each op's cost rule, registered in its op file, on single nodes of known shapes (the figures
// worked out by hand below), and on every fixture of tests/models against the table the driver
// held before the rules moved into the op files (kept here as the reference).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "driver/driver.h"
#include "driver/sizes.h"
#include "ops/infer.h"
#include "passes/shape_inference.h"
#include "test_util.h"

namespace onnxtrim {
namespace {

// The estimate for a model whose inputs all have fixed shapes.
double costs_macs_of(const std::string& text) {
  auto m = test::parse(text);
  if (!m) return -1;
  return driver::estimate_macs(*m, eval::InputSpec{});
}

TEST(OpCosts, ConvCountsOneFilterPerOutputElement) {
  // y [1,6,8,8] (pads 1, 3x3, group 2): 384 elements, each over one filter of w [6,2,3,3]:
  // 2*3*3 = 18. 384 * 18 = 6912.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,4,8,8] x, float[6,2,3,3] w) => (float[1,6,8,8] y) {
  y = Conv<group = 2, pads = [1, 1, 1, 1]>(x, w)
})"),
                   6912);
}

TEST(OpCosts, ConvIntegerAndQLinearConvCountTheirFilters) {
  // ConvInteger: y [1,2,3,3] = 18 elements, filter 3*3*3 = 27: 486.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (uint8[1,3,5,5] x, uint8[2,3,3,3] w) => (int32[1,2,3,3] y) {
  y = ConvInteger(x, w)
})"),
                   486);
  // QLinearConv: the weight is input 3. y [1,3,3,3] = 27 elements, filter 2*2*2 = 8: 216.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (uint8[1,2,4,4] x, float[] xs, uint8[] xz, uint8[3,2,2,2] w, float[] ws, uint8[] wz, float[] ys, uint8[] yz)
  => (uint8[1,3,3,3] y) {
  y = QLinearConv(x, xs, xz, w, ws, wz, ys, yz)
})"),
                   216);
}

TEST(OpCosts, ConvTransposeCountsOneFilterPerInputElement) {
  // Each of x's 1*2*3*3 = 18 elements is spread over a filter of w [2,4,3,3]: 4*3*3 = 36.
  // 18 * 36 = 648 (the output [1,4,5,5] has 100 elements: not what is counted).
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,3,3] x, float[2,4,3,3] w) => (float[1,4,5,5] y) {
  y = ConvTranspose(x, w)
})"),
                   648);
}

TEST(OpCosts, MatMulFamilyCountsTheReduction) {
  // [2,3,4,5] x [5,6] -> [2,3,4,6]: 144 elements, each a sum over 5: 720.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4,5] a, float[5,6] b) => (float[2,3,4,6] y) {
  y = MatMul(a, b)
})"),
                   720);
  // MatMulInteger [3,4] x [4,2]: 6 elements over 4: 24.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (uint8[3,4] a, uint8[4,2] b) => (int32[3,2] y) {
  y = MatMulInteger(a, b)
})"),
                   24);
  // QLinearMatMul [2,3] x [3,5]: 10 elements over 3: 30.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (uint8[2,3] a, float[] as, uint8[] az, uint8[3,5] b, float[] bs, uint8[] bz, float[] ys, uint8[] yz)
  => (uint8[2,5] y) {
  y = QLinearMatMul(a, as, az, b, bs, bz, ys, yz)
})"),
                   30);
}

TEST(OpCosts, GemmReadsTransA) {
  // A [4,3] x B [3,5] (+ C): 20 elements over K = 3: 60.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4,3] a, float[3,5] b, float[5] c) => (float[4,5] y) {
  y = Gemm(a, b, c)
})"),
                   60);
  // transA: A [7,2] is [K, M], K = 7; y [2,3]: 6 elements over 7: 42.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[7,2] a, float[7,3] b) => (float[2,3] y) {
  y = Gemm<transA = 1>(a, b)
})"),
                   42);
}

TEST(OpCosts, OtherOpsCountOnePerOutputElement) {
  // Attention has no rule of its own (yet): Y [1,2,4,8] = 64 elements, one each.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 23]>
g (float[1,2,4,8] q, float[1,2,6,8] k, float[1,2,6,8] v) => (float[1,2,4,8] y) {
  y = Attention(q, k, v)
})"),
                   64);
  // Relu then Add: 2*3 + 2*3 = 12.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) {
  r = Relu(x)
  y = Add(r, x)
})"),
                   12);
}

TEST(OpCosts, UnknownSizesCountNothing) {
  // The MatMul's output and K are symbolic (no spec fixes them): 0 for it; the Relu on the
  // fixed [4] input counts 4.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[n,k] a, float[k,3] b, float[4] x) => (float[n,3] y, float[4] z) {
  y = MatMul(a, b)
  z = Relu(x)
})"),
                   4);
}

TEST(OpCosts, MainGraphOnlyAndGraphOutputs) {
  // The If counts its output (3 elements); the MatMul inside its branch is not counted. The
  // MatMul of the main graph, a graph output: [3,4] x [4,1] = 3 elements over 4: 12.
  EXPECT_DOUBLE_EQ(costs_macs_of(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[3,4] a, float[4,1] b) => (float[3,1] y, float[3,1] z) {
  y = MatMul(a, b)
  z = If(c) <
    then_branch = t1 () => (float[3,1] o1) { o1 = MatMul(a, b) },
    else_branch = t2 () => (float[3,1] o2) { o2 = Identity(y) }
  >
})"),
                   15);
}

// The driver's table before the rules moved into the op files (the figures must not change).
double costs_reference_macs(const ir::Model& m, const eval::InputSpec& spec) {
  passes::ShapeInference si(m, driver::infer_options(spec));
  if (!si.run().is_ok()) return 0;
  auto numel = [&](const ir::Value* v) -> double {
    const ops::TypeInfo* t = v ? si.facts(v) : nullptr;
    auto s = t ? t->static_shape() : std::nullopt;
    if (!s) return 0;
    double n = 1;
    for (int64_t d : *s) n *= static_cast<double>(d);
    return n;
  };
  auto dim = [&](const ir::Value* v, int64_t axis) -> double {
    const ops::TypeInfo* t = v ? si.facts(v) : nullptr;
    auto s = t ? t->static_shape() : std::nullopt;
    if (!s || s->empty()) return 0;
    if (axis < 0) axis += static_cast<int64_t>(s->size());
    if (axis < 0 || axis >= static_cast<int64_t>(s->size())) return 0;
    return static_cast<double>((*s)[static_cast<size_t>(axis)]);
  };
  double macs = 0;
  m.graph->for_each_node([&](const ir::Node* n) {
    double out = n->num_outputs() ? numel(n->output(0)) : 0;
    const std::string& op = n->op_type;
    if ((op == "Conv" || op == "ConvInteger" || op == "QLinearConv") && n->num_inputs() > 1) {
      const ir::Value* w = n->input(op == "QLinearConv" ? 3 : 1);
      macs += out * (dim(w, 0) > 0 ? numel(w) / dim(w, 0) : 0);
    } else if (op == "ConvTranspose" && n->num_inputs() > 1) {
      const ir::Value* w = n->input(1);
      macs += numel(n->input(0)) * (dim(w, 0) > 0 ? numel(w) / dim(w, 0) : 0);
    } else if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul" || op == "FusedMatMul") {
      macs += out * dim(n->input(0), -1);
    } else if (op == "Gemm") {
      macs += out * (n->attr_int("transA", 0) ? dim(n->input(0), 0) : dim(n->input(0), 1));
    } else {
      macs += out;
    }
  });
  return macs;
}

TEST(OpCosts, FixturesAsBefore) {
  namespace fs = std::filesystem;
  int models = 0, nonzero = 0;
  for (const auto& e : fs::directory_iterator(std::string(ONNXTRIM_SOURCE_DIR) + "/tests/models")) {
    if (e.path().extension() != ".onnx") continue;
    auto m = onnx_io::load_model(e.path().string());
    ASSERT_TRUE(m.is_ok()) << e.path();
    // The check's first sizes for the model.
    const eval::InputSpec spec = driver::size_candidates(*m.value(), eval::InputSpec{}).front().spec;
    double want = costs_reference_macs(*m.value(), spec);
    EXPECT_DOUBLE_EQ(driver::estimate_macs(*m.value(), spec), want) << e.path().filename();
    ++models;
    nonzero += want > 0;
  }
  std::printf("%d fixtures, %d with a non-zero estimate\n", models, nonzero);
  EXPECT_GE(models, 20);
  EXPECT_GE(nonzero, 15);  // the comparison is not of zeros
}

}  // namespace
}  // namespace onnxtrim
