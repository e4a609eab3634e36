// "onnxtrim writes only shapes it has proved" (passes/shape_inference.h): what the written file
// says about a value is what inference proved, never an exporter's hint copied to another
// value; a value of unknown type gets no value_info; long dim expressions are written unnamed.
// And the input is checked first: a node the spec forbids stops the run (issue 16, item 7).
#include <algorithm>
#include <functional>
#include <set>

#include "passes/pass.h"
#include "ops/kernel_util.h"
#include "passes/shape_inference.h"
#include "rewrite_test_util.h"

namespace onnxtrim::test {
namespace {

// The written dims of v, as printed ("?" for unnamed).
std::vector<std::string> dims_of(const ir::Value* v) {
  std::vector<std::string> out;
  for (const ir::Dim& d : v->type.dims) out.push_back(d.str());
  return out;
}

const ir::Value* value_named(const ir::Graph& g, const std::string& name) {
  const ir::Value* v = g.find_value(name);
  EXPECT_NE(v, nullptr) << name;
  return v;
}

// The value produced by the only node of type `op` in g.
const ir::Value* output_of(const ir::Graph& g, const std::string& op, size_t k = 0) {
  const ir::Value* out = nullptr;
  size_t found = 0;
  g.for_each_node([&](const ir::Node* n) {
    if (n->op_type == op && found++ == k) out = n->output(0);
  });
  EXPECT_NE(out, nullptr) << op;
  return out;
}

// Every dim_param written in value_info of g (and its subgraphs), with the values naming it.
void collect_params(const ir::Graph& g, std::map<std::string, std::set<std::string>>* by_param) {
  for (const ir::Value* v : g.value_info_order())
    for (const ir::Dim& d : v->type.dims)
      if (!d.is_known() && !d.param.empty()) (*by_param)[d.param].insert(v->name());
  g.for_each_node([&](const ir::Node* n) {
    for (const ir::Graph* sg : n->subgraphs()) collect_params(*sg, by_param);
  });
}

// Item 1 of issue 16, smallest form: two values whose lengths come from two NonZero nodes,
// each through If(dim == 1, Squeeze, Identity) (torch's squeeze(1) of a dim not known to be 1),
// and every branch output declares the one dim `n`. The conditions are decided and the
// branches inlined; `n` must not reach the two values, whose sizes differ.
constexpr const char* kTwoSqueezes = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[a] x1, float[b] x2) => (float r1, float r2) {
  one = Constant<value = int64 {1}>()
  ax = Constant<value = int64[1] {1}>()
  nz1 = NonZero(x1)
  t1 = Transpose<perm = [1, 0]>(nz1)
  sh1 = Shape(t1)
  d1 = Gather<axis = 0>(sh1, one)
  c1 = Equal(d1, one)
  s1 = If(c1) <
    then_branch = th1 () => (int64[n] o1) { o1 = Squeeze(t1, ax) },
    else_branch = el1 () => (int64[n, 1] e1) { e1 = Identity(t1) }
  >
  f1 = Cast<to = 1>(s1)
  r1 = ReduceSum<keepdims = 0>(f1)
  nz2 = NonZero(x2)
  t2 = Transpose<perm = [1, 0]>(nz2)
  sh2 = Shape(t2)
  d2 = Gather<axis = 0>(sh2, one)
  c2 = Equal(d2, one)
  s2 = If(c2) <
    then_branch = th2 () => (int64[n] o2) { o2 = Squeeze(t2, ax) },
    else_branch = el2 () => (int64[n, 1] e2) { e2 = Identity(t2) }
  >
  f2 = Cast<to = 1>(s2)
  r2 = ReduceSum<keepdims = 0>(f2)
}
)";

