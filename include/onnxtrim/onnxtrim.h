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
/* The same, with *error (may be NULL) set to the CLI's message on failure ("unknown option
 * '--colour'", "--opset: needs an integer >= 1, not 'x'"). */
int onnxtrim_options_try_set(onnxtrim_options* options, const char* name, const char* value, char** error);
/* Progress of the runs made with these options: fn(stage, done, total, user) as each stage
 * starts or advances ("loading", "round 2: fold_constants", "check", "saving"; done and total
 * count bytes or steps, 0 when not counted), on the calling thread. fn NULL: none. */
typedef void (*onnxtrim_progress_fn)(const char* stage, double done, double total, void* user);
void onnxtrim_options_set_progress(onnxtrim_options* options, onnxtrim_progress_fn fn, void* user);

/* A user rewrite rule written as code (docs/rewrite-rules.md): called once per round of the fixed
 * point, after the built-in passes, as the pass "user:NAME", with the model as it is, as serialized
 * ModelProto bytes (valid during the call). Returns 1 after setting *out and *out_size to the
 * changed model (serialized, in memory from malloc: the library frees it; the same graph inputs
 * and outputs, by name), 0 when it changed nothing, anything else to fail the run (exit code 2; a
 * message from malloc in *error, if any, is reported and freed). The result is checked like any
 * run's. A model past 2 GB cannot be handed over (the run fails). */
typedef int (*onnxtrim_rewrite_fn)(void* user_data, const void* model, size_t model_size, void** out, size_t* out_size,
                                   char** error);
/* Adds a rewrite rule named name (the pass "user:NAME"); user_data is passed to every call.
 * Rules given as ONNX functions instead: onnxtrim_options_set(o, "rewrite-rules", "FILE"). Returns
 * 0, or 2 for a missing name or function. */
int onnxtrim_options_add_rewriter(onnxtrim_options* options, const char* name, onnxtrim_rewrite_fn fn, void* user_data);

/* Loads in_path (external data beside it), simplifies, checks and writes out_path. Returns 0 on
 * success, otherwise the CLI's exit code with *error set to the CLI's message. report_json
 * (may be NULL) receives the JSON report, also when the check failed. options may be NULL. */
int onnxtrim_simplify_file(const char* in_path, const char* out_path, const onnxtrim_options* options,
                           char** report_json, char** error);

/* The same for a model held in memory (no external data; fails past 2 GB). On success *out
 * and *out_size hold the serialized result. */
int onnxtrim_simplify_buffer(const void* in, size_t in_size, const onnxtrim_options* options, void** out,
                             size_t* out_size, char** report_json, char** error);

/* The CLI's `inspect`: *json receives the summary of the model at path (inputs, outputs,
 * opsets, op histogram, sizes). Returns 0, or the CLI's exit code with *error set. */
int onnxtrim_inspect_file(const char* path, char** json, char** error);

/* The CLI's `verify A B`: runs both models on the same inputs (options: the check's, e.g.
 * "samples", "dim", "rtol") and compares their outputs. *json receives the check (the report's
 * "verification" object) whenever it ran. Returns 0 when the outputs agree, 1 when they differ
 * (*error: the first difference), or another CLI exit code with *error set. */
int onnxtrim_verify_files(const char* a_path, const char* b_path, const onnxtrim_options* options, char** json,
                          char** error);

/* Frees anything the library returned (strings, buffers). NULL is fine. */
void onnxtrim_free(void* p);

#ifdef __cplusplus
}
#endif

#endif /* ONNXTRIM_ONNXTRIM_H_ */
