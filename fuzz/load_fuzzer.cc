// libFuzzer target: arbitrary bytes through the loader, then (when they load) the verifier,
// the printer and the serializer. Nothing may crash, leak or trip a sanitizer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "onnx_io/onnx_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onnxtrim;
  onnx_io::LoadOptions opts;
  opts.load_external_data = false;  // no file access from fuzzed bytes
  auto r =
      onnx_io::parse_model(std::string_view(reinterpret_cast<const char*>(data), size), "<fuzz>", "/nonexistent", opts);
  if (!r) return 0;
  (void)ir::verify_model(*r.value());
  (void)ir::print_model(*r.value());
  (void)onnx_io::serialize_model(*r.value());
  return 0;
}
