// Deep copy of a model (tensor bytes are shared copy-on-write, so this is cheap).
#pragma once

#include <memory>

#include "ir/graph.h"

namespace onnxtrim::ir {

std::unique_ptr<Model> clone_model(const Model& m);

}  // namespace onnxtrim::ir
