// The C API (include/onnxtrim/onnxtrim.h): a thin layer over the C++ API. Exceptions never
// cross it: each becomes the CLI's exit code and message.
#include "onnxtrim/onnxtrim.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "onnxtrim/onnxtrim.hpp"

struct onnxtrim_options {
  onnxtrim::Options opts;
};

namespace {

char* dup(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

void set_out(char** dst, const std::string& s) {
  if (dst) *dst = dup(s);
}

template <typename F>
int guarded(char** report_json, char** error, F&& f) {
  if (error) *error = nullptr;
  if (report_json) *report_json = nullptr;
  try {
    f();
    return 0;
  } catch (const onnxtrim::VerificationFailed& e) {
    set_out(report_json, e.report().to_json());
    set_out(error, e.what());
    return e.exit_code();
  } catch (const onnxtrim::Error& e) {
    set_out(error, e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    set_out(error, "out of memory");
    return onnxtrim::kExitInternal;
  } catch (const std::exception& e) {
    set_out(error, std::string("internal error: ") + e.what());
    return onnxtrim::kExitInternal;
  }
}

}  // namespace

extern "C" {

const char* onnxtrim_version(void) { return onnxtrim::version(); }

onnxtrim_options* onnxtrim_options_new(void) { return new (std::nothrow) onnxtrim_options(); }

int onnxtrim_options_set(onnxtrim_options* options, const char* name, const char* value) {
  if (!options || !name) return onnxtrim::kExitUsage;
  try {
    options->opts.set(name, value ? value : "");
    return 0;
  } catch (const onnxtrim::Error& e) {
    return e.exit_code();
  } catch (...) {
    return onnxtrim::kExitInternal;
  }
}

void onnxtrim_options_free(onnxtrim_options* options) { delete options; }

int onnxtrim_options_try_set(onnxtrim_options* options, const char* name, const char* value, char** error) {
  return guarded(nullptr, error, [&] {
    if (!options || !name) throw onnxtrim::Error(onnxtrim::kExitUsage, "options and name are required");
    options->opts.set(name, value ? value : "");
  });
}

void onnxtrim_options_set_progress(onnxtrim_options* options, onnxtrim_progress_fn fn, void* user) {
  if (!options) return;
  if (!fn) {
    options->opts.progress = nullptr;
    return;
  }
  options->opts.progress = [fn, user](const std::string& stage, uint64_t done, uint64_t total) {
    fn(stage.c_str(), static_cast<double>(done), static_cast<double>(total), user);
  };
}

int onnxtrim_options_add_rewriter(onnxtrim_options* options, const char* name, onnxtrim_rewrite_fn fn,
                                  void* user_data) {
  if (!options || !name || !*name || !fn) return onnxtrim::kExitUsage;
  try {
    options->opts.rewriters.push_back(onnxtrim::RewriteCallback{
        name, [fn, user_data](onnxtrim::Model& m) {
          const std::string in = m.serialize();
          void* out = nullptr;
          size_t out_size = 0;
          char* error = nullptr;
          const int rc = fn(user_data, in.data(), in.size(), &out, &out_size, &error);
          std::string message = error ? error : "";
          std::free(error);
          if (rc == 0) {
            std::free(out);
            return false;
          }
          if (rc != 1) {
            std::free(out);
            throw onnxtrim::Error(onnxtrim::kExitUsage,
                                  "returned " + std::to_string(rc) + (message.empty() ? "" : ": " + message));
          }
          if (!out) throw onnxtrim::Error(onnxtrim::kExitUsage, "returned 1 without a model");
          std::string bytes(static_cast<const char*>(out), out_size);
          std::free(out);
          if (bytes == in) return false;  // handed back as it was
          m = onnxtrim::Model::parse(bytes.data(), bytes.size());
          return true;
        }});
    return 0;
  } catch (...) {
    return onnxtrim::kExitInternal;
  }
}

int onnxtrim_simplify_file(const char* in_path, const char* out_path, const onnxtrim_options* options,
                           char** report_json, char** error) {
  return guarded(report_json, error, [&] {
    if (!in_path || !out_path) throw onnxtrim::Error(onnxtrim::kExitUsage, "in_path and out_path are required");
    onnxtrim::Options o = options ? options->opts : onnxtrim::Options();
    o.quiet = true;
    onnxtrim::Report r = onnxtrim::simplify_file(in_path, out_path, o);
    set_out(report_json, r.to_json());
  });
}

int onnxtrim_simplify_buffer(const void* in, size_t in_size, const onnxtrim_options* options, void** out,
                             size_t* out_size, char** report_json, char** error) {
  if (out) *out = nullptr;
  if (out_size) *out_size = 0;
  return guarded(report_json, error, [&] {
    if (!in || !out || !out_size) throw onnxtrim::Error(onnxtrim::kExitUsage, "in, out and out_size are required");
    onnxtrim::Options o = options ? options->opts : onnxtrim::Options();
    onnxtrim::Model m = onnxtrim::Model::parse(in, in_size);
    onnxtrim::Report r = onnxtrim::simplify(m, o);
    std::string bytes = m.serialize();
    void* buf = std::malloc(bytes.size() ? bytes.size() : 1);
    if (!buf) throw std::bad_alloc();
    std::memcpy(buf, bytes.data(), bytes.size());
    *out = buf;
    *out_size = bytes.size();
    set_out(report_json, r.to_json());
  });
}

int onnxtrim_inspect_file(const char* path, char** json, char** error) {
  return guarded(json, error, [&] {
    if (!path) throw onnxtrim::Error(onnxtrim::kExitUsage, "path is required");
    set_out(json, onnxtrim::inspect_json(onnxtrim::Model::load(path)));
  });
}

int onnxtrim_verify_files(const char* a_path, const char* b_path, const onnxtrim_options* options, char** json,
                          char** error) {
  return guarded(json, error, [&] {
    if (!a_path || !b_path) throw onnxtrim::Error(onnxtrim::kExitUsage, "a_path and b_path are required");
    onnxtrim::Options o = options ? options->opts : onnxtrim::Options();
    onnxtrim::Model a = onnxtrim::Model::load(a_path);
    onnxtrim::Model b = onnxtrim::Model::load(b_path);
    onnxtrim::Verification v = onnxtrim::verify(a, b, o);
    set_out(json, v.to_json());
    if (!v.ok) throw onnxtrim::Error(onnxtrim::kExitMismatch, "the models compute different outputs: " + v.why);
  });
}

void onnxtrim_free(void* p) { std::free(p); }

}  // extern "C"
