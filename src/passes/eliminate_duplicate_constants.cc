// eliminate_duplicate_constants: initializers (and Constant nodes) holding equal tensors (same
// dtype, shape and bytes) are merged into the first one. Candidates are found by a hash of the
// dtype, shape and a fixed sample of the bytes (so a 100 MB model is not hashed in full every
// round), then compared byte for byte.
// The bytes read are those of mapped weights, mostly: their pages leave memory again as soon as
// the key is made, and as the comparison goes, so that this pass holds a few MB of them at a
// time (sampling 18 places of every weight brought half the weights' pages of a 2 GB model in).
// Refuses: initializers that are graph inputs (overridable) or graph outputs, and state inputs
// that an op updates (BatchNormalization's running mean and variance in training mode, the
// training optimizers' inputs): a runtime may update such a buffer in place (ONNX Runtime
// does), so a constant shared with another reader would see the update.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "ir/mapped.h"
#include "passes/pass.h"
#include "support/hash.h"

namespace onnxtrim::passes {
namespace {

const ir::Tensor* constant_node_value(const ir::Node& n) {
  if (n.op_type != "Constant" || !n.is_default_domain() || n.num_outputs() != 1 || n.attributes.size() != 1)
    return nullptr;
  const ir::Attribute& a = n.attributes[0];
  return a.name == "value" && a.type == ir::AttrType::kTensor && a.t ? a.t.get() : nullptr;
}

// Up to ~300 bytes, hashed: all of them up to 512, else the ends and 16 evenly spaced 8-byte
// windows. Bytes are hashed where they are (no aligned copy of a weight); of a deferred weight,
// only the windows are made. `read` (when given) reads a window instead of the tensor's bytes.
using ReadWindow = std::function<bool(size_t off, size_t len, uint8_t* dst)>;
uint64_t sample_bytes(const ir::Tensor& t, const ReadWindow& read = nullptr) {
  size_t n = t.byte_size();
  uint64_t h = hash_combine(0, n);
  if (!t.buffer() || n == 0) return h;
  std::vector<uint8_t> tmp;
  auto window = [&](size_t off, size_t len) {
    if (read) {
      tmp.resize(len);
      if (read(off, len, tmp.data())) return fnv1a(tmp.data(), len, h);
    }
    return fnv1a(t.view(off, len, tmp), len, h);
  };
  if (n <= 512) return window(0, n);
  h = window(0, 64);
  h = window(n - 64, 64);
  for (size_t k = 1; k <= 16; ++k) h = window((n - 8) * k / 17, 8);
  return h;
}

// Descriptors of the files mapped tensors come from, opened once per run: a mapped weight's
// windows are read from its file (a few bytes from the page cache each), not through the
// mapping (a page fault each, mapping 16 pages that the pass then gives back).
class WindowReader {
 public:
  // A reader of t's windows from its file, or null (t is not mapped, or its file changed).
  ReadWindow for_tensor(const ir::Tensor& t) {
    ir::FileRef ref = ir::file_ref(t);
    if (!ref) return nullptr;
    int fd = files_.fd_for(ref.file);
    if (fd < 0) return nullptr;
    return [fd, base = ref.offset](size_t off, size_t len, uint8_t* dst) {
      return ::pread(fd, dst, len, static_cast<off_t>(base + off)) == static_cast<ssize_t>(len);
    };
  }

 private:
  ir::OriginFiles files_;
};

// dtype, dims, size and the sampled bytes. The samples of a tensor whose bytes never change
// are taken once per run: a deferred one (a folded transpose: each sampled element is in
// another row of its source, another page of the file) and a mapped one (each window faults
// in a page of the file, which the pass lets go again), while the pass runs every round.
class SampleKeys {
 public:
  // *touched: whether the key read the tensor's bytes in memory (mapped pages may have come in).
  uint64_t key(const ir::Tensor& t, bool* touched) {
    *touched = false;
    uint64_t h = hash_combine(0, static_cast<uint64_t>(t.dtype()));
    for (int64_t d : t.dims()) h = hash_combine(h, static_cast<uint64_t>(d));
    if (t.dtype() == ir::DataType::kString) {
      for (const auto& s : t.strings()) h = hash_str(s, h);
      return h;
    }
    const bool fixed = t.byte_size() > 512 && (t.deferred() ? t.buffer_offset() == 0 : bool(ir::file_ref(t)));
    if (!fixed) {
      *touched = true;
      return hash_combine(h, sample_bytes(t));
    }
    const Where where{t.buffer().get(), t.buffer_offset()};
    auto it = fixed_.find(where);
    // The weak pointer tells the same buffer from a later one at the same address.
    if (it == fixed_.end() || it->second.buffer.lock().get() != where.buffer || it->second.size != t.byte_size()) {
      ReadWindow read = t.deferred() ? nullptr : files_.for_tensor(t);
      *touched = !read;
      it = fixed_.insert_or_assign(where, Sample{t.buffer(), t.byte_size(), sample_bytes(t, read)}).first;
    }
    return hash_combine(h, it->second.hash);
  }

