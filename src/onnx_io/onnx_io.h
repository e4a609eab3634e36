// Loading and saving .onnx files (and their external data). The only room that sees protobuf.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "support/status.h"

namespace onnxtrim::onnx_io {

// Called with (bytes done, bytes total) while reading or writing large files.
using ProgressFn = std::function<void(uint64_t, uint64_t)>;

struct LoadOptions {
  bool load_external_data = true;  // map external tensors in; false keeps only the references
  ProgressFn progress;
  // Read the file with libprotobuf alone, never the fast path (tests compare the two).
  bool general_parser = false;
};

// Loads a model; errors name the file (and the node, where there is one). The file is mapped:
// raw_data of the main graph's initializers stays in the mapping (as external data does), so
// loading copies no weights, and saving copies unchanged ones file to file.
Result<std::unique_ptr<ir::Model>> load_model(const std::string& path, const LoadOptions& opts = {});
// Parses a model held in memory. External data is resolved relative to base_dir.
Result<std::unique_ptr<ir::Model>> parse_model(std::string_view bytes, const std::string& display_name,
                                               const std::string& base_dir, const LoadOptions& opts = {});

// Why `location` cannot name a model's external-data file, or "" when it can. It must be a
// relative path that stays inside the model's folder: not empty, no NUL byte, not absolute, no
// ".." component, and ending in a file name ("w.data", "weights/w.data"). The one rule of both
// sides: the loader refuses such a location in a file, and the writer (and the options, before
// any work) refuse to write one. With `model_path`, a location that names that model file itself
// is refused too (the data would overwrite the model, or the model the data).
std::string external_location_problem(std::string_view location, std::string_view model_path = {});

struct SaveOptions {
  enum class ExternalData {
    kAuto,    // tensors that came from external data go there again; everything goes there
              // (above size_threshold) when the file would pass the 2 GB protobuf limit
    kAlways,  // every tensor of at least size_threshold bytes goes to the external file
    kNever,   // one file; fails when that would pass the protobuf limit
  };
  ExternalData external = ExternalData::kAuto;
  std::string location;            // external file name, beside the model; default OUT.data
                                   // (checked with external_location_problem: a bad one is kUsage)
  uint64_t size_threshold = 1024;  // bytes: smaller tensors stay inline
  uint64_t protobuf_limit = (2ull << 30) - (64ull << 20);  // leave room under 2 GiB
  ProgressFn progress;
};

// Writes to a temporary file beside `path` and renames it into place only when complete.
Status save_model(const ir::Model& model, const std::string& path, const SaveOptions& opts = {});
// Serializes to bytes (no external data; fails past the protobuf limit).
Result<std::string> serialize_model(const ir::Model& model);

}  // namespace onnxtrim::onnx_io

namespace onnxtrim::onnx_io {
// Parses a model written in the ONNX text syntax ("<ir_version: 8, opset_import: ["" : 17]>
// g (float[N] x) => (float[N] y) { y = Relu(x) }").
Result<std::unique_ptr<ir::Model>> parse_text_model(const std::string& text);
// Parses a text of functions only, each "<domain: "d", opset_import: ["" : 17]> NAME (x) => (y)
// { ... }", into a model of no nodes holding them (rewrite rules); errors name `where`.
Result<std::unique_ptr<ir::Model>> parse_text_functions(const std::string& text, const std::string& where);
}  // namespace onnxtrim::onnx_io

#include "ir/runtime_value.h"

namespace onnxtrim::onnx_io {
// Reads a test-data .pb file: a TensorProto, or a SequenceProto / OptionalProto when the
// expected type says so.
Result<ir::RuntimeValue> load_value_file(const std::string& path, const ir::Type& expected);
// A serialized TensorProto <-> Tensor (e.g. `--input name=file.pb`).
Result<ir::Tensor> parse_tensor_proto(std::string_view bytes);
Result<std::string> serialize_tensor_proto(const ir::Tensor& t);
}  // namespace onnxtrim::onnx_io
