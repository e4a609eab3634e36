/* Built against the installed prefix (pkg-config onnxtrim): simplifies a model through the C API,
 * from a file and from a buffer, and checks the error path. Usage: c_consumer IN.onnx OUT.onnx */
#include <onnxtrim/onnxtrim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char* what) {
  fprintf(stderr, "c_consumer: %s\n", what);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: c_consumer IN.onnx OUT.onnx");
  printf("onnxtrim %s\n", onnxtrim_version());
  onnxtrim_options* o = onnxtrim_options_new();
  if (!o) return fail("no options");
  if (onnxtrim_options_set(o, "dim", "batch=2") != 0) return fail("set dim");
  if (onnxtrim_options_set(o, "skip", "fuse_conv_bn") != 0) return fail("set skip");
  if (onnxtrim_options_set(o, "no-such-option", "") != 2) return fail("unknown option accepted");
  char *report = NULL, *error = NULL;
  int rc = onnxtrim_simplify_file(argv[1], argv[2], o, &report, &error);
  if (rc != 0) {
    fprintf(stderr, "c_consumer: simplify_file: %d %s\n", rc, error ? error : "");
    return 1;
  }
  if (!report || !strstr(report, "\"verification\"") || !strstr(report, "\"ok\": true")) return fail("report");
  onnxtrim_free(report);

  FILE* f = fopen(argv[1], "rb");
  if (!f) return fail("open");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* buf = malloc((size_t)n);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) return fail("read");
  fclose(f);
  void* out = NULL;
  size_t out_size = 0;
  rc = onnxtrim_simplify_buffer(buf, (size_t)n, o, &out, &out_size, &report, &error);
  if (rc != 0 || !out || out_size == 0 || out_size >= (size_t)n) return fail("simplify_buffer");
  onnxtrim_free(out);
  onnxtrim_free(report);

  rc = onnxtrim_simplify_buffer("not a model", 11, NULL, &out, &out_size, &report, &error);
  if (rc != 4 || !error || out != NULL) return fail("garbage was not exit code 4");
  printf("error path: %d %s\n", rc, error);
  onnxtrim_free(error);

  /* The CLI's other exit codes: a missing file (3), and a check that finds differences (1: an
   * exact comparison, where fusing changes the float rounding), with the report still given. */
  rc = onnxtrim_simplify_file("/nonexistent/model.onnx", argv[2], NULL, NULL, &error);
  if (rc != 3 || !error || !strstr(error, "/nonexistent/model.onnx")) return fail("a missing file was not exit code 3");
  onnxtrim_free(error);
  onnxtrim_options* exact = onnxtrim_options_new();
  if (onnxtrim_options_set(exact, "rtol", "0") != 0 || onnxtrim_options_set(exact, "atol", "0") != 0)
    return fail("rtol");
  if (onnxtrim_options_set(exact, "samples", "many") != 2) return fail("a bad value was accepted");
  rc = onnxtrim_simplify_file(argv[1], argv[2], exact, &report, &error);
  if (rc != 1 || !error || strncmp(error, argv[1], strlen(argv[1])) != 0 ||
      !strstr(error, "computes different outputs") || !report || !strstr(report, "\"ok\": false"))
    return fail("a failed check was not exit code 1 with its report");
  printf("check failed: %d %s\n", rc, error);
  onnxtrim_free(report);
  onnxtrim_free(error);
  onnxtrim_options_free(exact);
  onnxtrim_options_free(o);
  free(buf);
  printf("c_consumer: ok\n");
  return 0;
}
