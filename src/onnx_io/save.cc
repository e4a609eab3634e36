// IR -> protobuf. The main graph's initializers are streamed straight from the IR's buffers
// into the output (or into the external-data file), so saving never holds a second copy of
// the weights. Output goes to a temporary file that is renamed into place when complete.
#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <condition_variable>
#include <array>
#include <functional>
#include <mutex>

#include "onnx/onnx_pb.h"
#include "ir/verifier.h"
#include "onnx_io/onnx_io.h"
#include "onnx_io/proto_fields.h"
#include "onnx_io/wire.h"
#include "support/platform.h"
#include "ir/mapped.h"
#include "ir/scratch.h"

namespace onnxtrim::onnx_io {

namespace fs = std::filesystem;
using google::protobuf::io::CodedOutputStream;
using namespace presence;

namespace {

Status err(ErrorCode c, std::string detail) { return make_error(c, std::move(detail)); }

// ---------------------------------------------------------------- tensors

template <typename Dst>
void widen_from(Dst* dst, const uint8_t* src, int64_t n, int bytes_per, bool is_signed) {
  for (int64_t i = 0; i < n; ++i) {
    uint64_t u = 0;
    std::memcpy(&u, src + i * bytes_per, static_cast<size_t>(bytes_per));
    if (is_signed && bytes_per < 8) {
      int shift = 64 - 8 * bytes_per;
      dst->Add(static_cast<typename Dst::value_type>(static_cast<int64_t>(u << shift) >> shift));
    } else {
      dst->Add(static_cast<typename Dst::value_type>(u));
    }
  }
}

// The bytes of a tensor whose elements are words of the field's type (float, double, int64;
// complex numbers as two), copied into that repeated field.
template <typename T>
void copy_words(google::protobuf::RepeatedField<T>* dst, const uint8_t* src, size_t bytes) {
  dst->Resize(static_cast<int>(bytes / sizeof(T)), T{});
  std::memcpy(dst->mutable_data(), src, bytes);
}

// Fills everything but the bytes of a raw-encoded tensor; with_bytes adds them too.
void fill_tensor(const ir::Tensor& t, onnx::TensorProto* tp, bool with_bytes) {
  if (!t.extra.empty()) tp->ParseFromString(t.extra);
  for (int64_t d : t.dims()) tp->add_dims(d);
  if (t.dtype() != ir::DataType::kUndefined || (t.presence & kTensorDataType))
    tp->set_data_type(static_cast<int32_t>(t.dtype()));
  if (!t.name().empty() || (t.presence & kTensorName)) tp->set_name(t.name());
  if (t.presence & kTensorLocation) tp->set_data_location(onnx::TensorProto::DEFAULT);
  if (t.dtype() == ir::DataType::kString) {
    for (const auto& s : t.strings()) tp->add_string_data(s);
    return;
  }
  if (!with_bytes) return;
  const uint8_t* p = t.bytes();
  int64_t n = t.numel();
  if (!t.typed_encoding) {
    if (t.byte_size() != 0 || (t.presence & kTensorRaw) || n == 0)
      tp->set_raw_data(p ? std::string(reinterpret_cast<const char*>(p), t.byte_size()) : std::string());
    if (n == 0 && !(t.presence & kTensorRaw)) tp->clear_raw_data();
    return;
  }
  if (n == 0) return;
  int bits = ir::dtype_bits(t.dtype());
  switch (t.dtype()) {
    case ir::DataType::kFloat:
    case ir::DataType::kComplex64: copy_words(tp->mutable_float_data(), p, t.byte_size()); break;
    case ir::DataType::kDouble:
    case ir::DataType::kComplex128: copy_words(tp->mutable_double_data(), p, t.byte_size()); break;
    case ir::DataType::kInt64: copy_words(tp->mutable_int64_data(), p, t.byte_size()); break;
    case ir::DataType::kUint32:
    case ir::DataType::kUint64: widen_from(tp->mutable_uint64_data(), p, n, bits / 8, false); break;
    default:
      if (bits >= 8) widen_from(tp->mutable_int32_data(), p, n, bits / 8, ir::dtype_is_signed(t.dtype()));
      else widen_from(tp->mutable_int32_data(), p, static_cast<int64_t>(t.byte_size()), 1, false);
      break;
  }
}

// ---------------------------------------------------------------- types and graphs

void fill_shape(const ir::Type& ty, onnx::TensorShapeProto* sp) {
  for (const auto& d : ty.dims) {
    auto* dp = sp->add_dim();
    if (d.value) dp->set_dim_value(*d.value);
    else if (!d.param.empty()) dp->set_dim_param(d.param);
    if (d.denotation_present || !d.denotation.empty()) dp->set_denotation(d.denotation);
  }
}

void fill_type(const ir::Type& ty, onnx::TypeProto* tp) {
  if (!ty.extra.empty()) tp->ParseFromString(ty.extra);
  if ((ty.presence & kTypeDenotation) || !ty.denotation.empty()) tp->set_denotation(ty.denotation);
  auto elem_set = [&](auto* m) {
    if ((ty.presence & kTypeElem) || ty.elem != ir::DataType::kUndefined)
      m->set_elem_type(static_cast<int32_t>(ty.elem));
  };
  switch (ty.kind) {
    case ir::Type::Kind::kTensor: {
      auto* tt = tp->mutable_tensor_type();
      elem_set(tt);
      if (ty.has_shape) fill_shape(ty, tt->mutable_shape());
      break;
    }
    case ir::Type::Kind::kSparseTensor: {
      auto* tt = tp->mutable_sparse_tensor_type();
      elem_set(tt);
      if (ty.has_shape) fill_shape(ty, tt->mutable_shape());
      break;
    }
    case ir::Type::Kind::kSequence: {
      auto* s = tp->mutable_sequence_type();
      if (ty.inner) fill_type(*ty.inner, s->mutable_elem_type());
      break;
    }
    case ir::Type::Kind::kOptional: {
      auto* s = tp->mutable_optional_type();
      if (ty.inner) fill_type(*ty.inner, s->mutable_elem_type());
      break;
    }
    case ir::Type::Kind::kMap: {
      auto* s = tp->mutable_map_type();
      if ((ty.presence & kTypeElem) || ty.elem != ir::DataType::kUndefined)
        s->set_key_type(static_cast<int32_t>(ty.elem));
      if (ty.inner) fill_type(*ty.inner, s->mutable_value_type());
      break;
    }
    default: break;
  }
}

void fill_value_info(const ir::Value* v, onnx::ValueInfoProto* vi) {
  if (!v->info_extra.empty()) vi->ParseFromString(v->info_extra);
  if (!v->name().empty() || (v->presence & kInfoName)) vi->set_name(v->name());
  if (v->type.is_known() || (v->presence & kInfoType) || !v->type.extra.empty()) fill_type(v->type, vi->mutable_type());
  if (!v->doc_string.empty() || (v->presence & kInfoDoc)) vi->set_doc_string(v->doc_string);
}

void fill_graph(const ir::Graph& g, onnx::GraphProto* gp, bool with_initializers);

void fill_attribute(const ir::Attribute& a, onnx::AttributeProto* ap) {
  if (!a.extra.empty()) ap->ParseFromString(a.extra);
  ap->set_name(a.name);
  if (!a.ref_attr_name.empty() || (a.presence & kAttrRef)) ap->set_ref_attr_name(a.ref_attr_name);
  if (!a.doc_string.empty() || (a.presence & kAttrDoc)) ap->set_doc_string(a.doc_string);
  if (a.type != ir::AttrType::kUndefined || (a.presence & kAttrType))
    ap->set_type(static_cast<onnx::AttributeProto::AttributeType>(a.type));
  bool fresh = a.presence == 0;  // made by a pass: write the field that matches the type
  if ((a.presence & kAttrF) || (fresh && a.type == ir::AttrType::kFloat)) ap->set_f(a.f);
  if ((a.presence & kAttrI) || (fresh && a.type == ir::AttrType::kInt)) ap->set_i(a.i);
  if ((a.presence & kAttrS) || (fresh && a.type == ir::AttrType::kString)) ap->set_s(a.s);
  if (a.t) fill_tensor(*a.t, ap->mutable_t(), true);
  if (a.g) fill_graph(*a.g, ap->mutable_g(), true);
  for (float f : a.floats) ap->add_floats(f);
  for (int64_t i : a.ints) ap->add_ints(i);
  for (const auto& s : a.strings) ap->add_strings(s);
  for (const auto& t : a.tensors) fill_tensor(t, ap->add_tensors(), true);
  for (const auto& g : a.graphs) fill_graph(*g, ap->add_graphs(), true);
}

void fill_node(const ir::Node* n, onnx::NodeProto* np) {
  if (!n->extra.empty()) np->ParseFromString(n->extra);
  for (const ir::Value* v : n->inputs()) np->add_input(v ? v->name() : std::string());
  for (const ir::Value* v : n->outputs()) np->add_output(v ? v->name() : std::string());
  if (!n->name.empty() || (n->presence & kNodeName)) np->set_name(n->name);
  if (!n->op_type.empty() || (n->presence & kNodeOpType)) np->set_op_type(n->op_type);
  if (!n->domain.empty() || (n->presence & kNodeDomain)) np->set_domain(n->domain);
  if (!n->doc_string.empty() || (n->presence & kNodeDoc)) np->set_doc_string(n->doc_string);
  for (const auto& a : n->attributes) fill_attribute(a, np->add_attribute());
}

void fill_graph(const ir::Graph& g, onnx::GraphProto* gp, bool with_initializers) {
  if (!g.extra.empty()) gp->ParseFromString(g.extra);
  g.for_each_node([&](const ir::Node* n) { fill_node(n, gp->add_node()); });
  if (!g.name.empty() || (g.presence & kGraphName)) gp->set_name(g.name);
  if (!g.doc_string.empty() || (g.presence & kGraphDoc)) gp->set_doc_string(g.doc_string);
  if (with_initializers)
    for (const ir::Value* v : g.initializers()) {
      auto* tp = gp->add_initializer();
      fill_tensor(*v->initializer(), tp, true);
      tp->set_name(v->name());
    }
  for (const ir::Value* v : g.inputs()) fill_value_info(v, gp->add_input());
  for (const ir::Value* v : g.outputs()) fill_value_info(v, gp->add_output());
  // value_info entries the loader could not attach stay first (they came from `extra`).
  for (const ir::Value* v : g.value_info_order()) fill_value_info(v, gp->add_value_info());
}

void fill_model_head(const ir::Model& m, onnx::ModelProto* mp) {
  if (!m.extra.empty()) mp->ParseFromString(m.extra);
  if (m.ir_version || (m.presence & kModelIrVersion)) mp->set_ir_version(m.ir_version);
  if (!m.producer_name.empty() || (m.presence & kModelProducerName)) mp->set_producer_name(m.producer_name);
  if (!m.producer_version.empty() || (m.presence & kModelProducerVersion)) mp->set_producer_version(m.producer_version);
  if (!m.domain.empty() || (m.presence & kModelDomain)) mp->set_domain(m.domain);
  if (m.model_version || (m.presence & kModelVersion)) mp->set_model_version(m.model_version);
  if (!m.doc_string.empty() || (m.presence & kModelDoc)) mp->set_doc_string(m.doc_string);
  for (const auto& o : m.opset_import) {
    auto* op = mp->add_opset_import();
    if (!o.domain.empty() || (o.presence & kOpsetDomain) || o.presence == 0) op->set_domain(o.domain);
    if (o.version || (o.presence & kOpsetVersion) || o.presence == 0) op->set_version(o.version);
  }
  for (const auto& [k, v] : m.metadata_props) {
    auto* e = mp->add_metadata_props();
    e->set_key(k);
    e->set_value(v);
  }
  for (const auto& f : m.functions) {
    auto* fp = mp->add_functions();
    if (!f.extra.empty()) fp->ParseFromString(f.extra);
    if (!f.name.empty() || (f.presence & kFuncName)) fp->set_name(f.name);
    if (!f.domain.empty() || (f.presence & kFuncDomain)) fp->set_domain(f.domain);
    if (!f.doc_string.empty() || (f.presence & kFuncDoc)) fp->set_doc_string(f.doc_string);
    for (const auto& a : f.attributes) fp->add_attribute(a);
    for (const auto& o : f.opset_import) {
      auto* op = fp->add_opset_import();
      if (!o.domain.empty() || (o.presence & kOpsetDomain) || o.presence == 0) op->set_domain(o.domain);
      if (o.version || (o.presence & kOpsetVersion) || o.presence == 0) op->set_version(o.version);
    }
    for (const ir::Value* v : f.body->inputs()) fp->add_input(v->name());
    for (const ir::Value* v : f.body->outputs()) fp->add_output(v->name());
    f.body->for_each_node([&](const ir::Node* n) { fill_node(n, fp->add_node()); });
  }
}

// ---------------------------------------------------------------- streaming writer

struct Initializer {
  onnx::TensorProto head;    // everything but streamed bytes
  const ir::Tensor* tensor;  // for the bytes
  enum class Where { kInProto, kStreamed, kExternal } where = Where::kInProto;
  uint64_t size = 0;        // serialized size of the TensorProto
  uint64_t ext_offset = 0;  // kExternal: where in the external file
  bool in_place = false;    // kExternal: already there (the scratch file kept as that file)
};

uint64_t varint_size(uint64_t v) { return CodedOutputStream::VarintSize64(v); }

// A tensor and where its bytes go.
struct Placed {
  const ir::Tensor* tensor;
  uint64_t at;
};

// The size of the pieces a deferred tensor is made in, near `piece`: a multiple of the ranges
// its recipe makes fastest (whole rows of a folded transpose; a part row costs a cache miss an
// element), unless those are far larger.
size_t piece_size(const ir::Tensor& t, size_t piece) {
  const size_t g = t.read_grain();
  if (g <= 1 || g > 4 * piece) return piece;
  return g <= piece ? piece / g * g : g;
}

class Sink {
 public:
  virtual ~Sink() = default;
  virtual bool write(const void* p, size_t n) = 0;
  // Whether tensors stored in files are copied from them into this one (then a tensor is best
  // placed where it is within a page in its file); bytes in memory place every tensor alike.
  virtual bool copies_files() const { return false; }
  // The deferred tensors that will be written, in order, each with the place of its bytes
  // among the bytes written through this sink (a file makes and writes them on threads of its
  // own, meanwhile).
  virtual void will_write_deferred(std::vector<Placed> /*placed*/) {}
  // The number of bytes that will be written from here on (a file reserves its blocks).
  virtual void expect(uint64_t /*bytes*/) {}
  // The bytes of a tensor: copied file to file in the kernel when they are stored in a file.
  // A deferred tensor (a folded weight not made yet) is made a piece at a time as it is written.
  virtual bool write_tensor(const ir::Tensor& t) {
    if (!t.deferred()) return write(t.unaligned_bytes(), t.byte_size());
    std::vector<uint8_t> piece(std::min(piece_size(t, kPiece), t.byte_size()));
    for (size_t off = 0; off < t.byte_size(); off += piece.size()) {
      size_t n = std::min(piece.size(), t.byte_size() - off);
      t.read(off, n, piece.data());
      if (!write(piece.data(), n)) return false;
    }
    ir::release_pages(t);  // the pages of its source that making it read
    return true;
  }

