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
class ShapeInference;

// Shape inference's facts about the model as it is, shared by the passes of one run: the
// PassManager keeps one, so that a pass (on the main graph or on each subgraph) reuses what an
// earlier pass computed as long as no rewriter changed the model since. Whole-model inference
// is the costliest step of most passes, and without sharing, a model with many subgraphs pays
// for it once per subgraph per pass.
class FactsCache {
 public:
  // The pass manager: a pass starts with rw (its changes are counted and logged from here) /
  // has ended.
  void begin(ir::Rewriter* rw) {
    rw_ = rw;
    if (rw_) rw_->set_log(&log_);
  }
  void end() {
    if (rw_) {
      done_ += rw_->changes();
      rw_->set_log(nullptr);
    }
    rw_ = nullptr;
  }
  // The facts stored for the model as it is now, or null.
  std::shared_ptr<const ShapeInference> lookup() const { return generation() == stored_at_ ? stored_ : nullptr; }
  // The stored facts brought up to date with the changes logged since they were stored (the
  // nodes those changes touched, and what their new facts reach, inferred again), or null when
  // nothing is stored or a change was not logged by node.
  std::shared_ptr<const ShapeInference> refreshed();
  void store(std::shared_ptr<const ShapeInference> si) {
    stored_ = std::move(si);
    stored_at_ = generation();
    log_.clear();
  }
  // si's facts were just written back into the model (value_info added too when `value_info`).
  void note_written(const ShapeInference* si, bool value_info) {
    written_ = si;
    written_at_ = generation();
    written_value_info_ = value_info;
  }
  // Whether writing si's facts back (with value_info when `value_info`) would change nothing:
  // they were written and the model has not changed since.
  bool written(const ShapeInference* si, bool value_info) const {
    return si == written_ && written_at_ == generation() && (written_value_info_ || !value_info);
  }

 private:
  int64_t generation() const { return done_ + (rw_ ? rw_->changes() : 0); }
  ir::Rewriter* rw_ = nullptr;
  int64_t done_ = 0;  // changes made by the passes that ended
  int64_t stored_at_ = -1;
  std::shared_ptr<const ShapeInference> stored_;
  ir::ChangeLog log_;                        // changes since stored_
  const ShapeInference* written_ = nullptr;  // the facts written back last, at written_at_
  int64_t written_at_ = -1;
  bool written_value_info_ = false;
};

struct PassContext {
  ir::Model& model;
  const SimplifyOptions& options;
  std::vector<std::string>* warnings;  // user-facing notes (e.g. "cannot fold X: no kernel")
  FactsCache* facts = nullptr;         // null: every request infers afresh
};

// The facts for ctx.model as it is now, inferred with the run's --input-shape/--dim (null when
// inference fails on it). They describe the model at the time of the call: after changing it, a
// pass that needs facts about its changes asks again (what it holds is not updated).
std::shared_ptr<const ShapeInference> current_facts(PassContext& ctx);

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
  bool default_on = true;   // in the default pipeline; its place there: pipeline_order() (pipeline.h)
  std::function<std::unique_ptr<Pass>()> make;
};

class PassRegistry {
 public:
  static PassRegistry& instance();
  void add(PassInfo info);
  const PassInfo* find(std::string_view name) const;
  // In pipeline order (pipeline.h).
  std::vector<const PassInfo*> all() const;

 private:
  std::map<std::string, PassInfo, std::less<>> passes_;
};

// Its place in the pipeline is its entry in pipeline_order() (src/passes/pipeline.cc).
#define ONNXTRIM_REGISTER_PASS(cls, name, description)                                                   \
  static const bool onnxtrim_pass_registered_##cls = [] {                                                \
    ::onnxtrim::passes::PassRegistry::instance().add(                                                    \
        {name, description, true, [] { return std::unique_ptr<::onnxtrim::passes::Pass>(new cls()); }}); \
    return true;                                                                                         \
  }()

}  // namespace onnxtrim::passes