TEST(WrittenFacts, BranchDimNamesDoNotReachInlinedValues) {
  auto s = simplify_text(kTwoSqueezes);
  ASSERT_TRUE(s.model);
  EXPECT_EQ(count_ops(*s.model->graph, "If"), 0u) << s.printed;  // both conditions decided
  const ir::Value* sq1 = output_of(*s.model->graph, "Squeeze", 0);
  const ir::Value* sq2 = output_of(*s.model->graph, "Squeeze", 1);
  ASSERT_TRUE(sq1 && sq2);
  // Each has one unnamed dim: its length is NonZero's count, unknown and unrelated.
  EXPECT_EQ(dims_of(sq1), std::vector<std::string>{"?"});
  EXPECT_EQ(dims_of(sq2), std::vector<std::string>{"?"});
  EXPECT_EQ(sq1->type.elem, ir::DataType::kInt64);
  std::map<std::string, std::set<std::string>> params;
  collect_params(*s.model->graph, &params);
  EXPECT_EQ(params.count("n"), 0u);
  expect_same_outputs(s, 4, {{"a", 7}, {"b", 5}});
}

TEST(WrittenFacts, BranchDimNamesStayOffAnIfThatStays) {
  // Conditions that are graph inputs: the Ifs stay, and their outputs (merged from branches
  // that both say `n`) get no name; the branch outputs lose the unproved `n` too.
  std::string text = kTwoSqueezes;
  auto replace = [&](const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("float[b] x2)", "float[b] x2, bool k1, bool k2)");
  replace("s1 = If(c1)", "s1 = If(k1)");
  replace("s2 = If(c2)", "s2 = If(k2)");
  auto s = simplify_text(text);
  ASSERT_TRUE(s.model);
  EXPECT_EQ(count_ops(*s.model->graph, "If"), 2u);
  std::map<std::string, std::set<std::string>> params;
  collect_params(*s.model->graph, &params);
  EXPECT_EQ(params.count("n"), 0u);
  s.model->graph->for_each_node([&](const ir::Node* n) {
    if (n->op_type != "If") return;
    for (const ir::Graph* b : n->subgraphs())
      for (const ir::Value* o : b->outputs())
        for (const ir::Dim& d : o->type.dims) EXPECT_NE(d.param, "n") << o->name();
  });
}

TEST(WrittenFacts, InterfaceNamesAreKeptAndProvedOnesWritten) {
  // Names built from the inputs' dim names are proved: a Concat of [seq] and [seq] is 2*seq.
  // A graph output keeps what it declares (the model's interface).
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[seq] x) => (float[total] y) {
  c = Concat<axis = 0>(x, x)
  e = Exp(c)
  y = Neg(e)
}
)");
  ASSERT_TRUE(s.model);
  EXPECT_EQ(dims_of(value_named(*s.model->graph, "c")), std::vector<std::string>{"2*seq"});
  EXPECT_TRUE(value_named(*s.model->graph, "c")->has_value_info);
  EXPECT_EQ(dims_of(s.model->graph->outputs()[0]), std::vector<std::string>{"total"});
}

TEST(WrittenFacts, HintsNamedLikeNothingKnownAreDropped) {
  // value_info from the file naming an intermediate dim `k` (not an input's dim name): the name
  // is dropped, since nothing proves it; its fixed size is kept for that value.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[a, 3] x) => (float[a, 3] y) <float[k, 3] e> {
  e = Exp(x)
  y = Neg(e)
}
)");
  ASSERT_TRUE(s.model);
  EXPECT_EQ(dims_of(value_named(*s.model->graph, "e")), (std::vector<std::string>{"a", "3"}));
  std::map<std::string, std::set<std::string>> params;
  collect_params(*s.model->graph, &params);
  EXPECT_EQ(params.count("k"), 0u);
}

