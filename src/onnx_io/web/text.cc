// The web build's ONNX text syntax: not available. Native builds parse it with libonnx's parser
// (src/onnx_io/text.cc); Debian has no source package of libonnx to build it for wasm from, so
// the web build reads binary models only and says so (cmake/web.cmake).
#include "onnx_io/onnx_io.h"

namespace onnxtrim::onnx_io {

namespace {
Status text_unavailable(const std::string& where) {
  return Status(ErrorCode::kUnsupported,
                "the ONNX text syntax is not available in the WebAssembly build (it has no libonnx parser); "
                "give a binary .onnx model")
      .with_file(where);
}
}  // namespace

Result<std::unique_ptr<ir::Model>> parse_text_model(const std::string&) { return text_unavailable("<text>"); }

Result<std::unique_ptr<ir::Model>> parse_text_functions(const std::string&, const std::string& where) {
  return text_unavailable(where);
}

}  // namespace onnxtrim::onnx_io
