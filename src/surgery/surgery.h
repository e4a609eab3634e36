// Graph surgery before the passes: cutting (--inputs / --outputs), extra outputs
// (--add-outputs), renaming graph inputs and outputs (--rename) and the batch dim (--batch N,
// --batch dynamic). Each step changes the model's interface on purpose; `Plan` records how the
// result relates to the original, so that the check can compare the two where they should
// agree (the original's own values at the cut points, one batch of stacked samples).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace onnxtrim::surgery {

struct Request {
  std::vector<std::string> inputs;          // --inputs: the graph inputs of the result (empty: unchanged)
  std::vector<std::string> outputs;         // --outputs: the graph outputs of the result (empty: unchanged)
  std::vector<std::string> remove_outputs;  // --unused-output a b (onnxsim): outputs dropped (the others kept)
  std::vector<std::string> add_outputs;     // --add-outputs a,b
  bool add_all_outputs = false;             // --add-outputs all
  std::vector<std::pair<std::string, std::string>> rename;  // --rename old=new
  std::optional<int64_t> batch;                             // --batch N
  bool batch_dynamic = false;                               // --batch dynamic

  bool empty() const {
    return inputs.empty() && outputs.empty() && remove_outputs.empty() && add_outputs.empty() && !add_all_outputs &&
           rename.empty() && !batch && !batch_dynamic;
  }
};

// How the result relates to the original. Every name here is the original's (--rename acts
// last; `renamed` maps those names to the result's).
struct Plan {
  // The original's values that the result's outputs hold, in the result's output order.
  std::vector<std::string> outputs;
  // Values of the original that the result takes as graph inputs although they are computed
  // in the original (the cut points of --inputs): the check feeds the original's values.
  std::vector<std::string> carried;
  // original name -> the result's name (--rename)
  std::map<std::string, std::string> renamed;
  // A fixed batch that was freed or changed: the original's batch size, and the inputs that
  // lead with it. 0: the batch was not changed from a fixed size.
  int64_t old_batch = 0;
  std::optional<int64_t> new_batch;  // --batch N after freeing; nullopt for dynamic
  std::vector<std::string> batched_inputs;
  std::string batch_symbol;  // the name of the freed dim
  // What was done, for the report (one line each).
  std::vector<std::string> notes;
};

// Applies the request to m (the main graph; subgraphs and local functions follow). Fails with a
// usage error naming the value or node that prevents it; m is then unspecified.
Status apply(ir::Model& m, const Request& r, Plan* plan);

}  // namespace onnxtrim::surgery
