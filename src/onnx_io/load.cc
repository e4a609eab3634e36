// protobuf -> IR. The model file is mapped, not read. The main graph's initializers are decoded
// by a small wire-format reader (the fast path below): their raw_data stays in the mapping, so
// loading copies no weights and saving can copy them file to file. The rest of the model goes
// through libprotobuf; the parsed messages are consumed destructively (tensor bytes moved into
// the IR, not copied), and what the IR does not interpret is re-serialized into `extra`.
#include <google/protobuf/arena.h>
#include <google/protobuf/unknown_field_set.h>
#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cctype>
#include <climits>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnx_io/onnx_io.h"
#include "onnx_io/proto_fields.h"
#include "onnx_io/wire.h"
#include "support/platform.h"
#include "ir/verifier.h"
#include "ir/mapped.h"

namespace onnxtrim::onnx_io {

namespace fs = std::filesystem;

std::string external_location_problem(std::string_view location, std::string_view model_path) {
  if (location.empty()) return "is empty";
  if (location.find('\0') != std::string_view::npos) return "contains a NUL byte";
  fs::path rel{std::string(location)};
  bool escapes = rel.is_absolute();
  for (const fs::path& part : rel) escapes |= part.native() == "..";
  if (escapes) return "must be a relative path inside the model's folder";
  fs::path name = rel.filename();
  if (name.empty() || name.native() == ".") return "must end in a file name";
  if (!model_path.empty()) {
    fs::path model{std::string(model_path)};
    if ((model.parent_path() / rel).lexically_normal() == model.lexically_normal())
      return "names the model file itself";
  }
  return "";
}

using namespace presence;

namespace {

struct LoadCtx {
  std::string display;   // file name for messages
  std::string base_dir;  // external data is relative to this
  const LoadOptions* opts;
  ir::Model* model;
  std::map<std::string, std::shared_ptr<ir::MappedBuffer>> mapped;  // external files
  // The mapped model file, when raw_data may stay in it (load_model); null: copy the bytes.
  std::shared_ptr<const ir::MappedBuffer> owner;
  int depth = 0;  // subgraph nesting of the graph being converted
};

// An external-data offset or length: decimal digits that fit int64, nothing else.
bool byte_count(const std::string& v, int64_t* n) {
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE || x < 0 || !std::isdigit(static_cast<unsigned char>(v[0])))
    return false;
  *n = x;
  return true;
}

Status err(ErrorCode c, std::string detail) { return make_error(c, std::move(detail)); }

// ---------------------------------------------------------------- files

Result<std::shared_ptr<ir::MappedBuffer>> map_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return err(ErrorCode::kIo, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return err(ErrorCode::kIo, "not a regular file");
  }
  size_t n = static_cast<size_t>(st.st_size);
  auto origin = std::make_shared<ir::FileOrigin>();
  origin->path = path;
  origin->dev = static_cast<uint64_t>(st.st_dev);
  origin->ino = static_cast<uint64_t>(st.st_ino);
  void* p = nullptr;
  if (n != 0) {
    p = platform::map_file_readonly(fd, n);
    if (p == nullptr) {
      int e = errno;
      ::close(fd);
      return err(ErrorCode::kIo, std::string("cannot map: ") + std::strerror(e));
    }
  }
  ::close(fd);
  return std::make_shared<ir::MappedBuffer>(p, n, n, std::move(origin), 0, false);
}

// Points t at bytes [off, off + n) of buf without copying them. Kernels read elements through
// typed pointers, so bytes that are not aligned for the element type are read through an
// AlignedView (copied on first use; saving still copies them from the file).
void attach_view(ir::Tensor& t, std::shared_ptr<const ir::MappedBuffer> buf, size_t off, size_t n) {
  size_t align = std::min<size_t>(8, std::max<size_t>(1, static_cast<size_t>(ir::dtype_bits(t.dtype())) / 8));
  auto addr = reinterpret_cast<uintptr_t>(buf->data() + off);
  if (n != 0 && addr % align != 0) {
    t.set_buffer(std::make_shared<ir::AlignedView>(std::move(buf), off, n), 0, n);
    return;
  }
  t.set_buffer(std::move(buf), off, n);
}

// Resolves an external-data reference: maps the file (once per file) and points t at its range.
Status attach_external(const std::string& name, const ir::ExternalRef& ref, size_t expect, ir::Tensor& t,
                       LoadCtx& ctx) {
  if (ref.location.empty())
    return err(ErrorCode::kInvalidModel, "tensor '" + name + "' uses external data without a location");
  std::string why = external_location_problem(ref.location);  // the writer's rule too
  if (!why.empty())
    return err(ErrorCode::kInvalidModel, "tensor '" + name + "': external data location '" + ref.location + "' " + why);
  fs::path rel(ref.location);
  t.external = ref;
  if (!ctx.opts->load_external_data) {
    t.set_buffer(nullptr, 0, expect);
    return Status::ok();
  }
  std::string full = (fs::path(ctx.base_dir) / rel).string();
  auto it = ctx.mapped.find(full);
  if (it == ctx.mapped.end()) {
    auto m = map_file(full);
    if (!m)
      return err(ErrorCode::kInvalidModel,
                 "tensor '" + name + "': external data file '" + ref.location + "': " + m.status().detail());
    it = ctx.mapped.emplace(full, m.value()).first;
  }
  const auto& buf = it->second;
  uint64_t off = static_cast<uint64_t>(ref.offset);
  uint64_t len =
      ref.length >= 0 ? static_cast<uint64_t>(ref.length) : buf->size() - std::min<uint64_t>(off, buf->size());
  if (ref.offset < 0 || off + len > buf->size() || off > buf->size())
    return err(ErrorCode::kInvalidModel, "tensor '" + name + "': external data file '" + ref.location +
                                             "' is too short (" + std::to_string(buf->size()) + " bytes, need " +
                                             std::to_string(off + len) + ")");
  if (len != expect)
    return err(ErrorCode::kInvalidModel, "tensor '" + name + "': external data holds " + std::to_string(len) +
                                             " bytes, the tensor needs " + std::to_string(expect));
  attach_view(t, buf, static_cast<size_t>(off), static_cast<size_t>(len));
  return Status::ok();
}

// ---------------------------------------------------------------- tensors