 private:
  struct Where {
    const ir::Buffer* buffer;
    size_t offset;
    bool operator==(const Where& o) const { return buffer == o.buffer && offset == o.offset; }
  };
  struct WhereHash {
    size_t operator()(const Where& w) const {
      return std::hash<const void*>()(w.buffer) ^ (w.offset * 0x9E3779B97F4A7C15ull);
    }
  };
  struct Sample {
    std::weak_ptr<const ir::Buffer> buffer;
    size_t size;
    uint64_t hash;
  };
  std::unordered_map<Where, Sample, WhereHash> fixed_;
  WindowReader files_;
};

bool is_state_input(const ir::Value* v) {
  for (const ir::Use& u : v->uses()) {
    const ir::Node* n = u.node;
    if (n->domain == "ai.onnx.preview.training") return true;
    if (n->is_default_domain() && n->op_type == "BatchNormalization" && (u.index == 3 || u.index == 4) &&
        n->attr_int("training_mode", 0) != 0)
      return true;
  }
  return false;
}

constexpr size_t kLarge = size_t{1} << 20;

// What a tensor past this size brought into memory leaves it again (nothing for a heap tensor).
void let_go(const ir::Tensor& t) {
  if (t.byte_size() >= kLarge) ir::release_pages(t);
}

// Tensor::same_contents, a few MB at a time for large tensors: what each part brought into
// memory leaves it before the next is read, so that two mapped weights are never in memory
// whole for the comparison.
bool same_contents(const ir::Tensor& a, const ir::Tensor& b) {
  if (a.dtype() == ir::DataType::kString || a.byte_size() < kLarge || a.dtype() != b.dtype() || a.dims() != b.dims() ||
      a.byte_size() != b.byte_size())
    return a.same_contents(b);
  constexpr size_t kChunk = size_t{4} << 20;
  std::vector<uint8_t> ta, tb;  // parts of deferred weights (made a part at a time)
  for (size_t off = 0; off < a.byte_size(); off += kChunk) {
    size_t n = std::min(kChunk, a.byte_size() - off);
    bool equal = std::memcmp(a.view(off, n, ta), b.view(off, n, tb), n) == 0;
    ir::release_pages(a, off, n);
    ir::release_pages(b, off, n);
    if (!equal) return false;
  }
  return true;
}

class EliminateDuplicateConstants final : public Pass {
 public:
  void run(ir::Graph& g, ir::Rewriter& rw, PassContext&) override {
    std::unordered_multimap<uint64_t, ir::Value*> seen;
    auto merge = [&](ir::Value* v, const ir::Tensor& t) -> bool {
      bool touched = false;
      uint64_t key = keys_.key(t, &touched);
      if (touched) let_go(t);
      auto range = seen.equal_range(key);
      for (auto it = range.first; it != range.second; ++it) {
        ir::Value* first = it->second;
        const ir::Tensor* ft = first->is_initializer() ? first->initializer() : constant_node_value(*first->producer());
        bool same = ft && same_contents(*ft, t);
        if (ft) let_go(*ft);
        let_go(t);
        if (same && ir::Rewriter::can_replace(v, first)) {
          rw.replace_all_uses_with(v, first);
          return true;
        }
      }
      seen.emplace(key, v);
      return false;
    };
    std::vector<ir::Value*> inits = g.initializers();
    for (ir::Value* v : inits) {
      if (v->is_graph_input() || v->is_graph_output() || is_state_input(v)) continue;
      if (merge(v, *v->initializer())) rw.remove_initializer(v);
    }
    for (ir::Node* n : g.node_list()) {
      const ir::Tensor* t = constant_node_value(*n);
      if (!t || n->output(0)->is_graph_output() || is_state_input(n->output(0))) continue;
      if (merge(n->output(0), *t)) rw.erase_node(n);
    }
  }

 private:
  SampleKeys keys_;  // the pass object lives for the whole run
};

}  // namespace

ONNXTRIM_REGISTER_PASS(
    EliminateDuplicateConstants, "eliminate_duplicate_constants",
    "merges initializers and Constant nodes with equal dtype, shape and bytes; keeps graph inputs/outputs");

}  // namespace onnxtrim::passes
