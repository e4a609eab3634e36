#include "test_util.h"

#include <cstdlib>
#include <filesystem>

namespace onnxtrim::test {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "onnxtrim-test-XXXXXX").string();
  char* p = mkdtemp(tmpl.data());
  path_ = p ? p : "";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

}  // namespace onnxtrim::test
