// Shared by the random-generation ops (RandomUniform/Normal(Like), Bernoulli, Multinomial, and
// Dropout in training mode): a generator seeded by the node's `seed` attribute when present,
// otherwise from the system. These ops are registered as non-deterministic: never folded or
// merged, and their outputs are compared by shape and type only.
#pragma once

#include <random>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::random {

std::mt19937_64 generator_for(const ir::Node& n);
// Writes v into element i of t (a float type, or an integer type for Multinomial/Bernoulli).
bool store(Tensor& t, int64_t i, double v);
// The output dtype from the `dtype` attribute (default `def`).
DataType dtype_attr(const ir::Node& n, DataType def);

}  // namespace onnxtrim::ops::random
