// Models written in the ONNX text syntax (tests, examples): parsed with libonnx's parser.
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"
#include "onnx_io/onnx_io.h"

#include <algorithm>
#include <map>
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

Result<std::unique_ptr<ir::Model>> parse_text_functions(const std::string& text, const std::string& where) {
  onnx::ModelProto mp;
  mp.set_ir_version(8);
  mp.mutable_graph()->set_name("functions");
  std::map<std::string, int64_t> opsets;
  try {
    onnx::OnnxParser parser(text.c_str());
    while (!parser.EndOfInput()) {
      onnx::FunctionProto* fp = mp.add_functions();
      onnx::Common::Status st = parser.Parse(*fp);
      if (!st.IsOK())
        return Status(ErrorCode::kParse,
                      "ONNX text syntax (function " + std::to_string(mp.functions_size()) + "): " + st.ErrorMessage())
            .with_file(where);
      for (const auto& oi : fp->opset_import()) opsets[oi.domain()] = std::max(opsets[oi.domain()], oi.version());
      if (fp->domain().empty()) fp->set_domain("rewrite.rules");
    }
  } catch (const std::exception& e) {
    return Status(ErrorCode::kParse, std::string("ONNX text syntax: a literal it cannot read (") + e.what() + ")")
        .with_file(where);
  }
  if (mp.functions_size() == 0) return Status(ErrorCode::kParse, "no functions in it").with_file(where);
  for (const auto& [d, v] : opsets) {
    auto* oi = mp.add_opset_import();
    oi->set_domain(d);
    oi->set_version(v);
  }
  std::string bytes = mp.SerializeAsString();
  return parse_model(bytes, where, ".");
}

}  // namespace onnxtrim::onnx_io
