// Models written in the ONNX text syntax (tests, examples): parsed with libonnx's parser.
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"
#include "onnx_io/onnx_io.h"

#include <stdexcept>

namespace onnxtrim::onnx_io {

Result<std::unique_ptr<ir::Model>> parse_text_model(const std::string& text) {
  onnx::ModelProto mp;
  onnx::Common::Status st;
  try {
    st = onnx::OnnxParser::Parse(mp, text.c_str());
  } catch (const std::exception& e) {
    // libonnx's parser lets std::stof and friends throw on some literals (`float {inf}`).
    return Status(ErrorCode::kParse, std::string("ONNX text syntax: a literal it cannot read (") + e.what() + ")")
        .with_file("<text>");
  }
  if (!st.IsOK()) return Status(ErrorCode::kParse, "ONNX text syntax: " + st.ErrorMessage()).with_file("<text>");
  std::string bytes = mp.SerializeAsString();
  return parse_model(bytes, "<text>", ".");
}

}  // namespace onnxtrim::onnx_io
