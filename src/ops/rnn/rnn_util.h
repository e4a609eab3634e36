// Shared by RNN, GRU and LSTM: inputs in [seq, batch, ...] form (layout 0) or [batch, seq, ...]
// (layout 1), directions, sequence_lens, activation functions with their alpha/beta, and the
// output assembly. Each op supplies its cell: given the gate pre-activations it updates h (and c).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::rnn {

// An activation function by its ONNX name, with alpha/beta (NaN: the function's default).
struct Activation {
  std::string name;
  double alpha, beta;
  double operator()(double x) const;
};

// The node's activations (default `defaults`, per direction), or an error message.
bool activations_of(const ir::Node& n, const std::vector<std::string>& defaults, int64_t dirs,
                    std::vector<Activation>* out, std::string* err);

// What every cell reads of its node: the activations (`defaults` per direction unless the
// node names them) and clip (0: none). Errors name the node's op.
struct CellAttributes {
  std::vector<Activation> acts;
  double clip = 0;
};
Status cell_attributes(const KernelContext& ctx, const std::vector<std::string>& defaults, CellAttributes* a);

struct Dims3 {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
};

// Per direction and batch entry: x_t rows (input), the hidden state h and cell state c.
struct Weights {
  std::vector<double> W, R, B, P;  // as doubles, per direction contiguous
};

// One step of a cell for one batch entry and direction: reads x (input), h and c (hidden);
// writes new h and c. `d` is the direction (0 forward, 1 reverse).
using Cell = std::function<void(int64_t d, const double* x, double* h, double* c)>;

// Runs the op: validates shapes (gates = number of gate blocks in W/R), reads inputs, loops
// over directions, batch entries and time steps (respecting sequence_lens), and writes Y,
// Y_h (and Y_c when `has_c`).
Status run(KernelContext& ctx, int64_t gates, bool has_c,
           const std::function<Cell(const Dims3&, const Weights&)>& make_cell);

// Shape rule shared by the three ops.
Status infer(InferContext& ctx, bool has_c);

}  // namespace onnxtrim::ops::rnn