 protected:
  static constexpr size_t kPiece = size_t{1} << 20;
};

// Descriptors of the files tensors are copied from, opened once per save.
using SourceFiles = ir::OriginFiles;

// Makes the deferred tensors (folded weights not made yet) that a file will be written with, a
// piece at a time, and writes each piece at its place in the file, on two threads of their
// own, while the writer writes everything else: making (a transpose reads its source across)
// and writing share both cores, and no piece passes from one thread to another. Each thread
// goes round one buffer, so the pieces pass through memory that is already mapped.
class PieceMaker {
 public:
  static constexpr size_t kMakers = 2;
  static constexpr size_t kAlone = size_t{32} << 20;  // a tensor made with no other in progress
  // `base`: the file offset where the places begin.
  PieceMaker(int fd, uint64_t base, std::vector<Placed> placed, size_t piece) : fd_(fd), placed_(std::move(placed)) {
    size_t largest = 0;
    for (size_t k = 0; k < placed_.size(); ++k) {
      const ir::Tensor* t = placed_[k].tensor;
      const size_t step = piece_size(*t, piece);
      size_t first = pieces_.size();
      for (size_t off = 0; off < t->byte_size(); off += step) {
        pieces_.push_back({t, k, off, std::min(step, t->byte_size() - off), base + placed_[k].at + off});
        largest = std::max(largest, pieces_.back().size);
      }
      left_.push_back(pieces_.size() - first);
    }
    let_go_.assign(placed_.size(), false);
    for (auto& b : buffers_) b.reset(new uint8_t[largest]);  // not zeroed: every piece is written whole
    for (size_t k = 0; k < kMakers; ++k) threads_[k] = std::thread([this, k] { run(buffers_[k].get()); });
  }
  ~PieceMaker() { finish(); }
  // Whether t's bytes are made here and written at `at` (among the sink's bytes); the writer
  // then leaves room for them.
  bool places(const ir::Tensor& t, uint64_t at) {
    if (taken_ >= placed_.size() || placed_[taken_].tensor != &t) return false;
    return placed_[taken_++].at == at;
  }
  // Waits for every piece; false when one could not be written (error(): why).
  bool finish() {
    for (auto& th : threads_)
      if (th.joinable()) th.join();
    return error_ == 0;
  }
  int error() const { return error_; }