// Item 2: an element type that cannot be inferred (behind a custom-domain op) gives no value_info,
// for tensors and for sequences alike.
TEST(WrittenFacts, UnknownElementTypesGetNoValueInfo) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 13, "com.microsoft" : 1]>
g (float[2, 3] x) => (float[4, 3] y, int64 n) {
  g1 = com.microsoft.Gelu(x)
  c = Concat<axis = 0>(g1, x)
  r = Relu(c)
  y = Neg(r)
  sq = SequenceConstruct(g1, g1)
  n = SequenceLength(sq)
}
)");
  ASSERT_TRUE(s.model);
  for (const ir::Value* v : s.model->graph->value_info_order()) {
    EXPECT_NE(v->name(), "c");
    EXPECT_NE(v->name(), "r");
    EXPECT_NE(v->name(), "sq");
    if (v->type.is_tensor()) {
      EXPECT_NE(v->type.elem, ir::DataType::kUndefined) << v->name();
    }
  }
  EXPECT_EQ(s.model->graph->outputs()[0]->type.elem, ir::DataType::kFloat);
}

// Item 2, optionals: an Optional of a value of unknown element type (and the If that picks
// it) is written without value_info, and nothing written holds element type 0 at any depth.
bool has_undefined_elem(const ir::Type& t) {
  if (t.is_tensor()) return t.elem == ir::DataType::kUndefined;
  return t.inner && has_undefined_elem(*t.inner);
}

TEST(WrittenFacts, OptionalsOfUnknownElementTypeGetNoValueInfo) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 16, "com.microsoft" : 1]>
g (float[2, 3] x, bool c) => (float[2, 3] y) {
  g1 = com.microsoft.Gelu(x)
  o = Optional(g1)
  p = If(c) <
    then_branch = t1 () => (o1) { o1 = Identity(o) },
    else_branch = t2 () => (o2) { o2 = Identity(o) }
  >
  y = com.microsoft.FromOptional(p)
}
)");
  ASSERT_TRUE(s.model);
  std::function<void(const ir::Graph&)> check = [&](const ir::Graph& g) {
    for (const ir::Value* v : g.value_info_order()) {
      EXPECT_NE(v->name(), "o");
      EXPECT_NE(v->name(), "p");
      EXPECT_FALSE(has_undefined_elem(v->type)) << v->name();
    }
    for (const ir::Value* v : g.outputs()) EXPECT_FALSE(has_undefined_elem(v->type)) << v->name();
    g.for_each_node([&](const ir::Node* n) {
      for (const ir::Graph* sg : n->subgraphs()) check(*sg);
    });
  };
  check(*s.model->graph);
  EXPECT_FALSE(value_named(*s.model->graph, "o")->has_value_info);
}

TEST(WrittenFacts, AReshapeBehindACustomOpGetsNoValueInfo) {
  // Issue 12, F5: com.microsoft.Gelu -> Reshape wrote a value_info of shape [3, 4] and element
  // type 0, which ONNX Runtime refuses to load.
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 13, "com.microsoft" : 1]>
g (float[2, 6] x) => (float[3, 4] y) {
  g1 = com.microsoft.Gelu(x)
  sh = Constant<value = int64[2] {3, 4}>()
  r = Reshape(g1, sh)
  y = Neg(r)
}
)");
  ASSERT_TRUE(s.model);
  EXPECT_FALSE(value_named(*s.model->graph, "r")->has_value_info);
  for (const ir::Value* v : s.model->graph->value_info_order())
    if (v->type.is_tensor()) {
      EXPECT_NE(v->type.elem, ir::DataType::kUndefined) << v->name();
    }
}

TEST(WrittenFacts, DeclaredElementTypeZeroIsDropped) {
  // A value_info with element type 0 in the input file is not written back.
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 13, "custom" : 1]>
g (float[2] x) => (float[2] y) {
  u = custom.Op(x)
  y = Neg(u)
}
)");
  ASSERT_TRUE(m);
  ir::Value* u = m->graph->find_value("u");
  u->type = ir::Type::tensor(ir::DataType::kUndefined, {ir::Dim::known(2)});
  u->has_value_info = true;
  m->graph->value_info_order().push_back(u);
  passes::SimplifyOptions o;
  ASSERT_TRUE(passes::simplify(*m, o).is_ok());
  EXPECT_FALSE(m->graph->find_value("u")->has_value_info);
  for (const ir::Value* v : m->graph->value_info_order()) EXPECT_NE(v->name(), "u");
}