template <typename Src>
void narrow_into(uint8_t* dst, const Src& src, int bytes_per) {
  for (int i = 0; i < src.size(); ++i) {
    auto v = static_cast<uint64_t>(src.Get(i));
    std::memcpy(dst + static_cast<size_t>(i) * bytes_per, &v, static_cast<size_t>(bytes_per));  // little endian
  }
}

Status convert_tensor(onnx::TensorProto& tp, ir::Tensor& out, LoadCtx& ctx) {
  std::vector<int64_t> dims(tp.dims().begin(), tp.dims().end());
  int32_t raw_type = tp.data_type();
  if (!ir::dtype_is_known(raw_type))
    return err(ErrorCode::kInvalidModel,
               "tensor '" + tp.name() + "' has unknown data type " + std::to_string(raw_type));
  for (int64_t d : dims)
    if (d < 0) return err(ErrorCode::kInvalidModel, "tensor '" + tp.name() + "' has a negative dimension");
  auto dtype = static_cast<ir::DataType>(raw_type);
  uint32_t pres = 0;
  if (tp.has_data_type()) pres |= kTensorDataType;
  if (tp.has_name()) pres |= kTensorName;
  if (tp.has_doc_string()) pres |= kTensorDoc;
  if (tp.has_raw_data()) pres |= kTensorRaw;
  if (tp.has_data_location()) pres |= kTensorLocation;

  // numel with overflow check
  int64_t numel = 1;
  for (int64_t d : dims) {
    if (d != 0 && numel > INT64_MAX / d)
      return err(ErrorCode::kInvalidModel, "tensor '" + tp.name() + "' is too large");
    numel *= d;
  }
  ir::Tensor t = ir::Tensor::shell(dtype, dims);  // no bytes yet: set below
  t.set_name(tp.name());
  t.presence = pres;
  size_t expect = ir::dtype_storage_bytes(dtype, numel);

  const bool external = tp.data_location() == onnx::TensorProto::EXTERNAL;
  if (dtype == ir::DataType::kString) {
    if (external) return err(ErrorCode::kInvalidModel, "string tensor '" + tp.name() + "' cannot use external data");
    auto& s = t.strings();
    s.assign(tp.string_data().begin(), tp.string_data().end());
    if (static_cast<int64_t>(s.size()) != numel && !(s.empty() && numel == 0))
      return err(ErrorCode::kInvalidModel, "string tensor '" + tp.name() + "' has " + std::to_string(s.size()) +
                                               " strings, expected " + std::to_string(numel));
    t.typed_encoding = true;
    tp.clear_string_data();
  } else if (external) {
    ir::ExternalRef ref;
    for (const auto& kv : tp.external_data()) {
      if (kv.key() == "location") {
        ref.location = kv.value();
      } else if (kv.key() == "offset" || kv.key() == "length") {
        const std::string& v = kv.value();
        int64_t n = 0;
        if (!byte_count(v, &n))
          return err(ErrorCode::kInvalidModel,
                     "tensor '" + tp.name() + "': external data " + kv.key() + " '" + v + "' is not a byte count");
        (kv.key() == "offset" ? ref.offset : ref.length) = n;
      } else if (kv.key() == "checksum") {
        ref.checksum = kv.value();
      }
    }
    OT_RETURN_IF_ERROR(attach_external(tp.name(), ref, expect, t, ctx));
    tp.clear_external_data();
  } else if (tp.has_raw_data()) {
    std::string* raw = tp.mutable_raw_data();
    if (raw->size() != expect)
      return err(ErrorCode::kInvalidModel, "tensor '" + tp.name() + "' has " + std::to_string(raw->size()) +
                                               " bytes of data, its type and shape need " + std::to_string(expect));
    auto buf = std::make_shared<ir::StringBuffer>(std::move(*raw));
    t.set_buffer(buf, 0, expect);
    tp.clear_raw_data();
  } else {
    // Typed fields: decode into raw little-endian storage.
    t.typed_encoding = true;
    auto bad = [&](int have) {
      return err(ErrorCode::kInvalidModel, "tensor '" + tp.name() + "' has " + std::to_string(have) +
                                               " values, its shape needs " + std::to_string(numel));
    };
    int bits = ir::dtype_bits(dtype);
    // How many typed values the shape needs, and how many the file has (checked before
    // anything is allocated: the dims may be huge in a corrupt file).
    int64_t have = 0, want = numel;
    switch (dtype) {
      case ir::DataType::kFloat: have = tp.float_data_size(); break;
      case ir::DataType::kComplex64:
        have = tp.float_data_size();
        want = 2 * numel;
        break;
      case ir::DataType::kDouble: have = tp.double_data_size(); break;
      case ir::DataType::kComplex128:
        have = tp.double_data_size();
        want = 2 * numel;
        break;
      case ir::DataType::kInt64: have = tp.int64_data_size(); break;
      case ir::DataType::kUint32:
      case ir::DataType::kUint64: have = tp.uint64_data_size(); break;
      default:
        have = tp.int32_data_size();
        if (bits < 8) want = static_cast<int64_t>(expect);  // one packed byte per int32
        break;
    }
    if (bits == 0 && have != 0)
      return err(ErrorCode::kInvalidModel, "tensor '" + tp.name() + "' has data but no data type");
    if (bits != 0 && have != want) return bad(static_cast<int>(have));
    uint8_t* dst = expect ? t.mutable_bytes() : nullptr;
    if (expect) {
      switch (dtype) {
        case ir::DataType::kFloat:
        case ir::DataType::kComplex64: std::memcpy(dst, tp.float_data().data(), expect); break;
        case ir::DataType::kDouble:
        case ir::DataType::kComplex128: std::memcpy(dst, tp.double_data().data(), expect); break;
        case ir::DataType::kInt64: std::memcpy(dst, tp.int64_data().data(), expect); break;
        case ir::DataType::kUint32:
        case ir::DataType::kUint64: narrow_into(dst, tp.uint64_data(), bits / 8); break;
        default: narrow_into(dst, tp.int32_data(), bits >= 8 ? bits / 8 : 1); break;
      }
    }
    tp.clear_float_data();
    tp.clear_double_data();
    tp.clear_int32_data();
    tp.clear_int64_data();
    tp.clear_uint64_data();
  }
  tp.clear_dims();
  tp.clear_data_type();
  tp.clear_name();
  tp.clear_data_location();
  if (tp.has_doc_string() || tp.ByteSizeLong() != 0) t.extra = tp.SerializeAsString();
  out = std::move(t);
  return Status::ok();
}

