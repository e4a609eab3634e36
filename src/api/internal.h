// What the API's layers (the C API, tests) share beyond the public header: the conversion of
// public options into the library's option structs, and errors into exceptions.
#pragma once

#include <memory>
#include <string>

#include "driver/driver.h"
#include "eval/verify.h"
#include "ir/graph.h"
#include "onnx_io/onnx_io.h"
#include "onnxtrim/onnxtrim.hpp"
#include "passes/pass_manager.h"
#include "support/status.h"

namespace onnxtrim::api {

using driver::exit_code_for;
using driver::input_fill;
using driver::throw_if_error;
ir::Model& ir_model(Model& m);
const ir::Model& ir_model(const Model& m);
// The passes' options of o with its user rewrite rules (--rewrite-rules files, callbacks) as passes.
passes::SimplifyOptions simplify_options(const Options& o);
std::vector<passes::UserPass> user_passes(const Options& o);
// Throws Error(kExitUsage) naming the option on a bad saving option; with out_path, also on an
// external-data location that names the output model itself.
onnx_io::SaveOptions save_options(const Options& o, const std::string& out_path = "");

}  // namespace onnxtrim::api