// Item 3: long dim expressions are written unnamed; short ones by name.
TEST(WrittenFacts, LongDimExpressionsAreWrittenUnnamed) {
  auto s = simplify_text(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[alpha] a, float[beta] b, float[gamma] c, float[delta] d, float[epsilon] e, float[zeta] f) => (float[t] y) {
  ab = Concat<axis = 0>(a, b)
  all = Concat<axis = 0>(a, b, c, d, e, f)
  s = Exp(all)
  z = Exp(ab)
  y = Concat<axis = 0>(s, z)
}
)");
  ASSERT_TRUE(s.model);
  EXPECT_EQ(dims_of(value_named(*s.model->graph, "ab")), std::vector<std::string>{"alpha + beta"});
  // alpha + beta + delta + epsilon + gamma + zeta: 45 characters, more than the bound.
  EXPECT_EQ(dims_of(value_named(*s.model->graph, "all")), std::vector<std::string>{"?"});
  EXPECT_TRUE(value_named(*s.model->graph, "all")->has_value_info);
  EXPECT_EQ(value_named(*s.model->graph, "all")->type.rank(), 1);
}

// ---------------------------------------------------------------- item 7: the input is checked

Status simplify_status(const std::string& text) {
  auto m = parse(text);
  if (!m) return Status(ErrorCode::kInternal, "parse");
  passes::SimplifyOptions o;
  auto r = passes::simplify(*m, o);
  return r.is_ok() ? Status::ok() : r.status();
}

TEST(InputCheck, AnInputTypeTheOpDoesNotTakeStopsTheRun) {
  Status st = simplify_status(R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64[4] x) => (int64[4] y) {
  y = Sqrt(x)
}
)");
  EXPECT_EQ(st.code(), ErrorCode::kInvalidModel);
  EXPECT_NE(st.message().find("Sqrt"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("int64"), std::string::npos) << st.message();
}

TEST(InputCheck, InputsThatMustShareATypeDoNot) {
  Status st = simplify_status(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x, int64[4] k) => (float[4] y) {
  y = Add(x, k)
}
)");
  EXPECT_EQ(st.code(), ErrorCode::kInvalidModel);
  EXPECT_NE(st.message().find("one element type"), std::string::npos) << st.message();
}

TEST(InputCheck, AnUnsqueezeAxisOutOfRangeStopsTheRun) {
  Status st = simplify_status(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x) => (float[4, 1] y) {
  ax = Constant<value = int64[1] {5}>()
  y = Unsqueeze(x, ax)
}
)");
  EXPECT_EQ(st.code(), ErrorCode::kInvalidModel);
  EXPECT_NE(st.message().find("Unsqueeze axes [5]"), std::string::npos) << st.message();
}

TEST(InputCheck, SplitSizesThatDoNotAddUpStopTheRun) {
  Status st = simplify_status(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[5, 2] x) => (float[2, 2] y1, float[2, 2] y2) {
  sp = Constant<value = int64[2] {2, 2}>()
  y1, y2 = Split<axis = 0>(x, sp)
}
)");
  EXPECT_EQ(st.code(), ErrorCode::kInvalidModel);
  EXPECT_NE(st.message().find("add up to 4 but the split dim is 5"), std::string::npos) << st.message();
}

TEST(InputCheck, AnInvalidNodeInsideABranchStopsTheRun) {
  Status st = simplify_status(R"(
<ir_version: 8, opset_import: ["" : 16]>
g (bool c, int64[4] x) => (int64[4] y) {
  y = If(c) <
    then_branch = t1 () => (int64[4] o1) { o1 = Sqrt(x) },
    else_branch = t2 () => (int64[4] o2) { o2 = Neg(x) }
  >
}
)");
  EXPECT_EQ(st.code(), ErrorCode::kInvalidModel);
  EXPECT_NE(st.message().find("Sqrt"), std::string::npos) << st.message();
}

