#include "ops/random/random_util.h"

#include <cstring>

namespace onnxtrim::ops::random {

namespace {
thread_local const uint64_t* t_stream_seed = nullptr;
}  // namespace

StreamSeed::StreamSeed(uint64_t seed) : seed_(seed), prev_(t_stream_seed) { t_stream_seed = &seed_; }
StreamSeed::~StreamSeed() { t_stream_seed = prev_; }

std::mt19937_64 generator_for(const ir::Node& n) {
  if (n.attr("seed")) {
    float s = n.attr_float("seed", 0.0f);
    uint64_t bits = 0;
    std::memcpy(&bits, &s, sizeof s);
    return std::mt19937_64(bits);
  }
  if (t_stream_seed) return std::mt19937_64(*t_stream_seed);
  std::random_device rd;
  return std::mt19937_64((static_cast<uint64_t>(rd()) << 32) ^ rd());
}

bool store(Tensor& t, int64_t i, double v) {
  return dispatch(t.dtype(), kAll, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) t.mutable_data<bool>()[i] = v != 0;
    else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      t.mutable_data<T>()[i] = T(static_cast<float>(v));
    else t.mutable_data<T>()[i] = static_cast<T>(v);
  });
}

DataType dtype_attr(const ir::Node& n, DataType def) {
  return n.attr("dtype") ? static_cast<DataType>(n.attr_int("dtype", 1)) : def;
}

Status infer_like(InferContext& ctx) {
  propagate_same(ctx);
  ctx.output(0).values.reset();
  ctx.output(0).elem = dtype_attr(ctx.node(), ctx.input(0).elem);
  return Status::ok();
}

}  // namespace onnxtrim::ops::random