 private:
  struct Piece {
    const ir::Tensor* tensor;
    size_t index;  // in placed_
    size_t offset, size;
    uint64_t file_offset;
  };
  void run(uint8_t* buffer) {
    for (;;) {
      size_t i = 0;
      {
        std::unique_lock<std::mutex> lk(mu_);
        // A large tensor is begun only once every tensor before it is made and its source let
        // go: making reads across the whole source, and two large sources in memory at once
        // would raise the peak by one of them.
        auto may_take = [&] {
          if (next_ >= pieces_.size()) return false;
          const Piece& p = pieces_[next_];
          return p.offset != 0 || p.tensor->byte_size() < kAlone || released_ == p.index;
        };
        cv_.wait(lk, [&] { return error_ != 0 || next_ >= pieces_.size() || may_take(); });
        if (error_ != 0 || next_ >= pieces_.size()) return;
        i = next_++;
      }
      const Piece& p = pieces_[i];
      p.tensor->read(p.offset, p.size, buffer);
      int failed = 0;
      {
        // One at a time: writes to one file take its lock in the kernel, where two threads
        // waiting spin (swin_t: 1.7 times the CPU time of the same writes from one thread).
        std::lock_guard<std::mutex> one_writer(write_mu_);
        for (size_t done = 0; done < p.size;) {
          ssize_t w = ::pwrite(fd_, buffer + done, p.size - done, static_cast<off_t>(p.file_offset + done));
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) {
            failed = w < 0 ? errno : EIO;
            break;
          }
          done += static_cast<size_t>(w);
        }
      }
      bool last = false;
      {
        std::lock_guard<std::mutex> lk(mu_);
        if (failed && error_ == 0) error_ = failed;
        last = --left_[p.index] == 0;
      }
      if (last) {
        // Every piece of it is made: the pages of its source that making it read can go.
        ir::release_pages(*p.tensor);
        std::lock_guard<std::mutex> lk(mu_);
        let_go_[p.index] = true;
        while (released_ < let_go_.size() && let_go_[released_]) ++released_;
      }
      if (last || failed) cv_.notify_all();
    }
  }
  int fd_;
  std::vector<Placed> placed_;
  std::vector<Piece> pieces_;
  std::vector<size_t> left_;  // per tensor of placed_: pieces not made yet
  std::vector<bool> let_go_;  // per tensor of placed_: made, and its source let go
  size_t released_ = 0;       // the tensors of placed_ before this one are made and let go
  size_t taken_ = 0;          // the writer's place in placed_
  size_t next_ = 0;           // the next piece to make
  int error_ = 0;
  std::unique_ptr<uint8_t[]> buffers_[kMakers];
  std::mutex mu_;
  std::mutex write_mu_;
  std::condition_variable cv_;
  std::array<std::thread, kMakers> threads_;
};
class FdSink final : public Sink {
 public:
  FdSink(int fd, SourceFiles* sources) : fd_(fd), sources_(sources) {}
  ~FdSink() override {
    flush();
    finish();
  }
  bool copies_files() const override { return sources_ != nullptr; }
  // Blocks reserved up front: the file system then does not reserve them block by block as
  // the writes extend the file (about a quarter of the time of copying swin_t's weights).
  // Where the file system cannot, writes simply extend the file as before.
  void expect(uint64_t bytes) override {
    off_t at = lseek(fd_, 0, SEEK_CUR);
    if (bytes > 0 && at >= 0)
      (void)platform::reserve_file(fd_, at + static_cast<off_t>(buf_.size()), static_cast<off_t>(bytes));
  }
  bool write(const void* p, size_t n) override {
    const char* c = static_cast<const char*>(p);
    if (n >= buf_.capacity() - buf_.size()) {
      if (!flush()) return false;
      if (n >= buf_.capacity()) return raw(c, n);
    }
    buf_.insert(buf_.end(), c, c + n);
    written_ += n;
    return true;
  }
  bool write_tensor(const ir::Tensor& t) override {
    if (t.deferred()) return write_deferred(t);
    size_t n = t.byte_size();
    ir::FileRef ref = ir::file_ref(t);
    if (!ref || n < kCopyMin) {
      bool ok = write(t.unaligned_bytes(), n);
      if (ref) ir::release_pages(t);
      return ok;
    }
    // Straight from the source file: no page of it passes through this process.
    size_t done = 0;
    int in = sources_ ? sources_->fd_for(ref.file) : -1;
    if (in >= 0 && can_copy_ && flush()) {
      off_t off = static_cast<off_t>(ref.offset);
      while (done < n) {
        ssize_t c = platform::copy_file_range(in, &off, fd_, n - done);
        if (c > 0) {
          done += static_cast<size_t>(c);
          continue;
        }
        if (c < 0 && errno == EINTR) continue;
        if (c < 0 && (errno == ENOSPC || errno == EIO || errno == EDQUOT || errno == EFBIG)) {
          ok_ = false;
          errno_ = errno;
          return false;
        }
        can_copy_ = false;  // not supported between these files: write from memory
        break;
      }
      written_ += done;
    }
    if (done == n) return true;
    bool ok = write(t.unaligned_bytes() + done, n - done);
    ir::release_pages(t);
    return ok;
  }
  void will_write_deferred(std::vector<Placed> placed) override {
    // Without threads (wasm), each is made where it is written.
    if (placed.empty() || !platform::threads_supported()) return;
    off_t base = lseek(fd_, 0, SEEK_CUR);
    if (base < 0) return;  // written here, one after another
    maker_ = std::make_unique<PieceMaker>(fd_, static_cast<uint64_t>(base) + buf_.size() - written_, std::move(placed),
                                          kPiece);
  }
  // A deferred tensor the maker writes gets its room left; any other is made a piece at a time
  // here.
  bool write_deferred(const ir::Tensor& t) {
    if (!flush()) return false;
    if (maker_ && maker_->places(t, written_)) {
      if (lseek(fd_, static_cast<off_t>(t.byte_size()), SEEK_CUR) < 0) return fail(errno);
      written_ += t.byte_size();
      return true;
    }
    // Not where it was planned: the planned places cannot be trusted (never seen; a guard).
    if (maker_) return fail(EIO);
    return Sink::write_tensor(t);
  }
  // Waits for the deferred tensors being made; false when one could not be written.
  bool finish() {
    if (maker_ && !maker_->finish()) return fail(maker_->error());
    return ok_;
  }
  bool flush() {
    if (buf_.empty()) return ok_;
    bool r = raw_nocount(buf_.data(), buf_.size());
    buf_.clear();
    return r;
  }
  uint64_t written() const { return written_; }
  bool ok() const { return ok_; }
  int error() const { return errno_; }
  FdSink(const FdSink&) = delete;
  FdSink& operator=(const FdSink&) = delete;
  void reserve() { buf_.reserve(1 << 20); }