TEST(InputCheck, ValidNodesOfTheSameKindsPass) {
  EXPECT_TRUE(simplify_status(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] x, int64[4] k, float[5, 2] z) => (float[4] y, float[4, 1] u, float[2, 2] y1, float[3, 2] y2, int64[4] kk) {
  y = Sqrt(x)
  ax = Constant<value = int64[1] {-1}>()
  u = Unsqueeze(x, ax)
  sp = Constant<value = int64[2] {2, 3}>()
  y1, y2 = Split<axis = 0>(z, sp)
  kk = Add(k, k)
}
)")
                  .is_ok());
}

}  // namespace
}  // namespace onnxtrim::test

namespace onnxtrim::test {
namespace {

// A pass context with a facts cache, as the pass manager gives the passes of a run.
struct SharedFacts {
  explicit SharedFacts(ir::Model& m) : ctx{m, options, &warnings, &cache} {}
  passes::SimplifyOptions options;
  std::vector<std::string> warnings;
  passes::FactsCache cache;
  passes::PassContext ctx;
};

// y = Identity(Relu(x)): one node whose output a test replaces.
const char* kReluIdentity = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,4] x) => (float[N,4] y) {
  r = Relu(x)
  y = Identity(r)
}
)";

// The facts shared by the passes of a run: the same object while no rewriter changed the
// model, a fresh one (describing the change) after a change.
TEST(FactsCache, ReusedUntilARewriterChangesTheModel) {
  auto m = parse(kReluIdentity);
  ASSERT_TRUE(m);
  SharedFacts shared(*m);
  passes::FactsCache& cache = shared.cache;
  passes::PassContext& ctx = shared.ctx;
  ir::Rewriter rw(*m);
  cache.begin(&rw);
  auto a = passes::current_facts(ctx);
  ASSERT_TRUE(a);
  EXPECT_EQ(passes::current_facts(ctx).get(), a.get());
  ir::Value* r = m->graph->find_value("r");
  ASSERT_NE(r, nullptr);
  ir::Node* relu = r->producer();
  ASSERT_TRUE(rw.replace_all_uses_with(r, relu->input(0)));
  auto b = passes::current_facts(ctx);
  ASSERT_TRUE(b);
  EXPECT_NE(b.get(), a.get());
  cache.end();
  // A later pass with its own rewriter sees the same facts until it changes something.
  ir::Rewriter rw2(*m);
  cache.begin(&rw2);
  EXPECT_EQ(passes::current_facts(ctx).get(), b.get());
  cache.end();
  // Without a cache every request infers afresh.
  passes::PassContext bare{*m, shared.options, &shared.warnings};
  EXPECT_NE(passes::current_facts(bare).get(), passes::current_facts(bare).get());
}

// Facts written back are not written again while the model is unchanged: the cache says so
// until a pass changes something, and only for the value_info it was written with.
TEST(FactsCache, WrittenFactsAreWrittenOnceUntilAChange) {
  auto m = parse(kReluIdentity);
  ASSERT_TRUE(m);
  SharedFacts shared(*m);
  passes::FactsCache& cache = shared.cache;
  ir::Rewriter rw(*m);
  cache.begin(&rw);
  auto a = passes::current_facts(shared.ctx);
  ASSERT_TRUE(a);
  EXPECT_FALSE(cache.written(a.get(), false));
  a->write_back(rw, /*add_value_info=*/false);
  cache.store(a);
  cache.note_written(a.get(), false);
  EXPECT_TRUE(cache.written(a.get(), false));
  EXPECT_FALSE(cache.written(a.get(), true)) << "value_info was not added";
  cache.note_written(a.get(), true);
  EXPECT_TRUE(cache.written(a.get(), false));
  cache.end();
  ir::Rewriter rw2(*m);
  cache.begin(&rw2);
  EXPECT_TRUE(cache.written(a.get(), true)) << "a new pass changed nothing yet";
  ir::Value* r = m->graph->find_value("r");
  ASSERT_TRUE(rw2.replace_all_uses_with(r, r->producer()->input(0)));
  EXPECT_FALSE(cache.written(a.get(), true));
  cache.end();
}

