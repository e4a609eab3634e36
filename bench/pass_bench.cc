// Pipeline benchmarks (figures for the README; not a timed test):
//  1. the default pipeline on synthetic chains of 1k, 10k and 100k nodes full of plumbing
//     (Identity, x*1, Transpose pairs, no-op Casts, dead branches): time per node must stay flat
//     (no pass walks the whole graph per rewrite);
//  2. shape inference alone on the same chains;
//  3. folding a graph of 1,000 small constant nodes.
//
//   pass_bench [--sizes 1000,10000,100000]
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "ir/rewriter.h"
#include "ops/kernel_util.h"
#include "passes/pass_manager.h"
#include "passes/shape_inference.h"

using namespace onnxtrim;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// A chain of `n` nodes on x: [batch, 64] floats.
std::unique_ptr<ir::Model> make_chain(int n) {
  auto m = std::make_unique<ir::Model>();
  m->ir_version = 8;
  m->opset_import.push_back({"", 17, 0});
  ir::Graph& g = *m->graph;
  g.name = "chain";
  ir::Value* x = g.create_value("x");
  x->type = ir::Type::tensor(ir::DataType::kFloat, {ir::Dim::symbol("batch"), ir::Dim::known(64)});
  g.add_input(x);
  ir::Rewriter rw(*m);
  ir::Value* one = rw.add_initializer(g, ops::make_tensor<float>({1}, {1.0f}), "one");
  ir::Value* cur = x;
  auto node = [&](const char* op, std::vector<ir::Value*> in) {
    ir::Node* nd = rw.insert_node(g, nullptr, op, in, 1, op);
    return nd;
  };
  int made = 0;
  while (made < n) {
    switch (made % 6) {
      case 0: cur = node("Identity", {cur})->output(0); break;
      case 1: cur = node("Mul", {cur, one})->output(0); break;
      case 2: {
        ir::Node* t = node("Transpose", {cur});
        t->attributes.push_back(ir::Attribute::make_ints("perm", {1, 0}));
        cur = t->output(0);
        break;
      }
      case 3: {
        ir::Node* t = node("Transpose", {cur});
        t->attributes.push_back(ir::Attribute::make_ints("perm", {1, 0}));
        cur = t->output(0);
        break;
      }
      case 4: {
        ir::Node* c = node("Cast", {cur});
        c->attributes.push_back(ir::Attribute::make_int("to", 1));
        cur = c->output(0);
        break;
      }
      default: {
        node("Exp", {cur});  // dead branch
        cur = node("Relu", {cur})->output(0);
        ++made;
        break;
      }
    }
    ++made;
  }
  ir::Value* y = g.create_value("y");
  ir::Node* last = g.append_node("Neg");
  g.add_node_input(last, cur);
  g.add_node_output(last, y);
  g.add_output(y);
  return m;
}

// Constant -> Add -> Mul -> ... on small tensors: everything folds.
std::unique_ptr<ir::Model> make_constants(int n) {
  auto m = std::make_unique<ir::Model>();
  m->ir_version = 8;
  m->opset_import.push_back({"", 17, 0});
  ir::Graph& g = *m->graph;
  ir::Rewriter rw(*m);
  ir::Value* cur = rw.add_initializer(g, ops::make_tensor<float>({4}, {1, 2, 3, 4}), "c0");
  for (int i = 0; i < n; ++i) {
    ir::Value* k = rw.add_initializer(g, ops::make_tensor<float>({4}, {0.5f, 1, 1, 0.25f}), "k");
    cur = rw.insert_node(g, nullptr, i % 2 ? "Mul" : "Add", {cur, k}, 1, "op")->output(0);
  }
  ir::Value* y = g.create_value("y");
  ir::Node* last = g.append_node("Identity");
  g.add_node_input(last, cur);
  g.add_node_output(last, y);
  g.add_output(y);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {1000, 10000, 100000};
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--sizes" && i + 1 < argc) {
      sizes.clear();
      std::stringstream ss(argv[++i]);
      std::string tok;
      while (std::getline(ss, tok, ',')) sizes.push_back(std::stoi(tok));
    }
  std::printf("%10s %12s %14s %14s %12s %14s\n", "nodes", "after", "pipeline (s)", "us per node", "infer (s)",
              "us per node");
  for (int n : sizes) {
    auto m = make_chain(n);
    size_t before = m->graph->num_nodes();
    double t0 = now();
    passes::ShapeInference si(*m);
    (void)si.run();
    double ti = now() - t0;
    passes::SimplifyOptions o;
    double t1 = now();
    auto r = passes::simplify(*m, o);
    double tp = now() - t1;
    if (!r) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      return 1;
    }
    std::printf("%10zu %12zu %14.3f %14.2f %12.3f %14.2f\n", before, m->graph->num_nodes(), tp, tp / before * 1e6, ti,
                ti / before * 1e6);
    if (std::getenv("PASS_BENCH_DETAIL"))
      for (const auto& p : r.value().passes)
        std::printf("    %-34s %8.3f s  %lld runs\n", p.name.c_str(), p.seconds, static_cast<long long>(p.runs));
  }
  {
    auto m = make_constants(1000);
    passes::SimplifyOptions o;
    o.only = {"fold_constants"};
    double t0 = now();
    auto r = passes::simplify(*m, o);
    double t = now() - t0;
    std::printf("folding 1000 constant nodes: %.1f ms (%zu nodes left, %d rounds)\n", t * 1e3, m->graph->num_nodes(),
                r ? r.value().rounds : -1);
  }
  return 0;
}
