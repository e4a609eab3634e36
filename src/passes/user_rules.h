// User rewrite rules: rules a user hands to one run, from the CLI (--rewrite-rules FILE) or an
// API (C++, C, Python). Two kinds, both passes of the fixed point named "user:NAME", run after
// the built-in passes in every round (docs/rewrite-rules.md):
//
//  - a pattern and its replacement, two ONNX functions (NAME and NAME_replacement). The pattern's
//    inputs are wildcards; its nodes match by op type, domain and attributes (an attribute
//    `@name` is a wildcard the replacement may use); the two operands of a commutative op match
//    either way round; a pattern Constant matches an equal constant (same type, shape and bytes);
//    a match whose inner values are read outside it (or are graph outputs) is refused. A rule of
//    the rewrite contract (rule.h), so --explain says why it does not fire.
//  - a callback that gets the model as it is, and returns it changed (or nothing).
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/rewriter.h"
#include "passes/pass_manager.h"
#include "support/status.h"

namespace onnxtrim::passes {

// Thrown by a user pass that fails (a callback that threw or reported an error, a result that
// changes the model's interface): the driver stops the run with its status.
class UserRuleFailure : public std::runtime_error {
 public:
  explicit UserRuleFailure(Status s) : std::runtime_error(s.message()), status_(std::move(s)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

// The pattern rules of a rules model: its functions NAME and NAME_replacement, in the order of the
// patterns. Errors name `where` (the file) and the function.
Result<std::vector<UserPass>> pattern_rules(std::shared_ptr<const ir::Model> rules, const std::string& where);

// Reads FILE: a binary ONNX model (name ending in .onnx) whose functions are the pairs, or ONNX
// text holding only functions.
Result<std::vector<UserPass>> load_rewrite_rules(const std::string& path);

// A callback rule: `rewrite` gets the model as it is and returns the changed model, or null when
// it changed nothing; it throws (any std::exception) to fail the run. The model it returns must
// have the same graph inputs and outputs (by name, in order).
using ModelRewrite = std::function<std::unique_ptr<ir::Model>(const ir::Model& current)>;
UserPass callback_rule(const std::string& name, ModelRewrite rewrite);

// Replaces the main graph of `live` by a copy of `next`'s, through rw (graph inputs and output
// names kept; what `next` shares with `live` by name and contents, initializers, is reused).
// `who` names the rule in errors.
Status replace_main_graph(ir::Model& live, const ir::Model& next, ir::Rewriter& rw, const std::string& who);

}  // namespace onnxtrim::passes