// The value_info the first run of infer_shapes writes is added before the first round (which
// then writes nothing again); without infer_shapes in the pipeline none is added.
TEST(FactsCache, ValueInfoOnlyWhenInferShapesRuns) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,4] x) => (float[N,4] y) {
  r = Relu(x)
  e = Exp(r)
  y = Neg(e)
}
)";
  for (bool skip : {false, true}) {
    auto m = parse(text);
    ASSERT_TRUE(m);
    passes::SimplifyOptions o;
    if (skip) o.skip = {"infer_shapes"};
    auto res = passes::simplify(*m, o);
    ASSERT_TRUE(res.is_ok()) << res.status().message();
    for (const char* name : {"r", "e"}) {
      const ir::Value* v = m->graph->find_value(name);
      ASSERT_NE(v, nullptr) << name;
      EXPECT_EQ(v->has_value_info, !skip) << name;
      EXPECT_EQ(v->type.dims.size(), 2u) << name;  // typed either way
    }
    if (!skip) {
      const auto& ps = res.value().passes;
      auto it = std::find_if(ps.begin(), ps.end(), [](const auto& p) { return p.name == "infer_shapes"; });
      ASSERT_NE(it, ps.end());
      EXPECT_EQ(it->changes, 0) << "the facts were written again";
    }
  }
}

// After a change the facts are brought up to date from the rewriter's log: the touched node and
// what its new facts reach are inferred again, in place when nobody else holds the facts, in a
// copy otherwise; a change the log cannot name (note_change()) makes them inferred afresh.
TEST(FactsCache, BroughtUpToDateFromTheLoggedChanges) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,4] x) => (float[N,4] y) {
  r = Relu(x)
  s = Constant<value = int64[3] {0, 2, 2}>()
  t = Reshape(r, s)
  u = Shape(t)
  y = Identity(r)
}
)");
  ASSERT_TRUE(m);
  SharedFacts shared(*m);
  passes::FactsCache& cache = shared.cache;
  passes::PassContext& ctx = shared.ctx;
  const ir::Value* t = m->graph->find_value("t");
  const ir::Value* u = m->graph->find_value("u");
  ir::Node* constant = m->graph->find_value("s")->producer();
  auto dims = [](const passes::ShapeInference& si, const ir::Value* v) {
    std::string out;
    for (const auto& e : *si.facts(v)->shape) out += e.str() + ",";
    return out;
  };
  ir::Rewriter rw(*m);
  cache.begin(&rw);
  auto a = passes::current_facts(ctx);
  ASSERT_TRUE(a);
  EXPECT_EQ(dims(*a, t), "N,2,2,");
  const passes::ShapeInference* first = a.get();
  a.reset();  // nobody holds them but the cache
  rw.set_attribute(constant, ir::Attribute::make_tensor("value", ops::make_tensor<int64_t>({3}, {0, 1, 4})));
  auto b = passes::current_facts(ctx);
  ASSERT_TRUE(b);
  EXPECT_EQ(b.get(), first);  // in place
  EXPECT_EQ(dims(*b, t), "N,1,4,");
  ASSERT_TRUE(b->facts(u)->values);
  EXPECT_EQ((*b->facts(u)->values)[2].str(), "4");  // and what it reaches
  // Held by a pass: brought up to date in a copy; the held facts still describe what they did.
  rw.set_attribute(constant, ir::Attribute::make_tensor("value", ops::make_tensor<int64_t>({3}, {0, 4, 1})));
  auto c = passes::current_facts(ctx);
  ASSERT_TRUE(c);
  EXPECT_NE(c.get(), b.get());
  EXPECT_EQ(dims(*c, t), "N,4,1,");
  EXPECT_EQ(dims(*b, t), "N,1,4,");
  // A change without a node: inferred afresh.
  rw.note_change();
  const passes::ShapeInference* before = c.get();
  c.reset();
  b.reset();
  auto d = passes::current_facts(ctx);
  ASSERT_TRUE(d);
  EXPECT_NE(d.get(), before);
  EXPECT_EQ(dims(*d, t), "N,4,1,");
  cache.end();
}