 private:
  static constexpr size_t kCopyMin = 64 << 10;  // smaller tensors go through the buffer
  bool fail(int e) {
    if (ok_) errno_ = e ? e : EIO;
    ok_ = false;
    return false;
  }
  bool raw(const char* c, size_t n) {
    written_ += n;
    return raw_nocount(c, n);
  }
  bool raw_nocount(const char* c, size_t n) {
    while (n > 0 && ok_) {
      ssize_t w = ::write(fd_, c, std::min<size_t>(n, 1u << 30));
      if (w < 0) {
        if (errno == EINTR) continue;
        ok_ = false;
        errno_ = errno;
        return false;
      }
      c += w;
      n -= static_cast<size_t>(w);
    }
    return ok_;
  }
  int fd_;
  SourceFiles* sources_;
  bool can_copy_ = true;
  std::vector<char> buf_;
  std::unique_ptr<PieceMaker> maker_;
  uint64_t written_ = 0;
  bool ok_ = true;
  int errno_ = 0;
};

// Writes nothing: counts the bytes, and notes where each deferred tensor's would be.
class PlaceSink final : public Sink {
 public:
  bool write(const void*, size_t n) override {
    at_ += n;
    return true;
  }
  bool write_tensor(const ir::Tensor& t) override {
    if (t.deferred()) deferred.push_back({&t, at_});
    at_ += t.byte_size();
    return true;
  }
  std::vector<Placed> deferred;

