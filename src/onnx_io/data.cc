// Test-data files: a TensorProto, SequenceProto or OptionalProto in a .pb file.
#include <fstream>
#include <sstream>

#include "onnx/onnx_pb.h"  // defines ONNX_API before the generated headers
#include "onnx/onnx-data_pb.h"
#include "onnx_io/onnx_io.h"

namespace onnxtrim::onnx_io {

Status tensor_from_proto_bytes(const std::string& bytes, ir::Tensor& out);  // serialize.cc helpers

namespace {

Result<ir::RuntimeValue> from_sequence(const onnx::SequenceProto& sp);
Result<ir::RuntimeValue> from_optional(const onnx::OptionalProto& op);

Result<ir::RuntimeValue> from_tensor(const onnx::TensorProto& tp) {
  ir::Tensor t;
  OT_RETURN_IF_ERROR(tensor_from_proto_bytes(tp.SerializeAsString(), t));
  return ir::RuntimeValue::of(std::move(t));
}

Result<ir::RuntimeValue> from_sequence(const onnx::SequenceProto& sp) {
  std::vector<ir::RuntimeValue> elems;
  for (const auto& t : sp.tensor_values()) {
    auto r = from_tensor(t);
    if (!r) return r;
    elems.push_back(std::move(r.value()));
  }
  for (const auto& s : sp.sequence_values()) {
    auto r = from_sequence(s);
    if (!r) return r;
    elems.push_back(std::move(r.value()));
  }
  for (const auto& o : sp.optional_values()) {
    auto r = from_optional(o);
    if (!r) return r;
    elems.push_back(std::move(r.value()));
  }
  ir::Type et;
  if (sp.elem_type() == onnx::SequenceProto::TENSOR) et.kind = ir::Type::Kind::kTensor;
  return ir::RuntimeValue::sequence(std::move(elems), et);
}

// An optional holding r's value, or r's error.
Result<ir::RuntimeValue> optional_holding(Result<ir::RuntimeValue> r) {
  if (!r) return r;
  return ir::RuntimeValue::optional(std::move(r.value()));
}

Result<ir::RuntimeValue> from_optional(const onnx::OptionalProto& op) {
  switch (op.elem_type()) {
    case onnx::OptionalProto::TENSOR:
      if (op.has_tensor_value()) return optional_holding(from_tensor(op.tensor_value()));
      break;
    case onnx::OptionalProto::SEQUENCE:
      if (op.has_sequence_value()) return optional_holding(from_sequence(op.sequence_value()));
      break;
    default: break;
  }
  return ir::RuntimeValue::optional(std::nullopt);
}

}  // namespace

Result<ir::RuntimeValue> load_value_file(const std::string& path, const ir::Type& expected) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status(ErrorCode::kIo, "cannot open").with_file(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string bytes = ss.str();
  Result<ir::RuntimeValue> r = Status(ErrorCode::kParse, "unreadable");
  switch (expected.kind) {
    case ir::Type::Kind::kSequence: {
      onnx::SequenceProto sp;
      if (!sp.ParseFromString(bytes)) return Status(ErrorCode::kParse, "not a SequenceProto").with_file(path);
      r = from_sequence(sp);
      break;
    }
    case ir::Type::Kind::kOptional: {
      onnx::OptionalProto op;
      if (!op.ParseFromString(bytes)) return Status(ErrorCode::kParse, "not an OptionalProto").with_file(path);
      r = from_optional(op);
      break;
    }
    default: {
      onnx::TensorProto tp;
      if (!tp.ParseFromString(bytes)) return Status(ErrorCode::kParse, "not a TensorProto").with_file(path);
      r = from_tensor(tp);
      break;
    }
  }
  if (!r) return std::move(r).take_status().with_file(path);
  return r;
}

Result<ir::Tensor> parse_tensor_proto(std::string_view bytes) {
  ir::Tensor t;
  OT_RETURN_IF_ERROR(tensor_from_proto_bytes(std::string(bytes), t));
  return t;
}

Result<std::string> serialize_tensor_proto(const ir::Tensor& t);

}  // namespace onnxtrim::onnx_io