// ---------------------------------------------------------------- the wire format (fast path)
//
// The main graph's initializers (nearly all the bytes of a model) are read straight from the
// mapped file: TensorProto fields are decoded here and raw_data stays where it is. Everything
// else is parsed by libprotobuf as before. A tensor with anything this reader does not handle
// itself (typed data fields, strings, segments, doc strings, unknown fields) is parsed by
// libprotobuf too, and anything unexpected in the model or graph framing sends the whole file
// to the general parser: the fast path changes how fast, never what is read.

// The TensorProto fields of a raw or external tensor, as views into the file.
struct FastTensor {
  std::vector<int64_t> dims;
  int32_t data_type = 0;
  int32_t location = 0;
  std::string_view name;
  const uint8_t* raw = nullptr;
  size_t raw_size = 0;
  std::vector<std::pair<std::string_view, std::string_view>> external;
  bool has_data_type = false, has_name = false, has_raw = false, has_location = false;
};

std::string_view view(const uint8_t* d, size_t n) { return {reinterpret_cast<const char*>(d), n}; }

// Decodes a TensorProto that holds raw_data or an external reference and nothing else this
// reader would have to keep; false: the general parser takes it.
bool parse_fast_tensor(const uint8_t* data, size_t size, FastTensor& t) {
  wire::Reader r{data, data + size};
  while (!r.done()) {
    uint32_t f = 0;
    int wt = 0;
    if (!r.tag(f, wt)) return false;
    uint64_t v = 0;
    const uint8_t* d = nullptr;
    size_t n = 0;
    switch (f) {
      case 1:  // dims: packed or not
        if (wt == wire::kVarint) {
          if (!r.varint(v)) return false;
          t.dims.push_back(static_cast<int64_t>(v));
        } else if (wt == wire::kLen) {
          if (!r.bytes(d, n)) return false;
          wire::Reader q{d, d + n};
          while (!q.done()) {
            if (!q.varint(v)) return false;
            t.dims.push_back(static_cast<int64_t>(v));
          }
        } else {
          return false;
        }
        break;
      case 2:
        if (wt != wire::kVarint || !r.varint(v)) return false;
        t.data_type = static_cast<int32_t>(v);
        t.has_data_type = true;
        break;
      case 8:
        if (wt != wire::kLen || !r.bytes(d, n)) return false;
        t.name = view(d, n);
        t.has_name = true;
        break;
      case 9:
        if (wt != wire::kLen || !r.bytes(d, n)) return false;
        t.raw = d;
        t.raw_size = n;
        t.has_raw = true;
        break;
      case 13: {  // external_data: StringStringEntryProto {key = 1, value = 2}
        if (wt != wire::kLen || !r.bytes(d, n)) return false;
        std::string_view key, value;
        wire::Reader e{d, d + n};
        while (!e.done()) {
          uint32_t ef = 0;
          int ewt = 0;
          if (!e.tag(ef, ewt)) return false;
          if ((ef == 1 || ef == 2) && ewt == wire::kLen) {
            const uint8_t* sd = nullptr;
            size_t sn = 0;
            if (!e.bytes(sd, sn)) return false;
            (ef == 1 ? key : value) = view(sd, sn);
          } else if (!e.skip(ewt)) {
            return false;
          }
        }
        t.external.emplace_back(key, value);
        break;
      }
      case 14:  // data_location: a closed enum (other values would be unknown fields)
        if (wt != wire::kVarint || !r.varint(v) || v > 1) return false;
        t.location = static_cast<int32_t>(v);
        t.has_location = true;
        break;
      default: return false;
    }
  }
  const bool external = t.location == onnx::TensorProto::EXTERNAL;
  if (t.data_type == static_cast<int32_t>(ir::DataType::kString)) return false;
  return external ? !t.has_raw : t.has_raw;
}

// convert_tensor for a FastTensor: the same checks, the same messages, no copy of raw_data.
Status convert_fast_tensor(const FastTensor& ft, ir::Tensor& out, LoadCtx& ctx) {
  std::string name(ft.name);
  if (!ir::dtype_is_known(ft.data_type))
    return err(ErrorCode::kInvalidModel, "tensor '" + name + "' has unknown data type " + std::to_string(ft.data_type));
  for (int64_t d : ft.dims)
    if (d < 0) return err(ErrorCode::kInvalidModel, "tensor '" + name + "' has a negative dimension");
  int64_t numel = 1;
  for (int64_t d : ft.dims) {
    if (d != 0 && numel > INT64_MAX / d) return err(ErrorCode::kInvalidModel, "tensor '" + name + "' is too large");
    numel *= d;
  }
  auto dtype = static_cast<ir::DataType>(ft.data_type);
  ir::Tensor t = ir::Tensor::shell(dtype, ft.dims);
  t.set_name(name);
  if (ft.has_data_type) t.presence |= kTensorDataType;
  if (ft.has_name) t.presence |= kTensorName;
  if (ft.has_raw) t.presence |= kTensorRaw;
  if (ft.has_location) t.presence |= kTensorLocation;
  size_t expect = ir::dtype_storage_bytes(dtype, numel);
  if (ft.location == onnx::TensorProto::EXTERNAL) {
    ir::ExternalRef ref;
    for (const auto& [k, v] : ft.external) {
      if (k == "location") ref.location = std::string(v);
      else if (k == "offset" || k == "length") {
        int64_t n = 0;
        if (!byte_count(std::string(v), &n))
          return err(ErrorCode::kInvalidModel, "tensor '" + name + "': external data " + std::string(k) + " '" +
                                                   std::string(v) + "' is not a byte count");
        (k == "offset" ? ref.offset : ref.length) = n;
      } else if (k == "checksum") ref.checksum = std::string(v);
    }
    OT_RETURN_IF_ERROR(attach_external(name, ref, expect, t, ctx));
  } else {
    if (ft.raw_size != expect)
      return err(ErrorCode::kInvalidModel, "tensor '" + name + "' has " + std::to_string(ft.raw_size) +
                                               " bytes of data, its type and shape need " + std::to_string(expect));
    if (ctx.owner) {
      attach_view(t, ctx.owner, static_cast<size_t>(ft.raw - ctx.owner->data()), expect);
    } else {
      auto buf = std::make_shared<ir::VectorBuffer>(std::vector<uint8_t>(ft.raw, ft.raw + expect));
      t.set_buffer(std::move(buf), 0, expect);
    }
  }
  out = std::move(t);
  return Status::ok();
}

