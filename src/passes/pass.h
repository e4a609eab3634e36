// Passes and their registry. A pass rewrites one graph through the Rewriter; the PassManager
// (pass_manager.h) calls it on the main graph and on every subgraph, repeats the pipeline to a
// fixed point decided by the Rewriter's change count, and keeps per-pass statistics.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/rewriter.h"

namespace onnxtrim::passes {

struct SimplifyOptions;

struct PassContext {
  ir::Model& model;
  const SimplifyOptions& options;
  std::vector<std::string>* warnings;  // user-facing notes (e.g. "cannot fold X: no kernel")
};

class Pass {
 public:
  virtual ~Pass() = default;
  // Rewrites g (the main graph or a subgraph; outer-scope values are visible through
  // Value::graph()). All changes go through rw.
  virtual void run(ir::Graph& g, ir::Rewriter& rw, PassContext& ctx) = 0;
};

struct PassInfo {
  std::string name;         // the CLI name, the file name, and the report name
  std::string description;  // one line: what it rewrites, when it refuses
  int order = 0;            // position in the default pipeline
  bool default_on = true;
  std::function<std::unique_ptr<Pass>()> make;
};

class PassRegistry {
 public:
  static PassRegistry& instance();
  void add(PassInfo info);
  const PassInfo* find(std::string_view name) const;
  // In pipeline order.
  std::vector<const PassInfo*> all() const;

 private:
  std::map<std::string, PassInfo, std::less<>> passes_;
};

#define ONNXTRIM_REGISTER_PASS(cls, name, order, description)                                   \
  static const bool onnxtrim_pass_registered_##cls = [] {                                       \
    ::onnxtrim::passes::PassRegistry::instance().add(                                           \
        {name, description, order, true, [] { return std::unique_ptr<::onnxtrim::passes::Pass>(new cls()); }}); \
    return true;                                                                                \
  }()

}  // namespace onnxtrim::passes
