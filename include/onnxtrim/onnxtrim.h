/* onnxtrim: simplify ONNX models (C API, for Rust, Go (cgo) and every language with a C FFI).
 *
 *   onnxtrim_options* o = onnxtrim_options_new();
 *   onnxtrim_options_set(o, "dim", "batch=1");
 *   char *report = NULL, *error = NULL;
 *   int rc = onnxtrim_simplify_file("in.onnx", "out.onnx", o, &report, &error);
 *   if (rc != 0) fprintf(stderr, "%s\n", error);   // rc is the CLI's exit code
 *   onnxtrim_free(report); onnxtrim_free(error); onnxtrim_options_free(o);
 *
 * Link with -lonnxtrim (pkg-config onnxtrim). Every function is thread-safe on distinct
 * arguments; every string or buffer the library returns is freed with onnxtrim_free. */
#ifndef ONNXTRIM_ONNXTRIM_H_
#define ONNXTRIM_ONNXTRIM_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct onnxtrim_options onnxtrim_options; /* opaque */

/* "0.2.0" */
const char* onnxtrim_version(void);

/* Options start at the CLI's defaults (the check is on). */
onnxtrim_options* onnxtrim_options_new(void);
/* Sets an option by its CLI long name without "--" ("dim" "batch=1", "skip" "fuse_conv_bn",
 * "target" "coreml", "no-verify" ""). Flags take "" (or "true"/"false"). Returns 0, or 2 (the
 * CLI's usage exit code) for an unknown name or a bad value. */
int onnxtrim_options_set(onnxtrim_options* options, const char* name, const char* value);
void onnxtrim_options_free(onnxtrim_options* options);

/* Loads in_path (external data beside it), simplifies, checks and writes out_path. Returns 0 on
 * success, otherwise the CLI's exit code with *error set to the CLI's message. report_json
 * (may be NULL) receives the JSON report, also when the check failed. options may be NULL. */
int onnxtrim_simplify_file(const char* in_path, const char* out_path, const onnxtrim_options* options,
                           char** report_json, char** error);

/* The same for a model held in memory (no external data; fails past 2 GB). On success *out
 * and *out_size hold the serialized result. */
int onnxtrim_simplify_buffer(const void* in, size_t in_size, const onnxtrim_options* options, void** out,
                             size_t* out_size, char** report_json, char** error);

/* Frees anything the library returned (strings, buffers). NULL is fine. */
void onnxtrim_free(void* p);

#ifdef __cplusplus
}
#endif

#endif /* ONNXTRIM_ONNXTRIM_H_ */