 private:
  uint64_t at_ = 0;
};

class StringSink final : public Sink {
 public:
  explicit StringSink(std::string* s) : s_(s) {}
  bool write(const void* p, size_t n) override {
    s_->append(static_cast<const char*>(p), n);
    return true;
  }

 private:
  std::string* s_;
};

// A varint in exactly `width` bytes (at least its shortest form): protobuf readers take any
// encoding of a length in up to 5 bytes, so a length can give a few bytes of room.
bool put_varint_width(Sink& s, uint64_t v, size_t width) {
  uint8_t b[10];
  for (size_t i = 0; i < width; ++i) {
    b[i] = static_cast<uint8_t>((v & 0x7f) | (i + 1 < width ? 0x80 : 0));
    v >>= 7;
  }
  return s.write(b, width);
}

bool put_varint(Sink& s, uint64_t v) { return put_varint_width(s, v, varint_size(v)); }

bool put_message(Sink& s, const google::protobuf::MessageLite& m) {
  std::string tmp;
  m.SerializeToString(&tmp);
  return s.write(tmp.data(), tmp.size());
}

// Where each main-graph initializer goes, and the total size of the file.
struct Plan {
  onnx::ModelProto head;   // model without graph
  onnx::GraphProto graph;  // graph without initializers
  std::vector<Initializer> inits;
  uint64_t graph_size = 0;
  uint64_t total = 0;
  uint64_t external_bytes = 0;
};

void size_plan(Plan& p) {
  p.graph_size = p.graph.ByteSizeLong();
  for (auto& in : p.inits) {
    uint64_t body = in.head.ByteSizeLong();
    if (in.where == Initializer::Where::kStreamed)
      body += 1 + varint_size(in.tensor->byte_size()) + in.tensor->byte_size();
    in.size = body;
    p.graph_size += 1 + varint_size(body) + body;
  }
  p.total = p.head.ByteSizeLong() + 1 + varint_size(p.graph_size) + p.graph_size;
}

Status build_plan(const ir::Model& m, const SaveOptions& opts, bool allow_external, Plan& p) {
  fill_model_head(m, &p.head);
  fill_graph(*m.graph, &p.graph, false);
  const auto& inits = m.graph->initializers();
  p.inits.resize(inits.size());
  for (size_t i = 0; i < inits.size(); ++i) {
    const ir::Tensor& t = *inits[i]->initializer();
    auto& in = p.inits[i];
    in.tensor = &t;
    bool raw = t.dtype() != ir::DataType::kString && !t.typed_encoding;
    if (raw && t.byte_size() > 0 && !t.buffer())
      return err(ErrorCode::kInvalidModel,
                 "tensor '" + inits[i]->name() + "' has no data loaded (external data was not read)");
    bool ext = allow_external && raw && t.byte_size() >= opts.size_threshold &&
               (opts.external == SaveOptions::ExternalData::kAlways ||
                (opts.external == SaveOptions::ExternalData::kAuto && t.external.present()));
    in.where = ext ? Initializer::Where::kExternal
                   : (raw && t.byte_size() > 4096 ? Initializer::Where::kStreamed : Initializer::Where::kInProto);
    fill_tensor(t, &in.head, in.where == Initializer::Where::kInProto);
    in.head.set_name(inits[i]->name());
  }
  size_plan(p);
  if (p.total > opts.protobuf_limit) {
    if (!allow_external || opts.external == SaveOptions::ExternalData::kNever)
      return err(ErrorCode::kInvalidModel, "the model needs " + std::to_string(p.total) +
                                               " bytes, past the 2 GB protobuf limit; save it with external data");
    // Move the largest tensors out until the rest fits (all of them past the threshold).
    for (size_t i = 0; i < inits.size(); ++i) {
      auto& in = p.inits[i];
      const ir::Tensor& t = *in.tensor;
      if (in.where != Initializer::Where::kExternal && t.dtype() != ir::DataType::kString && !t.typed_encoding &&
          t.byte_size() >= opts.size_threshold) {
        in.where = Initializer::Where::kExternal;
        in.head.Clear();
        fill_tensor(t, &in.head, false);
        in.head.set_name(inits[i]->name());
      }
    }
    size_plan(p);
    if (p.total > opts.protobuf_limit)
      return err(ErrorCode::kInvalidModel, "even with external data the model needs " + std::to_string(p.total) +
                                               " bytes, past the 2 GB protobuf limit");
  }
  return Status::ok();
}

// Assigns offsets in the external file (aligned to 4 KiB for large tensors, so they can be
// mapped). With `kept` (the scratch file becomes the external file), tensors that live in it
// keep their place and the others go after its end.
void place_external(Plan& p, const std::string& location, const ir::scratch::Current* kept) {
  uint64_t off = kept ? kept->end : 0;
  std::set<uint64_t> claimed;
  for (auto& in : p.inits) {
    if (in.where != Initializer::Where::kExternal) continue;
    uint64_t n = in.tensor->byte_size();
    ir::FileRef r = ir::file_ref(*in.tensor);
    if (kept && n > 0 && r && r.file == kept->origin.get() && r.offset + n <= kept->end &&
        claimed.insert(r.offset).second) {
      in.in_place = true;
      in.ext_offset = r.offset;
    } else {
      if (n >= (1u << 20)) off = (off + 4095) & ~uint64_t(4095);
      in.ext_offset = off;
      off += n;
    }
    in.head.set_data_location(onnx::TensorProto::EXTERNAL);
    in.head.clear_raw_data();
    auto add = [&](const char* k, const std::string& v) {
      auto* e = in.head.add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    add("location", location);
    add("offset", std::to_string(in.ext_offset));
    add("length", std::to_string(n));
  }
  p.external_bytes = off;
  size_plan(p);
}

constexpr size_t kMaxLenVarint = 5;  // the longest length protobuf's C++ reader takes
constexpr uint64_t kPage = 4096;

// One top-level field of the serialized graph (without its initializers): a node, an input,
// an output, a value_info entry... Records of a repeated field may be interleaved with other
// fields on the wire and keep their order, so these can go between the initializers.
struct Record {
  size_t offset = 0, size = 0;       // the whole record within the serialized graph
  size_t len_at = 0, len_width = 0;  // its length varint (0 wide: not a length-delimited field)
  uint64_t len = 0;
  size_t widen = 0;  // bytes added to its length varint
  size_t room() const { return len_width ? kMaxLenVarint - len_width - widen : 0; }
};

bool split_records(const std::string& g, std::vector<Record>& out) {
  const auto* b = reinterpret_cast<const uint8_t*>(g.data());
  wire::Reader r{b, b + g.size()};
  while (!r.done()) {
    Record rec;
    rec.offset = static_cast<size_t>(r.p - b);
    uint32_t field = 0;
    int wt = 0;
    if (!r.tag(field, wt)) return false;
    if (wt == wire::kLen) {
      rec.len_at = static_cast<size_t>(r.p - b);
      const uint8_t* data = nullptr;
      size_t n = 0;
      if (!r.bytes(data, n)) return false;
      rec.len = n;
      rec.len_width = static_cast<size_t>(data - b) - rec.len_at;
      if (rec.len_width > kMaxLenVarint) return false;
    } else if (!r.skip(wt)) {
      return false;
    }
    rec.size = static_cast<size_t>(r.p - b) - rec.offset;
    out.push_back(rec);
  }
  return true;
}

// Where the file's pieces go: before initializer k, graph records [first[k], first[k+1]); an
// initializer's two length varints may be written wider. Graph records left after the last
// initializer follow it.
struct Layout {
  std::vector<Record> records;
  std::vector<size_t> first;       // per initializer, then one past the last
  std::vector<size_t> size_width;  // per initializer: bytes of its entry's length (0: shortest)
  std::vector<size_t> raw_width;   // and of its raw_data length
  uint64_t added = 0;              // bytes the wider lengths add to the graph
};

// Where within a page a tensor's bytes should start, or -1 (anywhere): where they are in the
// file they are copied from (from_files: the kernel then copies whole pages, about a sixth
// faster), or the start of a page for bytes written from memory (whole pages written; and a
// reader that maps the file finds them aligned).
int64_t wanted_page_offset(const Initializer& in, bool from_files) {
  if (in.where != Initializer::Where::kStreamed || in.tensor->byte_size() < (64u << 10)) return -1;
  ir::FileRef ref = !from_files || in.tensor->deferred() ? ir::FileRef{} : ir::file_ref(*in.tensor);
  return ref ? static_cast<int64_t>(ref.offset % kPage) : 0;
}

// Plans the order so that every large tensor starts where wanted_page_offset says: records of
// the graph are pulled in before it until the gap is filled, the last few bytes by writing
// lengths in a longer form. A tensor whose gap cannot be filled is written where it falls.
// In memory (serialize_model) every tensor is placed as if written from memory, so that the
// bytes depend on the model alone; a file saved from tensors in memory has the same bytes.
// Without `align`: the plain layout, the graph's records and then the initializers.
void plan_layout(const Plan& p, const std::string& graph, uint64_t start, bool align, bool from_files, Layout& l) {
  const size_t k = p.inits.size();
  l.first.assign(k + 1, 0);
  l.size_width.assign(k, 0);
  l.raw_width.assign(k, 0);
  l.added = 0;
  l.records.clear();
  if (!split_records(graph, l.records)) {
    l.records.assign(1, Record{0, graph.size(), 0, 0, 0, 0});  // one piece, as it was
    align = false;
  }
  if (!align) {  // the plain layout: the whole graph, then its initializers (and no widening)
    l.first.assign(k + 1, l.records.size());
    l.first[0] = 0;
    return;
  }
  uint64_t pos = start;
  size_t next = 0;
  for (size_t i = 0; i < k; ++i) {
    const Initializer& in = p.inits[i];
    l.first[i] = next;
    const int64_t want = wanted_page_offset(in, from_files);
    const uint64_t n = in.tensor->byte_size();
    const size_t size_w = varint_size(in.size), raw_w = varint_size(n);
    const uint64_t head = 1 + size_w + in.head.ByteSizeLong() + 1 + raw_w;  // the entry up to the bytes
    if (want >= 0) {
      const size_t own_room = (kMaxLenVarint - size_w) + (kMaxLenVarint - raw_w);
      uint64_t gap = (static_cast<uint64_t>(want) + 2 * kPage - (pos + head) % kPage) % kPage;
      for (int attempt = 0; attempt < 2; ++attempt, gap += kPage) {
        // Whole records while they fit, then wider lengths (the entry's own, then theirs).
        size_t j = next, room = own_room;
        uint64_t filled = 0;
        while (j < l.records.size() && filled + l.records[j].size <= gap) {
          filled += l.records[j].size;
          room += l.records[j].room();
          ++j;
        }
        uint64_t rest = gap - filled;
        if (rest > room) continue;
        size_t wr = std::min<uint64_t>(rest, kMaxLenVarint - raw_w);
        size_t ws = std::min<uint64_t>(rest - wr, kMaxLenVarint - size_w);
        if (size_w + ws < varint_size(in.size + wr)) continue;  // a longer raw length, a longer entry
        rest -= wr + ws;
        for (size_t r = next; r < j && rest > 0; ++r) {
          size_t w = std::min<uint64_t>(rest, l.records[r].room());
          l.records[r].widen += w;
          l.added += w;
          rest -= w;
        }
        l.size_width[i] = size_w + ws;
        l.raw_width[i] = raw_w + wr;
        l.added += ws + wr;
        pos += gap;
        next = j;
        break;
      }
    }
    l.first[i + 1] = next;
    pos += in.where == Initializer::Where::kStreamed ? head + n : head - 1 - raw_w;
  }
}

bool write_records(Sink& s, const std::string& graph, const Layout& l, size_t from, size_t to) {
  for (size_t r = from; r < to; ++r) {
    const Record& rec = l.records[r];
    if (rec.widen == 0) {
      if (!s.write(graph.data() + rec.offset, rec.size)) return false;
      continue;
    }
    const size_t after = rec.len_at + rec.len_width;
    if (!s.write(graph.data() + rec.offset, rec.len_at - rec.offset) ||
        !put_varint_width(s, rec.len, rec.len_width + rec.widen) ||
        !s.write(graph.data() + after, rec.offset + rec.size - after))
      return false;
  }
  return true;
}

bool write_plan(Sink& s, Plan& p, const ProgressFn& progress) {
  const std::string graph = p.graph.SerializeAsString();
  const std::string head = p.head.SerializeAsString();
  // The graph's length comes before everything the layout places: plan with its width, and
  // again if what the layout adds makes it wider.
  Layout l;
  size_t width = varint_size(p.graph_size);
  bool planned = false;
  for (int i = 0; i < 3 && !planned; ++i) {
    plan_layout(p, graph, head.size() + 1 + width, true, s.copies_files(), l);
    size_t w = varint_size(p.graph_size + l.added);
    planned = w == width;
    width = w;
  }
  if (!planned) plan_layout(p, graph, 0, false, false, l);
  const uint64_t graph_size = p.graph_size + l.added;
  s.expect(head.size() + 1 + varint_size(graph_size) + graph_size);
  auto emit = [&](Sink& out, const ProgressFn& report) {
    uint64_t done = 0;
    bool ok = out.write(head.data(), head.size());
    ok = ok && put_varint(out, (7u << 3) | 2) && put_varint(out, graph_size);
    for (size_t i = 0; i < p.inits.size() && ok; ++i) {
      auto& in = p.inits[i];
      ok = write_records(out, graph, l, l.first[i], l.first[i + 1]);
      const uint64_t n = in.tensor->byte_size();
      const bool wide = l.size_width[i] != 0;
      const uint64_t body = wide ? in.size + l.raw_width[i] - varint_size(n) : in.size;
      ok = ok && put_varint(out, (5u << 3) | 2) &&
           put_varint_width(out, body, wide ? l.size_width[i] : varint_size(body)) && put_message(out, in.head);
      if (ok && in.where == Initializer::Where::kStreamed)
        ok = put_varint(out, (9u << 3) | 2) && put_varint_width(out, n, wide ? l.raw_width[i] : varint_size(n)) &&
             out.write_tensor(*in.tensor);
      done += in.size;
      if (report) report(done, p.total);
    }
    return ok && write_records(out, graph, l, l.first[p.inits.size()], l.records.size());
  };
  {
    // Where the deferred tensors' bytes will be: the same writing, counted.
    PlaceSink places;
    emit(places, nullptr);
    s.will_write_deferred(std::move(places.deferred));
  }
  return emit(s, progress);
}

// Writes the external tensors that are not in place yet, in order, from offset `start` on.
bool write_external(Sink& s, const Plan& p, uint64_t start) {
  uint64_t off = start;
  if (p.external_bytes > start) s.expect(p.external_bytes - start);
  {
    std::vector<Placed> deferred;
    for (const auto& in : p.inits)
      if (in.where == Initializer::Where::kExternal && !in.in_place && in.tensor->deferred())
        deferred.push_back({in.tensor, in.ext_offset - start});
    s.will_write_deferred(std::move(deferred));
  }
  static const char zeros[4096] = {};
  for (const auto& in : p.inits) {
    if (in.where != Initializer::Where::kExternal || in.in_place) continue;
    while (off < in.ext_offset) {
      size_t pad = static_cast<size_t>(std::min<uint64_t>(in.ext_offset - off, sizeof zeros));
      if (!s.write(zeros, pad)) return false;
      off += pad;
    }
    if (!s.write_tensor(*in.tensor)) return false;
    off += in.tensor->byte_size();
  }
  return true;
}

// A temporary file in the destination's folder, renamed over it on commit, removed otherwise.
class TempFile {
 public:
  explicit TempFile(std::string final_path) : final_(std::move(final_path)) {}
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!tmp_.empty() && !committed_) ::unlink(tmp_.c_str());
  }
  Status open() {
    fs::path dir = fs::path(final_).parent_path();
    std::string pattern =
        (dir.empty() ? std::string(".") : dir.string()) + "/." + fs::path(final_).filename().string() + ".tmp-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    fd_ = mkstemp(buf.data());
    if (fd_ < 0) return Status(ErrorCode::kIo, std::string("cannot write: ") + std::strerror(errno)).with_file(final_);
    tmp_ = buf.data();
    fchmod(fd_, 0644);
    return Status::ok();
  }
  // Gives the unnamed file `fd` (O_TMPFILE) the temporary name instead of creating a file;
  // `fd_` becomes a second descriptor of it, for writing (its own file position).
  bool adopt(int fd) {
    fs::path dir = fs::path(final_).parent_path();
    std::string pattern =
        (dir.empty() ? std::string(".") : dir.string()) + "/." + fs::path(final_).filename().string() + ".tmp-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    int probe = mkstemp(buf.data());  // a fresh name, then the file takes it
    if (probe < 0) return false;
    ::close(probe);
    ::unlink(buf.data());
    std::string proc = "/proc/self/fd/" + std::to_string(fd);
    if (linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, buf.data(), AT_SYMLINK_FOLLOW) != 0) return false;
    fd_ = ::open(proc.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) {
      ::unlink(buf.data());
      return false;
    }
    tmp_ = buf.data();
    fchmod(fd_, 0644);
    return true;
  }
  int fd() const { return fd_; }
  Status close() {
    if (fd_ >= 0 && ::close(fd_) != 0) {
      fd_ = -1;
      return Status(ErrorCode::kIo, std::string("write failed: ") + std::strerror(errno)).with_file(final_);
    }
    fd_ = -1;
    return Status::ok();
  }
  Status commit() {
    if (::rename(tmp_.c_str(), final_.c_str()) != 0)
      return Status(ErrorCode::kIo, std::string("cannot replace: ") + std::strerror(errno)).with_file(final_);
    committed_ = true;
    return Status::ok();
  }

 private:
  std::string final_;
  std::string tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