// A main-graph initializer read by the fast path: decoded here, or parsed by libprotobuf.
struct PendingInit {
  bool fast = false;
  FastTensor ft;
  onnx::TensorProto tp;
};

// ---------------------------------------------------------------- types

void convert_shape(const onnx::TensorShapeProto& sp, ir::Type& ty) {
  ty.has_shape = true;
  for (const auto& d : sp.dim()) {
    ir::Dim dim;
    if (d.has_dim_value()) dim.value = d.dim_value();
    else if (d.has_dim_param()) dim.param = d.dim_param();
    if (d.has_denotation()) {
      dim.denotation = d.denotation();
      dim.denotation_present = true;
    }
    ty.dims.push_back(std::move(dim));
  }
}

// Tensor and sparse tensor types: an element type and maybe a shape.
template <typename TensorTypeProto>
void convert_tensor_type(const TensorTypeProto& tt, ir::Type::Kind kind, ir::Type& ty) {
  ty.kind = kind;
  if (tt.has_elem_type()) ty.presence |= kTypeElem;
  ty.elem = static_cast<ir::DataType>(tt.elem_type());
  if (tt.has_shape()) convert_shape(tt.shape(), ty);
}

ir::Type convert_type(onnx::TypeProto& tp);

// The type inside a sequence, an optional or a map's values, present in the file.
void convert_inner_type(onnx::TypeProto& inner, ir::Type& ty) {
  ty.presence |= kTypeInner;
  ty.inner = std::make_shared<ir::Type>(convert_type(inner));
}

ir::Type convert_type(onnx::TypeProto& tp) {
  ir::Type ty;
  if (tp.has_denotation()) {
    ty.denotation = tp.denotation();
    ty.presence |= kTypeDenotation;
  }
  switch (tp.value_case()) {
    case onnx::TypeProto::kTensorType: {
      convert_tensor_type(tp.tensor_type(), ir::Type::Kind::kTensor, ty);
      break;
    }
    case onnx::TypeProto::kSparseTensorType: {
      convert_tensor_type(tp.sparse_tensor_type(), ir::Type::Kind::kSparseTensor, ty);
      break;
    }
    case onnx::TypeProto::kSequenceType:
      ty.kind = ir::Type::Kind::kSequence;
      if (tp.sequence_type().has_elem_type()) convert_inner_type(*tp.mutable_sequence_type()->mutable_elem_type(), ty);
      break;
    case onnx::TypeProto::kOptionalType:
      ty.kind = ir::Type::Kind::kOptional;
      if (tp.optional_type().has_elem_type()) convert_inner_type(*tp.mutable_optional_type()->mutable_elem_type(), ty);
      break;
    case onnx::TypeProto::kMapType:
      ty.kind = ir::Type::Kind::kMap;
      if (tp.map_type().has_key_type()) ty.presence |= kTypeElem;
      ty.elem = static_cast<ir::DataType>(tp.map_type().key_type());
      if (tp.map_type().has_value_type()) convert_inner_type(*tp.mutable_map_type()->mutable_value_type(), ty);
      break;
    case onnx::TypeProto::kOpaqueType:
      ty.kind = ir::Type::Kind::kOpaque;
      ty.extra = tp.SerializeAsString();
      break;
    default:
      // No type case set (or one this build does not know): keep the bytes.
      if (tp.ByteSizeLong() != 0 && !tp.has_denotation()) ty.extra = tp.SerializeAsString();
      break;
  }
  return ty;
}

void apply_value_info(onnx::ValueInfoProto& vi, ir::Value* v) {
  uint32_t pres = 0;
  if (vi.has_name()) pres |= kInfoName;
  if (vi.has_doc_string()) {
    pres |= kInfoDoc;
    v->doc_string = vi.doc_string();
  }
  if (vi.has_type()) {
    pres |= kInfoType;
    v->type = convert_type(*vi.mutable_type());
  }
  v->presence = pres;
  vi.clear_name();
  vi.clear_doc_string();
  vi.clear_type();
  if (vi.ByteSizeLong() != 0) v->info_extra = vi.SerializeAsString();
}

// ---------------------------------------------------------------- graphs

Status convert_graph(onnx::GraphProto& gp, ir::Graph& g, LoadCtx& ctx, std::vector<PendingInit>* pre = nullptr);

Status too_deep() {
  return err(ErrorCode::kUnsupported, "subgraphs (If/Loop/Scan bodies) nest more than " +
                                          std::to_string(ir::kMaxSubgraphDepth) +
                                          " levels deep, the most onnxtrim handles");
}

