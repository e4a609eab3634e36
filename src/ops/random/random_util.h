// Shared by the random-generation ops (RandomUniform/Normal(Like), Bernoulli, Multinomial, and
// Dropout in training mode): a generator seeded by the node's `seed` attribute when present;
// otherwise from the evaluator's random stream when one is set (the check: both models draw the
// same values for the same node, eval::Interpreter::set_random_seed), else from the system.
// These ops are registered as non-deterministic: never folded or merged.
#pragma once

#include <random>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::random {

std::mt19937_64 generator_for(const ir::Node& n);

// The evaluator's random stream: while a StreamSeed lives on this thread, generator_for seeds
// the generator of a node without a `seed` attribute with this value. The interpreter makes
// one around the kernel of each random node it runs (eval/interpreter.cc), so kernels need no
// other context.
class StreamSeed {
 public:
  explicit StreamSeed(uint64_t seed);
  ~StreamSeed();
  StreamSeed(const StreamSeed&) = delete;
  StreamSeed& operator=(const StreamSeed&) = delete;

 private:
  uint64_t seed_;
  const uint64_t* prev_;
};
// Writes v into element i of t (a float type, or an integer type for Multinomial/Bernoulli).
bool store(Tensor& t, int64_t i, double v);
// The output dtype from the `dtype` attribute (default `def`).
DataType dtype_attr(const ir::Node& n, DataType def);
// The shape rule of the ops drawing one value per element of input 0 (RandomUniformLike,
// RandomNormalLike, Bernoulli): input 0's shape, no known values, of type `dtype` (default: input
// 0's type).
Status infer_like(InferContext& ctx);

}  // namespace onnxtrim::ops::random