Status write_to(TempFile& tf, const std::function<bool(Sink&)>& body, const std::string& path, SourceFiles& sources,
                bool opened = false) {
  if (!opened) OT_RETURN_IF_ERROR(tf.open());
  bool ok;
  int e = 0;
  {
    FdSink sink(tf.fd(), &sources);
    sink.reserve();
    ok = body(sink) && sink.flush() && sink.finish();
    e = sink.error();
  }
  // Blocks reserved past what was written (a plan that overestimated) are no part of the file.
  if (ok) {
    struct stat st {};
    off_t end = lseek(tf.fd(), 0, SEEK_CUR);
    if (end < 0 || fstat(tf.fd(), &st) != 0 || (st.st_size > end && ftruncate(tf.fd(), end) != 0)) {
      ok = false;
      e = errno;
    }
  }
  if (!ok) return Status(ErrorCode::kIo, std::string("write failed: ") + std::strerror(e ? e : EIO)).with_file(path);
  return tf.close();
}

}  // namespace

Status save_model(const ir::Model& model, const std::string& path, const SaveOptions& opts) {
  std::string location = opts.location.empty() ? fs::path(path).filename().string() + ".data" : opts.location;
  {
    // Before anything is written: a location the loader would refuse is never written.
    std::string why = external_location_problem(location, path);
    if (!why.empty())
      return Status(ErrorCode::kUsage, "external data location '" + location + "' " + why).with_file(path);
  }
  {
    Status st = ir::check_subgraph_depth(model);
    if (st.is_ok()) st = ir::verify_for_write(model);
    if (!st.is_ok()) return st.with_file(path);
  }
  Plan plan;
  {
    Status st = build_plan(model, opts, true, plan);
    if (!st.is_ok()) return st.with_file(path);
  }
  bool has_external = false;
  for (const auto& in : plan.inits) has_external |= in.where == Initializer::Where::kExternal;
  std::string ext_path = (fs::path(path).parent_path() / location).string();

  // Folded weights live in the scratch file. When they go to the external file and the scratch
  // file is on its file system, the scratch file becomes the external file: those weights
  // are then written once, where they were computed, and only the others are copied.
  TempFile ext_tmp(ext_path);
  ir::scratch::Current kept;
  if (has_external) {
    kept = ir::scratch::current();
    bool useful = false;
    if (kept.origin)
      for (const auto& in : plan.inits)
        if (in.where == Initializer::Where::kExternal && ir::file_ref(*in.tensor).file == kept.origin.get())
          useful = true;
    if (!useful || !ext_tmp.adopt(kept.origin->fd)) kept = {};
    place_external(plan, location, kept.origin ? &kept : nullptr);
  }

  // Write both files completely before either is renamed into place.
  TempFile model_tmp(path);
  SourceFiles sources;
  OT_RETURN_IF_ERROR(write_to(
      model_tmp, [&](Sink& s) { return write_plan(s, plan, opts.progress); }, path, sources));
  if (has_external) {
    uint64_t start = kept.origin ? kept.end : 0;
    if (kept.origin && lseek(ext_tmp.fd(), static_cast<off_t>(start), SEEK_SET) < 0)
      return Status(ErrorCode::kIo, std::string("write failed: ") + std::strerror(errno)).with_file(ext_path);
    Status st = write_to(
        ext_tmp, [&](Sink& s) { return write_external(s, plan, start); }, ext_path, sources, kept.origin != nullptr);
    if (st.is_ok() && kept.origin && ftruncate(kept.origin->fd, static_cast<off_t>(plan.external_bytes)) != 0)
      st = Status(ErrorCode::kIo, std::string("write failed: ") + std::strerror(errno)).with_file(ext_path);
    if (!st.is_ok()) {
      // The scratch file stays scratch: what was appended past its regions goes.
      if (kept.origin && ftruncate(kept.origin->fd, static_cast<off_t>(kept.end)) != 0) {}
      return st;
    }
    OT_RETURN_IF_ERROR(ext_tmp.commit());
    if (kept.origin) ir::scratch::detach(kept.origin.get());
  }
  OT_RETURN_IF_ERROR(model_tmp.commit());
  return Status::ok();
}

Result<std::string> serialize_tensor_proto(const ir::Tensor& t) {
  onnx::TensorProto tp;
  fill_tensor(t, &tp, true);
  return tp.SerializeAsString();
}

Result<std::string> serialize_model(const ir::Model& model) {
  OT_RETURN_IF_ERROR(ir::check_subgraph_depth(model));
  OT_RETURN_IF_ERROR(ir::verify_for_write(model));
  Plan plan;
  OT_RETURN_IF_ERROR(build_plan(model, SaveOptions{}, false, plan));
  std::string out;
  out.reserve(plan.total);
  StringSink sink(&out);
  write_plan(sink, plan, nullptr);
  return out;
}

}  // namespace onnxtrim::onnx_io
