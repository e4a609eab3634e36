// Presence bits: which optional proto fields a message carried when it was read, so that the
// writer emits exactly those (plus any that now hold a non-default value). Internal to onnx_io.
#pragma once

#include <cstdint>

namespace onnxtrim::onnx_io::presence {

// ModelProto
constexpr uint32_t kModelIrVersion = 1u << 0;
constexpr uint32_t kModelProducerName = 1u << 1;
constexpr uint32_t kModelProducerVersion = 1u << 2;
constexpr uint32_t kModelDomain = 1u << 3;
constexpr uint32_t kModelVersion = 1u << 4;
constexpr uint32_t kModelDoc = 1u << 5;
// GraphProto
constexpr uint32_t kGraphName = 1u << 0;
constexpr uint32_t kGraphDoc = 1u << 1;
// NodeProto
constexpr uint32_t kNodeName = 1u << 0;
constexpr uint32_t kNodeOpType = 1u << 1;
constexpr uint32_t kNodeDomain = 1u << 2;
constexpr uint32_t kNodeDoc = 1u << 3;
// AttributeProto
constexpr uint32_t kAttrName = 1u << 0;
constexpr uint32_t kAttrRef = 1u << 1;
constexpr uint32_t kAttrDoc = 1u << 2;
constexpr uint32_t kAttrType = 1u << 3;
constexpr uint32_t kAttrF = 1u << 4;
constexpr uint32_t kAttrI = 1u << 5;
constexpr uint32_t kAttrS = 1u << 6;
constexpr uint32_t kAttrT = 1u << 7;
constexpr uint32_t kAttrG = 1u << 8;
// ValueInfoProto
constexpr uint32_t kInfoName = 1u << 0;
constexpr uint32_t kInfoType = 1u << 1;
constexpr uint32_t kInfoDoc = 1u << 2;
// TensorProto
constexpr uint32_t kTensorDataType = 1u << 0;
constexpr uint32_t kTensorName = 1u << 1;
constexpr uint32_t kTensorDoc = 1u << 2;
constexpr uint32_t kTensorRaw = 1u << 3;
constexpr uint32_t kTensorLocation = 1u << 4;
// TypeProto (and its Tensor/SparseTensor/Map members)
constexpr uint32_t kTypeDenotation = 1u << 0;
constexpr uint32_t kTypeElem = 1u << 1;   // elem_type / key_type
constexpr uint32_t kTypeInner = 1u << 2;  // sequence/optional elem_type, map value_type
// OperatorSetIdProto
constexpr uint32_t kOpsetDomain = 1u << 0;
constexpr uint32_t kOpsetVersion = 1u << 1;
// FunctionProto
constexpr uint32_t kFuncName = 1u << 0;
constexpr uint32_t kFuncDomain = 1u << 1;
constexpr uint32_t kFuncDoc = 1u << 2;

}  // namespace onnxtrim::onnx_io::presence