// Initializers made by a pass (a node's output made a constant, a new one) are logged by the
// rewriter, the main graph's only (a body's change names its owner); bringing the facts up to
// date seeds them again, with their values, and infers again what reads them.
TEST(FactsCache, InitializersMadeSinceAreSeededAgain) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N,4] x, bool c) => (int64[2] z, float[N,4] y) {
  s = Shape(x)
  z = Identity(s)
  y = If(c) <then_branch = t () => (float[N,4] a) { a = Identity(x) },
              else_branch = e () => (float[N,4] b) { b = Neg(x) }>
}
)");
  ASSERT_TRUE(m);
  passes::ShapeInference si(*m, {});
  ASSERT_TRUE(si.run().is_ok());
  const ir::Value* z = m->graph->find_value("z");
  ASSERT_TRUE(si.facts(z) && si.facts(z)->values);
  EXPECT_EQ((*si.facts(z)->values)[0].str(), "N");
  ir::Rewriter rw(*m);
  ir::ChangeLog log;
  rw.set_log(&log);
  ir::Value* s = m->graph->find_value("s");
  rw.make_constant(s, ops::make_tensor<int64_t>({2}, {3, 4}));
  ir::Value* w = rw.add_initializer(*m->graph, ops::make_tensor<int64_t>({1}, {7}), "w");
  ir::Graph* body = m->graph->find_value("y")->producer()->subgraphs()[0];
  ir::Value* inner = rw.add_initializer(*body, ops::make_tensor<int64_t>({1}, {8}), "inner");
  rw.set_log(nullptr);
  EXPECT_EQ(log.initializers, (std::vector<const ir::Value*>{s, w}));
  EXPECT_TRUE(std::find(log.initializers.begin(), log.initializers.end(), inner) == log.initializers.end());
  si.refresh(log.nodes, &log.initializers);
  const ops::TypeInfo* fz = si.facts(z);
  ASSERT_TRUE(fz && fz->values && fz->values->size() == 2u);
  EXPECT_EQ((*fz->values)[0].str(), "3");
  EXPECT_EQ((*fz->values)[1].str(), "4");
  const ops::TypeInfo* fw = si.facts(w);
  ASSERT_TRUE(fw && fw->values && fw->values->size() == 1u);
  EXPECT_EQ((*fw->values)[0].str(), "7");
}

// The first dim of v's facts, of rank 2.
symbolic::Expr first_dim(const passes::ShapeInference& si, const ir::Value* v) {
  const ops::TypeInfo* f = si.facts(v);
  EXPECT_TRUE(f && f->shape && f->shape->size() == 2u) << v->name();
  return f && f->shape && !f->shape->empty() ? (*f->shape)[0] : symbolic::Expr();
}

// m's values c1 and c2 are [unknown, 1], with unknowns of their own: they stay the same when
// the producers of the values named in `touched` are inferred again, and are new ones (still
// apart) when a change no node names makes the facts inferred afresh.
void expect_unknowns_kept(ir::Model& m, const std::vector<std::string>& touched) {
  SharedFacts shared(m);
  passes::PassContext& ctx = shared.ctx;
  const ir::Value* c1 = m.graph->find_value("c1");
  const ir::Value* c2 = m.graph->find_value("c2");
  ASSERT_TRUE(c1 && c2);
  ir::Rewriter rw(m);
  shared.cache.begin(&rw);
  auto a = passes::current_facts(ctx);
  ASSERT_TRUE(a);
  const symbolic::Expr u1 = first_dim(*a, c1), u2 = first_dim(*a, c2);
  EXPECT_TRUE(u1.is_fresh());
  EXPECT_NE(u1, u2);
  const passes::ShapeInference* first = a.get();
  a.reset();
  for (const std::string& name : touched) rw.note_change(m.graph->find_value(name)->producer());
  auto b = passes::current_facts(ctx);
  ASSERT_TRUE(b);
  EXPECT_EQ(b.get(), first);
  EXPECT_EQ(first_dim(*b, c1), u1);
  EXPECT_EQ(first_dim(*b, c2), u2);
  rw.note_change();
  b.reset();
  auto c = passes::current_facts(ctx);
  ASSERT_TRUE(c);
  EXPECT_NE(first_dim(*c, c1), u1);
  EXPECT_NE(first_dim(*c, c1), first_dim(*c, c2));
  shared.cache.end();
}