// How deeply the graph attributes of a serialized ModelProto nest, read from the wire format
// without recursion and without building anything (stops counting past the limit). The
// protobuf parser refuses deep nesting (its recursion limit) without saying so; this tells a
// model nested too deeply from a corrupt file.
int wire_subgraph_depth(const uint8_t* p, const uint8_t* end) {
  enum Kind { kModel, kGraph, kNode, kAttr, kFunction };
  struct Frame {
    const uint8_t* end;
    Kind kind;
    int depth;
  };
  // Reads a varint that must end before `limit` (the end of the enclosing message: reading on
  // past it would let a length computed from a negative remainder send p anywhere).
  auto varint = [&](uint64_t& v, const uint8_t* limit) {
    v = 0;
    for (int shift = 0; shift < 64 && p < limit; shift += 7) {
      uint8_t b = *p++;
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  };
  std::vector<Frame> stack{{end, kModel, 0}};
  int deepest = 0;
  while (!stack.empty() && deepest <= ir::kMaxSubgraphDepth) {
    Frame& f = stack.back();
    if (p >= f.end) {
      if (p > f.end) break;  // malformed
      stack.pop_back();
      continue;
    }
    uint64_t tag = 0, len = 0;
    if (!varint(tag, f.end)) break;
    uint64_t field = tag >> 3;
    switch (tag & 7) {
      case 0:
        if (!varint(len, f.end)) return deepest;
        continue;
      case 1:
      case 5: {
        size_t w = (tag & 7) == 1 ? 8 : 4;
        if (static_cast<size_t>(f.end - p) < w) return deepest;
        p += w;
        continue;
      }
      case 2: break;
      default: return deepest;  // groups: not in ONNX
    }
    if (!varint(len, f.end) || len > static_cast<uint64_t>(f.end - p)) break;
    const uint8_t* sub_end = p + len;
    Kind child = kModel;
    bool follow = true;
    int depth = f.depth;
    if (f.kind == kModel && field == 7) child = kGraph;
    else if (f.kind == kModel && field == 25) child = kFunction;
    else if ((f.kind == kGraph && field == 1) || (f.kind == kFunction && field == 7)) child = kNode;
    else if (f.kind == kNode && field == 5) child = kAttr;
    else if (f.kind == kAttr && (field == 6 || field == 11)) child = kGraph, depth += 1;
    else follow = false;
    if (!follow) {
      p = sub_end;
      continue;
    }
    deepest = std::max(deepest, depth);
    stack.push_back(Frame{sub_end, child, depth});
  }
  return deepest;
}

Status convert_attribute(onnx::AttributeProto& ap, ir::Attribute& a, ir::Graph& g, ir::Node* owner, LoadCtx& ctx) {
  a.name = ap.name();
  if (ap.has_name()) a.presence |= kAttrName;
  if (ap.has_ref_attr_name()) {
    a.presence |= kAttrRef;
    a.ref_attr_name = ap.ref_attr_name();
  }
  if (ap.has_doc_string()) {
    a.presence |= kAttrDoc;
    a.doc_string = ap.doc_string();
  }
  if (ap.has_type()) a.presence |= kAttrType;
  a.type = static_cast<ir::AttrType>(ap.type());
  // A graph payload must be what the type says: the IR walks subgraphs by the type (If, Loop,
  // Scan bodies), so a graph under another type would read outer values unseen by every pass.
  // A file without the type field (it came in IR version 2) gets it from the payload.
  {
    const bool has_g = ap.has_g(), has_graphs = ap.graphs_size() > 0;
    if (a.type == ir::AttrType::kUndefined && has_g != has_graphs)
      a.type = has_g ? ir::AttrType::kGraph : ir::AttrType::kGraphs;
    if ((has_g && a.type != ir::AttrType::kGraph) || (has_graphs && a.type != ir::AttrType::kGraphs))
      return err(ErrorCode::kInvalidModel,
                 "attribute '" + ap.name() + "' holds " +
                     (has_g && has_graphs ? std::string("a graph and a list of graphs")
                                          : std::string(has_g ? "a graph" : "a list of graphs")) +
                     " but its type is " + onnx::AttributeProto_AttributeType_Name(ap.type()));
  }
  if (ap.has_f()) a.presence |= kAttrF;
  if (ap.has_i()) a.presence |= kAttrI;
  if (ap.has_s()) a.presence |= kAttrS;
  a.f = ap.f();
  a.i = ap.i();
  a.s = ap.s();
  if (ap.has_t()) {
    a.presence |= kAttrT;
    a.t = std::make_shared<ir::Tensor>();
    OT_RETURN_IF_ERROR(convert_tensor(*ap.mutable_t(), *a.t, ctx));
  }
  if ((ap.has_g() || ap.graphs_size() > 0) && ctx.depth >= ir::kMaxSubgraphDepth) return too_deep();
  if (ap.has_g()) {
    a.presence |= kAttrG;
    a.g = std::make_shared<ir::Graph>(ctx.model, &g, owner);
    ++ctx.depth;
    OT_RETURN_IF_ERROR(convert_graph(*ap.mutable_g(), *a.g, ctx));
    --ctx.depth;
  }
  a.floats.assign(ap.floats().begin(), ap.floats().end());
  a.ints.assign(ap.ints().begin(), ap.ints().end());
  a.strings.assign(ap.strings().begin(), ap.strings().end());
  for (auto& tp : *ap.mutable_tensors()) {
    a.tensors.emplace_back();
    OT_RETURN_IF_ERROR(convert_tensor(tp, a.tensors.back(), ctx));
  }
  for (auto& sgp : *ap.mutable_graphs()) {
    auto sg = std::make_shared<ir::Graph>(ctx.model, &g, owner);
    ++ctx.depth;
    OT_RETURN_IF_ERROR(convert_graph(sgp, *sg, ctx));
    --ctx.depth;
    a.graphs.push_back(std::move(sg));
  }
  ap.clear_name();
  ap.clear_ref_attr_name();
  ap.clear_doc_string();
  ap.clear_type();
  ap.clear_f();
  ap.clear_i();
  ap.clear_s();
  ap.clear_t();
  ap.clear_g();
  ap.clear_floats();
  ap.clear_ints();
  ap.clear_strings();
  ap.clear_tensors();
  ap.clear_graphs();
  if (ap.ByteSizeLong() != 0) a.extra = ap.SerializeAsString();
  return Status::ok();
}

// Creates the node's outputs first (so that any order of nodes resolves), then everything else.
Status predeclare_outputs(onnx::NodeProto& np, ir::Graph& g, ir::Node* n) {
  for (const auto& name : np.output()) {
    if (name.empty()) {
      g.add_node_output(n, nullptr);
      continue;
    }
    if (g.find_value(name) != nullptr) {
      Status st = err(ErrorCode::kInvalidModel, "value '" + name + "' is defined more than once");
      st.with_node(np.name().empty() ? np.op_type() : np.name());
      return st;
    }
    g.add_node_output(n, g.create_value(name));
  }
  return Status::ok();
}

Status convert_node_body(onnx::NodeProto& np, ir::Graph& g, ir::Node* n, LoadCtx& ctx) {
  n->name = np.name();
  if (np.has_name()) n->presence |= kNodeName;
  if (np.has_op_type()) n->presence |= kNodeOpType;
  if (np.has_domain()) n->presence |= kNodeDomain;
  if (np.has_doc_string()) {
    n->presence |= kNodeDoc;
    n->doc_string = np.doc_string();
  }
  for (auto& ap : *np.mutable_attribute()) {
    n->attributes.emplace_back();
    Status st = convert_attribute(ap, n->attributes.back(), g, n, ctx);
    if (!st.is_ok()) return st.with_node(n->describe());
  }
  for (const auto& name : np.input()) {
    if (name.empty()) {
      g.add_node_input(n, nullptr);
      continue;
    }
    ir::Value* v = g.lookup(name);
    if (v == nullptr) {
      Status st = err(ErrorCode::kInvalidModel, "input '" + name + "' is not defined in the graph");
      return st.with_node(n->describe());
    }
    g.add_node_input(n, v);
  }
  np.clear_input();
  np.clear_output();
  np.clear_name();
  np.clear_op_type();
  np.clear_domain();
  np.clear_doc_string();
  np.clear_attribute();
  if (np.ByteSizeLong() != 0) n->extra = np.SerializeAsString();
  return Status::ok();
}

Status convert_nodes(google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, ir::Graph& g, LoadCtx& ctx) {
  std::vector<ir::Node*> made;
  made.reserve(static_cast<size_t>(nodes.size()));
  for (auto& np : nodes) {
    ir::Node* n = g.append_node(np.op_type(), np.domain());
    made.push_back(n);
    OT_RETURN_IF_ERROR(predeclare_outputs(np, g, n));
  }
  for (int i = 0; i < nodes.size(); ++i)
    OT_RETURN_IF_ERROR(convert_node_body(*nodes.Mutable(i), g, made[static_cast<size_t>(i)], ctx));
  return Status::ok();
}

// pre: the initializers, when the fast path read them (gp then has none of its own).
Status convert_graph(onnx::GraphProto& gp, ir::Graph& g, LoadCtx& ctx, std::vector<PendingInit>* pre) {
  g.name = gp.name();
  if (gp.has_name()) g.presence |= kGraphName;
  if (gp.has_doc_string()) {
    g.presence |= kGraphDoc;
    g.doc_string = gp.doc_string();
  }
  for (auto& vi : *gp.mutable_input()) {
    if (g.find_value(vi.name()) != nullptr)
      return err(ErrorCode::kInvalidModel, "graph '" + g.name + "' lists input '" + vi.name() + "' twice");
    ir::Value* v = g.create_value(vi.name());
    apply_value_info(vi, v);
    g.add_input(v);
  }
  auto add_initializer = [&](const std::string& name, std::shared_ptr<ir::Tensor> t) -> Status {
    ir::Value* v = g.find_value(name);
    if (v != nullptr && v->is_initializer())
      return err(ErrorCode::kInvalidModel, "initializer '" + name + "' is defined twice");
    if (v == nullptr) {
      v = g.create_value(name);
      v->type = ir::Type::tensor(t->dtype(), {});
      for (int64_t d : t->dims()) v->type.dims.push_back(ir::Dim::known(d));
    }
    g.set_initializer(v, std::move(t));
    return Status::ok();
  };
  if (pre) {
    for (auto& pi : *pre) {
      auto t = std::make_shared<ir::Tensor>();
      std::string name = pi.fast ? std::string(pi.ft.name) : pi.tp.name();
      OT_RETURN_IF_ERROR(pi.fast ? convert_fast_tensor(pi.ft, *t, ctx) : convert_tensor(pi.tp, *t, ctx));
      OT_RETURN_IF_ERROR(add_initializer(name, std::move(t)));
    }
  }
  for (auto& tp : *gp.mutable_initializer()) {
    auto t = std::make_shared<ir::Tensor>();
    std::string name = tp.name();
    OT_RETURN_IF_ERROR(convert_tensor(tp, *t, ctx));
    OT_RETURN_IF_ERROR(add_initializer(name, std::move(t)));
  }
  OT_RETURN_IF_ERROR(convert_nodes(*gp.mutable_node(), g, ctx));
  for (auto& vi : *gp.mutable_output()) {
    ir::Value* v = g.lookup(vi.name());
    if (v == nullptr)
      return err(ErrorCode::kInvalidModel, "graph output '" + vi.name() + "' is not produced by any node");
    // The output's own ValueInfo describes the value (inputs passed through keep theirs).
    if (!v->is_graph_input()) apply_value_info(vi, v);
    g.add_output(v);
  }
  // value_info entries that name a value of this graph; the others stay in `extra`.
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> unmatched;
  for (auto& vi : *gp.mutable_value_info()) {
    ir::Value* v = g.find_value(vi.name());
    if (v == nullptr || v->has_value_info || v->is_graph_input()) {
      *unmatched.Add() = vi;
      continue;
    }
    apply_value_info(vi, v);
    v->has_value_info = true;
    g.value_info_order().push_back(v);
  }
  std::string cycle;
  if (!g.topological_sort(&cycle)) {
    Status st = err(ErrorCode::kInvalidModel, "the graph has a cycle");
    return st.with_node(cycle);
  }
  gp.clear_name();
  gp.clear_doc_string();
  gp.clear_input();
  gp.clear_output();
  gp.clear_initializer();
  gp.clear_node();
  gp.mutable_value_info()->Swap(&unmatched);
  if (gp.ByteSizeLong() != 0) g.extra = gp.SerializeAsString();
  return Status::ok();
}

Status convert_function(onnx::FunctionProto& fp, ir::Function& f, LoadCtx& ctx) {
  f.name = fp.name();
  f.domain = fp.domain();
  f.doc_string = fp.doc_string();
  if (fp.has_name()) f.presence |= kFuncName;
  if (fp.has_domain()) f.presence |= kFuncDomain;
  if (fp.has_doc_string()) f.presence |= kFuncDoc;
  f.attributes.assign(fp.attribute().begin(), fp.attribute().end());
  for (const auto& o : fp.opset_import()) {
    ir::OpsetImport oi{o.domain(), o.version(), 0};
    if (o.has_domain()) oi.presence |= kOpsetDomain;
    if (o.has_version()) oi.presence |= kOpsetVersion;
    f.opset_import.push_back(oi);
  }
  f.body = std::make_unique<ir::Graph>(ctx.model, nullptr, nullptr);
  ir::Graph& g = *f.body;
  for (const auto& in : fp.input()) {
    if (g.find_value(in) != nullptr)
      return err(ErrorCode::kInvalidModel, "function '" + f.name + "' lists input '" + in + "' twice");
    g.add_input(g.create_value(in));
  }
  Status st = convert_nodes(*fp.mutable_node(), g, ctx);
  if (!st.is_ok()) return Status(st.code(), "in function '" + f.name + "': " + st.detail()).with_node(st.node());
  // FunctionProto.attribute_proto (field 11, default attribute values) is newer than the
  // generated classes: read it from the unknown fields (they stay there, and so in `extra`).
  const auto& unknown = fp.GetReflection()->GetUnknownFields(fp);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const auto& uf = unknown.field(i);
    if (uf.number() != 11 || uf.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) continue;
    onnx::AttributeProto ap;
    if (!ap.ParseFromString(uf.length_delimited()))
      return err(ErrorCode::kInvalidModel, "function '" + f.name + "' has an unreadable attribute default");
    f.attribute_defaults.emplace_back();
    st = convert_attribute(ap, f.attribute_defaults.back(), g, nullptr, ctx);
    if (!st.is_ok()) return Status(st.code(), "in function '" + f.name + "': " + st.detail());
  }
  for (const auto& out : fp.output()) {
    ir::Value* v = g.find_value(out);
    if (v == nullptr)
      return err(ErrorCode::kInvalidModel, "function '" + f.name + "' output '" + out + "' is not produced");
    g.add_output(v);
  }
  // Function bodies, like graphs, may list their nodes out of order: sorted (stably).
  std::string cycle;
  if (!g.topological_sort(&cycle))
    return Status(ErrorCode::kInvalidModel, "function '" + f.name + "' has a cycle").with_node(cycle);
  fp.clear_name();
  fp.clear_domain();
  fp.clear_doc_string();
  fp.clear_attribute();
  fp.clear_opset_import();
  fp.clear_input();
  fp.clear_output();
  fp.clear_node();
  if (fp.ByteSizeLong() != 0) f.extra = fp.SerializeAsString();
  return Status::ok();
}

