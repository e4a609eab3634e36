// The scratch file: large tensors made while simplifying (folded weights) are written into a
// file rather than kept in the heap, so that a model larger than memory can be simplified.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ir/mapped.h"

namespace onnxtrim::ir {

// Allocation goes there inside a ScratchScope, for buffers of at least its threshold. The file
// lives in the folder given by the thread's Session (simplify_file: the output's folder, so that
// saving copies within one file system) or by set_directory, else $TMPDIR, else /tmp; it has no
// name (O_TMPFILE, or unlinked at once), and a region's blocks are freed when its last tensor
// goes.
namespace scratch {
// A run's own scratch file, in `dir`: while the session lives, this thread's allocations,
// current() and detach() are about it alone, so that runs on other threads (each with its own
// session) never share a scratch file, and saving one run never adopts another's. Sessions
// nest; without one, a thread uses the process's default scratch file.
class Session {
 public:
  explicit Session(const std::string& dir);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  std::shared_ptr<void> prev_;
};
// The folder of the default scratch file (or of the thread's session).
void set_directory(const std::string& dir);
// A zero-filled, writable buffer of n bytes in the scratch file; nullptr if there is no
// scratch file (no writable folder): the caller falls back to the heap.
std::shared_ptr<MappedBuffer> allocate(size_t n);
// Bytes of scratch space in use (regions not yet given back).
uint64_t bytes_in_use();

// Saving can make the scratch file the external-data file of the model it writes (when both
// are on one file system): the folded weights are then written once, where they were computed.
struct Current {
  std::shared_ptr<const FileOrigin> origin;  // null: no scratch file that could be kept
  uint64_t end = 0;                          // its allocated size (regions are below)
};
Current current();
// The scratch file became a saved file: its regions stay as they are for good (never freed
// again, and read-only: a tensor written later is copied first), and allocation starts a new
// scratch file.
void detach(const FileOrigin* origin);
}  // namespace scratch

class ScratchScope {
 public:
  explicit ScratchScope(size_t threshold);
  ~ScratchScope();
  ScratchScope(const ScratchScope&) = delete;
  ScratchScope& operator=(const ScratchScope&) = delete;
  // The threshold of the innermost scope on this thread (SIZE_MAX: none).
  static size_t threshold();

 private:
  size_t prev_;
};

}  // namespace onnxtrim::ir
