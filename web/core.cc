// The WebAssembly module (cmake/web.cmake) has no code of its own: it exports the C API
// (include/onnxtrim/onnxtrim.h, src/api/c_api.cc), which web/onnxtrim.js calls on files in
// emscripten's in-memory file system. This file only gives the link a source to start from.
#include "onnxtrim/onnxtrim.h"