Result<std::unique_ptr<ir::Model>> convert_model(onnx::ModelProto& mp, LoadCtx& ctx,
                                                 std::vector<PendingInit>* pre = nullptr) {
  auto model = std::make_unique<ir::Model>();
  ctx.model = model.get();
  ir::Model& m = *model;
  m.path = ctx.display;
  if (mp.has_ir_version()) m.presence |= kModelIrVersion;
  if (mp.has_producer_name()) m.presence |= kModelProducerName;
  if (mp.has_producer_version()) m.presence |= kModelProducerVersion;
  if (mp.has_domain()) m.presence |= kModelDomain;
  if (mp.has_model_version()) m.presence |= kModelVersion;
  if (mp.has_doc_string()) m.presence |= kModelDoc;
  m.ir_version = mp.ir_version();
  m.producer_name = mp.producer_name();
  m.producer_version = mp.producer_version();
  m.domain = mp.domain();
  m.model_version = mp.model_version();
  m.doc_string = mp.doc_string();
  for (const auto& o : mp.opset_import()) {
    ir::OpsetImport oi{o.domain(), o.version(), 0};
    if (o.has_domain()) oi.presence |= kOpsetDomain;
    if (o.has_version()) oi.presence |= kOpsetVersion;
    m.opset_import.push_back(oi);
  }
  for (const auto& kv : mp.metadata_props()) m.metadata_props.emplace_back(kv.key(), kv.value());
  if (!mp.has_graph()) return err(ErrorCode::kParse, "not an ONNX model: it has no graph");
  OT_RETURN_IF_ERROR(convert_graph(*mp.mutable_graph(), *m.graph, ctx, pre));
  for (auto& fp : *mp.mutable_functions()) {
    m.functions.emplace_back();
    OT_RETURN_IF_ERROR(convert_function(fp, m.functions.back(), ctx));
  }
  mp.clear_ir_version();
  mp.clear_producer_name();
  mp.clear_producer_version();
  mp.clear_domain();
  mp.clear_model_version();
  mp.clear_doc_string();
  mp.clear_opset_import();
  mp.clear_metadata_props();
  mp.clear_graph();
  mp.clear_functions();
  if (mp.ByteSizeLong() != 0) m.extra = mp.SerializeAsString();
  // A file whose own names or initializer types the check before writing would refuse (ONNX
  // Runtime loads it) is written back as it came.
  m.unchecked_names_and_types = !ir::check_names_and_types(m).is_ok();
  return model;
}

}  // namespace