// A node inferred again names its unknowns as it did last time, so that what its facts reach
// is not inferred again for new names of the same unknowns; two nodes' unknowns stay apart.
TEST(FactsCache, ANodeInferredAgainKeepsItsUnknowns) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x1, float[N] x2) => (float[?,1] y1, float[?,1] y2) {
  z1 = NonZero(x1)
  z2 = NonZero(x2)
  t1 = Transpose(z1)
  t2 = Transpose(z2)
  c1 = Cast<to = 1>(t1)
  c2 = Cast<to = 1>(t2)
  y1 = Relu(c1)
  y2 = Relu(c2)
}
)");
  ASSERT_TRUE(m);
  expect_unknowns_kept(*m, {"z1", "z2"});
}

// The unknowns made inside a node's inference (a function's body, inferred once per call) are
// the node's own: two calls of one function count different things, before and after both
// calls are inferred again.
TEST(FactsCache, TwoCallsOfAFunctionKeepTheirUnknownsApart) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[N] x1, float[N] x2) => (float[?,1] y1, float[?,1] y2) {
  c1 = local.NZ(x1)
  c2 = local.NZ(x2)
  y1 = Relu(c1)
  y2 = Relu(c2)
}
<domain: "local", opset_import: ["" : 17]>
NZ (x) => (y) {
  z = NonZero(x)
  t = Transpose(z)
  y = Cast<to = 1>(t)
}
)");
  ASSERT_TRUE(m);
  expect_unknowns_kept(*m, {"c1", "c2"});
}

// A change inside a body is logged as a change of the main-graph node that owns it; a change
// to a main-graph initializer names no node (initializers are all looked at again).
TEST(FactsCache, ChangesInsideABodyNameItsOwner) {
  auto m = parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x, bool c) => (float[4] y) {
  k = Constant<value = float[4] {1, 2, 3, 4}>()
  y = If(c) <
    then_branch = tb () => (float[4] a) { a = Relu(x) },
    else_branch = eb () => (float[4] b) { b = Neg(x) }
  >
}
)");
  ASSERT_TRUE(m);
  ir::Node* owner = m->graph->find_value("y")->producer();
  ir::Graph* then_body = owner->subgraphs()[0];
  ir::Node* relu = nullptr;
  then_body->for_each_node([&](ir::Node* n) { relu = n; });
  ASSERT_NE(relu, nullptr);
  ir::Rewriter rw(*m);
  ir::ChangeLog log;
  rw.set_log(&log);
  rw.set_op_type(relu, "Abs");
  ASSERT_EQ(log.nodes.size(), 1u);
  EXPECT_EQ(log.nodes[0], owner);
  log.clear();
  rw.add_initializer(*m->graph, ops::make_tensor<float>({1}, {1.0f}), "one");
  EXPECT_TRUE(log.nodes.empty());
  EXPECT_FALSE(log.whole);
  rw.note_change();
  EXPECT_TRUE(log.whole);
  rw.set_log(nullptr);
  rw.set_op_type(relu, "Relu");
  EXPECT_EQ(log.nodes.size(), 0u);
}

}  // namespace
}  // namespace onnxtrim::test
