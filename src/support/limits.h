// Bounds on what one evaluation may materialize, so that a hostile but well-formed model
// (ConstantOfShape of 10^12 elements, a Range to 10^12, a Loop of 10^12 trips) ends with one
// clear error instead of an out-of-memory kill or a hang.
//
// Every tensor the evaluator allocates goes through ir::Tensor, whose constructor asks
// charge_tensor(); the interpreter asks charge_step() for every node it runs. Over a limit,
// both throw LimitExceeded, which the interpreter turns into an "unsupported" Status naming
// the node. Limits are per thread and scoped (ScopedLimits): fold_constants bounds what one
// fold may compute, the fuzzers bound a whole input. Outside any scope, one tensor may not be
// larger than the machine's physical memory and nothing else is bounded.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace onnxtrim {

struct EvalLimits {
  uint64_t max_tensor_bytes = 0;  // one tensor (0: the machine's physical memory)
  uint64_t max_total_bytes = 0;   // all tensors allocated while in force (0: unbounded)
  uint64_t max_steps = 0;         // nodes (and subgraph runs) executed while in force (0: unbounded)
};

class LimitExceeded : public std::exception {
 public:
  explicit LimitExceeded(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

// Installs limits for this thread until destroyed (nests: the inner scope's limits apply and
// what it charges also counts against the enclosing scopes).
class ScopedLimits {
 public:
  explicit ScopedLimits(const EvalLimits& limits);
  ~ScopedLimits();
  ScopedLimits(const ScopedLimits&) = delete;
  ScopedLimits& operator=(const ScopedLimits&) = delete;
  // Whether a LimitExceeded was thrown while this scope was innermost or enclosed it.
  bool exceeded() const { return exceeded_; }

 private:
  friend void charge_tensor(int64_t, uint64_t, std::string_view, const std::vector<int64_t>&);
  friend void check_tensor(int64_t, uint64_t, std::string_view, const std::vector<int64_t>&);
  friend void charge_step();
  EvalLimits limits_;
  uint64_t total_bytes_ = 0;
  uint64_t steps_ = 0;
  bool exceeded_ = false;
  ScopedLimits* outer_;
};

// A tensor of `numel` elements (-1: the count overflows int64) taking `bytes` bytes is about
// to be allocated; dtype and dims only word the message. Throws LimitExceeded.
void charge_tensor(int64_t numel, uint64_t bytes, std::string_view dtype, const std::vector<int64_t>& dims);
// Throws LimitExceeded when one tensor of `bytes` would pass the limit for one tensor, without
// counting it: a kernel checks its output's size this way before it builds scratch data for it
// (a gather index of one int64 per output element).
void check_tensor(int64_t numel, uint64_t bytes, std::string_view dtype, const std::vector<int64_t>& dims);
// One node (or one run of a subgraph) is about to execute. Throws LimitExceeded.
void charge_step();
// The product of dims, or -1 when it overflows int64 (or a dim is negative).
int64_t checked_numel(const std::vector<int64_t>& dims);
// "4.0 TB"
std::string human_bytes(double bytes);
uint64_t physical_memory_bytes();

}  // namespace onnxtrim