Status tensor_from_proto_bytes(const std::string& bytes, ir::Tensor& out) {
  onnx::TensorProto tp;
  if (!tp.ParseFromString(bytes)) return err(ErrorCode::kParse, "not a TensorProto");
  LoadOptions o;
  o.load_external_data = false;
  LoadCtx ctx;
  ctx.display = "<tensor>";
  ctx.base_dir = ".";
  ctx.opts = &o;
  return convert_tensor(tp, out, ctx);
}

namespace {

// Parses from any zero-copy stream; convert_model then consumes the message.
// `rescan` measures the nesting of the bytes when the parser refuses them.
Result<std::unique_ptr<ir::Model>> parse_stream(google::protobuf::io::ZeroCopyInputStream& in, uint64_t size,
                                                const std::string& display_name, const std::string& base_dir,
                                                const LoadOptions& opts, const std::function<int()>& rescan) {
  LoadCtx ctx;
  ctx.display = display_name;
  ctx.base_dir = base_dir;
  ctx.opts = &opts;
  onnx::ModelProto mp;
  {
    google::protobuf::io::CodedInputStream cis(&in);
    cis.SetTotalBytesLimit(INT_MAX);
    cis.SetRecursionLimit(256);
    if (!mp.ParseFromCodedStream(&cis) || !cis.ConsumedEntireMessage()) {
      if (rescan && rescan() > ir::kMaxSubgraphDepth) return too_deep().with_file(display_name);
      return Status(ErrorCode::kParse, "not a valid ONNX model (protobuf parsing failed: truncated or corrupt file?)")
          .with_file(display_name);
    }
  }
  auto r = convert_model(mp, ctx);
  if (!r) return std::move(r).take_status().with_file(display_name);
  return r;
}

// Fields of a message that the fast path hands to libprotobuf, as runs of the file's bytes
// (fields side by side in the file make one run): parsed where they are, in order, which
// merges them as the whole message would be (repeated fields append, in order).
struct FieldRuns {
  std::vector<std::pair<const uint8_t*, size_t>> runs;
  void add(const uint8_t* from, const uint8_t* to) {
    if (!runs.empty() && runs.back().first + runs.back().second == from)
      runs.back().second += static_cast<size_t>(to - from);
    else runs.emplace_back(from, static_cast<size_t>(to - from));
  }
  bool parse_into(google::protobuf::MessageLite& m, int recursion_limit) const {
    for (const auto& [p, n] : runs) {
      google::protobuf::io::CodedInputStream cis(p, static_cast<int>(n));
      cis.SetRecursionLimit(recursion_limit);
      if (!m.MergeFromCodedStream(&cis) || !cis.ConsumedEntireMessage()) return false;
    }
    return true;
  }
};

// The fast path: the model and graph framing are walked here, the main graph's initializers
// decoded by parse_fast_tensor, and the remaining fields (nodes, inputs, functions ...)
// handed to libprotobuf, which sees exactly the bytes it would have seen in the whole file.
// Sets `fallback` when the general parser must read the file instead.
Result<std::unique_ptr<ir::Model>> parse_fast(const uint8_t* data, size_t size, LoadCtx& ctx, bool& fallback) {
  fallback = true;
  auto no = []() -> Result<std::unique_ptr<ir::Model>> { return Status(ErrorCode::kInternal, "fallback"); };
  FieldRuns rest;
  const uint8_t* graph = nullptr;
  size_t graph_size = 0;
  int graphs = 0;
  wire::Reader r{data, data + size};
  while (!r.done()) {
    const uint8_t* field = r.p;
    uint32_t f = 0;
    int wt = 0;
    if (!r.tag(f, wt)) return no();
    if (f == 7 && wt == wire::kLen) {
      if (!r.bytes(graph, graph_size)) return no();
      ++graphs;
    } else {
      if (!r.skip(wt)) return no();
      rest.add(field, r.p);
    }
  }
  if (graphs != 1) return no();  // none (an error to report) or several (merged by protobuf)

  FieldRuns graph_rest;
  std::vector<PendingInit> inits;
  wire::Reader g{graph, graph + graph_size};
  while (!g.done()) {
    const uint8_t* field = g.p;
    uint32_t f = 0;
    int wt = 0;
    if (!g.tag(f, wt)) return no();
    if (f == 5 && wt == wire::kLen) {
      const uint8_t* d = nullptr;
      size_t n = 0;
      if (!g.bytes(d, n)) return no();
      inits.emplace_back();
      PendingInit& pi = inits.back();
      if (parse_fast_tensor(d, n, pi.ft)) {
        pi.fast = true;
      } else {
        pi.ft = FastTensor();
        google::protobuf::io::CodedInputStream cis(d, static_cast<int>(n));
        cis.SetRecursionLimit(254);
        if (!pi.tp.MergeFromCodedStream(&cis) || !cis.ConsumedEntireMessage()) return no();
      }
    } else {
      if (!g.skip(wt)) return no();
      graph_rest.add(field, g.p);
    }
  }
  // The graph's messages live only until they are converted: in an arena, made in blocks of
  // up to 1 MB and freed at once (swin_t: loading 14.0 -> 12.6 ms).
  google::protobuf::ArenaOptions ao;
  ao.start_block_size = size_t{64} << 10;
  ao.max_block_size = size_t{1} << 20;
  google::protobuf::Arena arena(ao);
  auto* mp = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  if (!rest.parse_into(*mp, 256) || !graph_rest.parse_into(*mp->mutable_graph(), 255)) return no();
  fallback = false;
  return convert_model(*mp, ctx, &inits);
}

// Bytes of a whole model file; `owner` keeps them alive when tensors may point into them.
Result<std::unique_ptr<ir::Model>> parse_bytes(const uint8_t* data, size_t size, const std::string& display_name,
                                               const std::string& base_dir, const LoadOptions& opts,
                                               std::shared_ptr<const ir::MappedBuffer> owner) {
  if (size > static_cast<uint64_t>(INT_MAX))
    return Status(ErrorCode::kParse,
                  "file is larger than the 2 GB protobuf limit; large tensors must be stored as external data")
        .with_file(display_name);
  if (!opts.general_parser) {
    LoadCtx ctx;
    ctx.display = display_name;
    ctx.base_dir = base_dir;
    ctx.opts = &opts;
    ctx.owner = std::move(owner);
    bool fallback = false;
    auto r = parse_fast(data, size, ctx, fallback);
    if (!fallback) {
      if (!r) return std::move(r).take_status().with_file(display_name);
      if (opts.progress) opts.progress(size, size);
      return r;
    }
  }
  google::protobuf::io::ArrayInputStream ais(data, static_cast<int>(size));
  auto rescan = [&] { return wire_subgraph_depth(data, data + size); };
  auto r = parse_stream(ais, size, display_name, base_dir, opts, rescan);
  if (r && opts.progress) opts.progress(size, size);
  return r;
}

}  // namespace

Result<std::unique_ptr<ir::Model>> parse_model(std::string_view bytes, const std::string& display_name,
                                               const std::string& base_dir, const LoadOptions& opts) {
  return parse_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), display_name, base_dir, opts,
                     nullptr);
}

Result<std::unique_ptr<ir::Model>> load_model(const std::string& path, const LoadOptions& opts) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status(ErrorCode::kIo, "no such file").with_file(path);
  if (fs::is_directory(path, ec)) return Status(ErrorCode::kIo, "is a directory, not a model file").with_file(path);
  std::string base = fs::path(path).parent_path().string();
  if (base.empty()) base = ".";
  if (!fs::is_regular_file(path, ec)) {
    // A pipe or a device cannot be mapped: read it (the tensors then own their bytes).
    std::ifstream f(path, std::ios::binary);
    if (!f) return Status(ErrorCode::kIo, std::string("cannot open: ") + std::strerror(errno)).with_file(path);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return parse_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path, base, opts, nullptr);
  }
  auto m = map_file(path);
  if (!m) return Status(m.status()).with_file(path);
  const auto& buf = m.value();
  return parse_bytes(buf->data(), buf->size(), path, base, opts, buf);
}

}  // namespace onnxtrim::onnx_io
