// Helpers for data-movement kernels: they move whole elements (bytes of the element size, or
// strings), so one implementation serves every dtype.
#pragma once

#include <functional>

#include "ops/infer.h"
#include "ops/kernel_util.h"

namespace onnxtrim::ops::tensor {

// Bytes per element; 0 for strings and sub-byte types.
inline size_t elem_size(DataType t) { return t == DataType::kString ? 0 : static_cast<size_t>(ir::dtype_bits(t) / 8); }

// out[i] = src[index[i]] for a tensor of dims `out_dims`.
Tensor take(const Tensor& src, const Dims& out_dims, const std::vector<int64_t>& index);
// Room for the index `take` reads: one element offset per element of an output of `out_dims`
// and `dtype`. The output's size is checked against the evaluator's limits first (and the index
// counted as what it is, an int64 tensor of that shape), so that an Expand or Tile of 10^12
// elements is refused by name instead of by the allocator.
std::vector<int64_t> take_index(DataType dtype, const Dims& out_dims);
// Steps c, a row-major coordinate within `dims`, to the next one (after the last: all zeros).
inline void next_coordinate(std::vector<int64_t>& c, const Dims& dims) {
  for (size_t k = c.size(); k-- > 0;) {
    if (++c[k] < dims[k]) return;
    c[k] = 0;
  }
}
// The index `take` reads for an output of dims `out` each of whose axes k reads x's axis k: the
// output element at coordinates c is x's at coordinates source(k, c[k]) (Slice, Tile).
template <class Source>
std::vector<int64_t> axiswise_index(const Tensor& x, const Dims& out, Source source) {
  Dims st = strides_of(x.dims());
  std::vector<int64_t> index = take_index(x.dtype(), out);
  std::vector<int64_t> c(out.size(), 0);
  for (auto& i : index) {
    int64_t off = 0;
    for (size_t k = 0; k < c.size(); ++k) off += source(k, c[k]) * st[k];
    i = off;
    next_coordinate(c, out);
  }
  return index;
}
// Copies `count` elements from src (starting at element src_off) into dst at element dst_off.
void copy_elements(const Tensor& src, int64_t src_off, Tensor& dst, int64_t dst_off, int64_t count);
// Same data, new dims (shares bytes).
Tensor reshaped(const Tensor& src, const Dims& dims);
// Supported for data movement (no sub-byte types).
bool movable(DataType t);

// Scatter's update of one element (ScatterElements, ScatterND): the data element y[dst] becomes
// u[src], or is combined with it by the reduction add/mul/max/min ("none" or "" copies).
Status scatter_combine(Tensor& y, int64_t dst, const Tensor& u, int64_t src, const std::string& reduction);

// A local fold for eliminate_nop_ops (Reshape, Squeeze, Unsqueeze, Flatten, Expand): an output
// provably of the input's shape and type is the input itself.
bool fold_same_shape_to_input(ir::Node& n, FoldContext& fc);
// True when v is a constant whose integer elements are all 1 (Tile's repeats, Slice's steps that
// leave the input as it is).
bool constant_all_ones(const ir::Value* v);

// The registration of Reshape, Squeeze and Unsqueeze, the ops that give their input's elements
// under other dims: every output element is a copy; the second input, `dims_var` (shape, axes),
// is int64; fold_same_shape_to_input is their eliminate_nop_ops fold and `merge_pair`, which
// merges the op with one before it, their fuse_consecutive_ops fold.
OpRegistration reshaping_op(const char* op, std::vector<int> versions, EvalFn eval, InferFn infer,
                            const std::string& dims_var, FoldFn merge_pair);

// ---- indexing: the gathers and the scatters
// Index i into an axis of n elements (negative counts from the end): its position in [0, n), or
// nullopt when it is outside [-n, n).
inline std::optional<int64_t> wrap_index(int64_t i, int64_t n) {
  if (i < -n || i >= n) return std::nullopt;
  return i < 0 ? i + n : i;
}

// GatherElements and ScatterElements: index element i (row-major over idx_dims) names the data
// element at i's own coordinates except along `axis`, where the coordinate is the index. Calls
// visit(i, that element's offset) for each i in order and returns the first visit's failure; an
// index out of range returns `out_of_range` there.
template <class Visit>
Status visit_axis_indices(const Dims& data_dims, const Dims& idx_dims, const std::vector<int64_t>& ind, int64_t axis,
                          const Status& out_of_range, Visit visit) {
  const auto r = static_cast<int64_t>(data_dims.size());
  Dims ds = strides_of(data_dims);
  int64_t n = data_dims[static_cast<size_t>(axis)];
  std::vector<int64_t> c(static_cast<size_t>(r), 0);
  for (size_t i = 0; i < ind.size(); ++i) {
    auto v = wrap_index(ind[i], n);
    if (!v) return out_of_range;
    int64_t off = 0;
    for (int64_t k = 0; k < r; ++k) off += (k == axis ? *v : c[static_cast<size_t>(k)]) * ds[static_cast<size_t>(k)];
    if (Status st = visit(i, off); !st.is_ok()) return st;
    next_coordinate(c, idx_dims);
  }
  return Status::ok();
}

// GatherND and ScatterND: the offset of the slice that an index tuple of q entries names, entry k
// indexing axis first_axis + k of `dims` (negative counts from the end), with strides[k] its
// stride; nullopt when an entry is out of range.
std::optional<int64_t> tuple_offset(const int64_t* tuple, int64_t q, const Dims& dims, int64_t first_axis,
                                    const Dims& strides);

// A rule's answer when the output's rank cannot be known: output 0 is a tensor of `elem` of
// unknown rank.
inline Status unranked_output(InferContext& ctx, DataType elem) {
  ctx.output(0) = TypeInfo::tensor(elem, std::nullopt);
  return Status::ok();
}
// n dims, each an unknown of its own: a shape of which only the rank is known.
SymShape unknown_dims(const InferContext& ctx, int64_t n);

// The axes a node's `axes` attribute names, normalised for a rank-`rank` input, or every axis in
// order when it has none (or when `read_attr` is false: the op's version has no such attribute);
// nullopt when one is out of range (Resize, CenterCropPad).
std::optional<std::vector<int64_t>> axes_attr_or_all(const ir::Node& n, int64_t rank, bool read_attr = true);

// Reads axes/ints from an optional input (opset >= 13 style) or an attribute (older opsets).
std::optional<std::vector<int64_t>> ints_from_input_or_attr(const KernelContext& ctx, size_t input, const char* attr);

}  // namespace onnxtrim::ops::tensor
