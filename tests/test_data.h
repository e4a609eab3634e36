// Where the ONNX backend test data is, for the C++ test programs: the ONNXTRIM_TEST_DATA
// environment variable when set, else the CMake option of that name (compiled in as
// ONNXTRIM_TEST_DATA; default ../shared/onnx-tests). tests/e2e/test_data.py does the same for
// the scripts. A suite that finds no data fails with the one line test_data_missing() gives.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace onnxtrim::test {

inline std::string test_data_dir() {
  const char* e = std::getenv("ONNXTRIM_TEST_DATA");
  if (e && *e) return e;
  return ONNXTRIM_TEST_DATA;
}

// "" when dir (or dir/sub) is a folder; else one line saying where the data was looked for.
inline std::string test_data_missing(const std::string& dir, const std::string& sub = "") {
  std::filesystem::path p = sub.empty() ? std::filesystem::path(dir) : std::filesystem::path(dir) / sub;
  std::error_code ec;
  if (!dir.empty() && std::filesystem::is_directory(p, ec)) return "";
  return "ONNX test data not found: looked in '" + p.string() +
         "' (set the ONNXTRIM_TEST_DATA environment variable or CMake option to the onnx-tests folder)";
}

}  // namespace onnxtrim::test
