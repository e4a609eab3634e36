// What the API's layers (the C API, tests) share beyond the public header: the conversion of
// public options into the library's option structs, and errors into exceptions.
#pragma once

#include <memory>
#include <string>

#include "eval/verify.h"
#include "ir/graph.h"
#include "onnx_io/onnx_io.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/pass_manager.h"
#include "support/status.h"

namespace onnxtrim::api {

int exit_code_for(ErrorCode c);
void throw_if_error(const Status& st);
ir::Model& ir_model(Model& m);
const ir::Model& ir_model(const Model& m);
passes::SimplifyOptions simplify_options(const Options& o);
// Throws Error(kExitUsage) naming the option on a bad saving option; with out_path, also on an
// external-data location that names the output model itself.
onnx_io::SaveOptions save_options(const Options& o, const std::string& out_path = "");
// --input-fill as the evaluator's InputSpec::Fill.
eval::InputSpec::Fill input_fill(const Options& o);

}  // namespace onnxtrim::api
