// A stand-in for libFuzzer's driver, for builds without clang: runs LLVMFuzzerTestOneInput on
// seed files, then on mutants of them, for a time budget. No coverage feedback and no
// sanitizers (the library is compiled as for the suite): it finds crashes, aborts (the targets'
// own checks: internal errors, verifier failures, round trips that differ), hangs and
// oversized allocations, which is what the suite can afford to look for in a few seconds. The
// real campaign is `scripts/fuzz.sh N pipeline` (clang, libFuzzer, ASan and UBSan).
//
//   pipeline_fuzz_mutate [-max_total_time=S] [-runs=N] [-seed=N] [-max_len=B] [-timeout=S]
//                        [-dict=FILE] [-artifact_prefix=P] FILE_OR_DIR...
//
// A directory contributes its *.onnx files (recursively). The input that crashed, aborted,
// hung or asked for more than 2 GB at once is written to P + "crash-seedN" before the process
// dies; `pipeline_fuzz_mutate -max_total_time=0 FILE` runs that file alone to reproduce it.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Set by the pipeline target (fuzz/pipeline_fuzzer.cc): inputs loaded, simplified, round-tripped.
extern "C" __attribute__((weak)) unsigned long long onnxtrim_pipeline_fuzzer_stats[3];

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

// ---- the input being run, for the signal handlers (written with async-signal-safe calls only)
const uint8_t* g_current = nullptr;
size_t g_current_size = 0;
char g_artifact[4096] = "crash-input";
unsigned long long g_runs = 0;  // inputs started, the current one included

// Appends the decimal digits of n to p (no allocation: called from signal handlers).
char* put_number(char* p, unsigned long long n) {
  char digits[24];
  int k = 0;
  do digits[k++] = static_cast<char>('0' + n % 10);
  while ((n /= 10) != 0);
  while (k) *p++ = digits[--k];
  return p;
}

void save_current_and_die(int sig) {
  int fd = ::open(g_artifact, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    size_t done = 0;
    while (g_current && done < g_current_size) {
      ssize_t w = ::write(fd, g_current + done, g_current_size - done);
      if (w <= 0) break;
      done += static_cast<size_t>(w);
    }
    ::close(fd);
  }
  const char* what = sig == SIGALRM ? "pipeline_fuzz_mutate: an input ran past the timeout (a hang), saved to "
                                    : "pipeline_fuzz_mutate: an input crashed or aborted, saved to ";
  char head[96] = "pipeline_fuzz_mutate: signal ";
  char* p = put_number(head + std::strlen(head), static_cast<unsigned long long>(sig));
  std::memcpy(p, " in input #", 11);
  p = put_number(p + 11, g_runs);
  *p++ = '\n';
  (void)!::write(2, head, static_cast<size_t>(p - head));
  (void)!::write(2, what, std::strlen(what));
  (void)!::write(2, g_artifact, std::strlen(g_artifact));
  (void)!::write(2, "\n", 1);
  ::signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
  ::raise(sig == SIGALRM ? SIGABRT : sig);
}

// ---- oversized allocations: libFuzzer's -malloc_limit_mb, for operator new
constexpr size_t kMallocLimit = size_t{2} << 30;

[[noreturn]] void too_big(size_t n) {
  char msg[128];
  int len = std::snprintf(msg, sizeof msg, "pipeline_fuzz_mutate: one allocation of %zu bytes (limit %zu)\n", n,
                          kMallocLimit);
  (void)!::write(2, msg, static_cast<size_t>(len));
  save_current_and_die(SIGABRT);
  std::abort();
}

// ---- the dictionary: libFuzzer's format, one "token" per line, \xNN and \\ \" escapes
std::vector<Bytes> read_dict(const std::string& path) {
  std::vector<Bytes> out;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    size_t a = line.find('"'), b = line.rfind('"');
    if (line.empty() || line[0] == '#' || a == std::string::npos || b <= a) continue;
    Bytes tok;
    for (size_t i = a + 1; i < b; ++i) {
      if (line[i] == '\\' && i + 1 < b) {
        if (line[i + 1] == 'x' && i + 3 < b) {
          tok.push_back(static_cast<uint8_t>(std::strtoul(line.substr(i + 2, 2).c_str(), nullptr, 16)));
          i += 3;
        } else {
          tok.push_back(static_cast<uint8_t>(line[++i]));
        }
      } else {
        tok.push_back(static_cast<uint8_t>(line[i]));
      }
    }
    if (!tok.empty()) out.push_back(std::move(tok));
  }
  return out;
}

void add_seed(const fs::path& p, size_t max_len, std::vector<Bytes>& seeds) {
  std::error_code ec;
  auto size = fs::file_size(p, ec);
  if (ec || size > max_len) return;
  std::ifstream f(p, std::ios::binary);
  Bytes b(static_cast<size_t>(size));
  if (size && !f.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(size))) return;
  seeds.push_back(std::move(b));
}

// One mutation of `b` (libFuzzer's usual repertoire, minus the ones that need coverage data).
void mutate(Bytes& b, const std::vector<Bytes>& seeds, const std::vector<Bytes>& dict, std::mt19937_64& rng,
            size_t max_len) {
  auto pick = [&](size_t n) { return n ? static_cast<size_t>(rng() % n) : 0; };
  static const uint8_t interesting[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0x10, 0x40, 0xfe};
  switch (rng() % 9) {
    case 0:  // flip a bit
      if (!b.empty()) b[pick(b.size())] ^= static_cast<uint8_t>(1u << (rng() % 8));
      break;
    case 1:  // an interesting byte
      if (!b.empty()) b[pick(b.size())] = interesting[pick(sizeof interesting)];
      break;
    case 2:  // a random byte
      if (!b.empty()) b[pick(b.size())] = static_cast<uint8_t>(rng());
      break;
    case 3: {  // erase a range
      if (b.empty()) break;
      size_t at = pick(b.size()), n = 1 + pick(std::min<size_t>(64, b.size() - at));
      b.erase(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(std::min(b.size(), at + n)));
      break;
    }
    case 4: {  // duplicate a range elsewhere
      if (b.empty()) break;
      size_t at = pick(b.size()), n = 1 + pick(std::min<size_t>(64, b.size() - at));
      Bytes chunk(b.begin() + static_cast<ptrdiff_t>(at),
                  b.begin() + static_cast<ptrdiff_t>(std::min(b.size(), at + n)));
      b.insert(b.begin() + static_cast<ptrdiff_t>(pick(b.size() + 1)), chunk.begin(), chunk.end());
      break;
    }
    case 5: {  // a dictionary token, inserted or written over
      if (dict.empty()) break;
      const Bytes& t = dict[pick(dict.size())];
      size_t at = pick(b.size() + 1);
      if (rng() % 2 || at + t.size() > b.size()) b.insert(b.begin() + static_cast<ptrdiff_t>(at), t.begin(), t.end());
      else std::copy(t.begin(), t.end(), b.begin() + static_cast<ptrdiff_t>(at));
      break;
    }
    case 6: {  // splice with another seed
      const Bytes& o = seeds[pick(seeds.size())];
      if (o.empty() || b.empty()) break;
      size_t from = pick(o.size()), n = 1 + pick(std::min<size_t>(256, o.size() - from));
      size_t at = pick(b.size());
      b.resize(at);
      b.insert(b.end(), o.begin() + static_cast<ptrdiff_t>(from),
               o.begin() + static_cast<ptrdiff_t>(std::min(o.size(), from + n)));
      break;
    }
    case 7: {  // a varint made larger or smaller: lengths, dims, enum values
      if (b.empty()) break;
      size_t at = pick(b.size());
      b[at] = static_cast<uint8_t>(b[at] + (rng() % 2 ? 1 : -1));
      break;
    }
    default: {  // an int64 worth of extreme bytes (dims, offsets)
      static const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
      size_t at = pick(b.size() + 1);
      b.insert(b.begin() + static_cast<ptrdiff_t>(at), big + pick(9), big + sizeof big);
      break;
    }
  }
  if (b.size() > max_len) b.resize(max_len);
}

bool flag(const char* arg, const char* name, std::string& value) {
  size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  value = arg + n + 1;
  return true;
}

}  // namespace

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // new and delete below are malloc and free
void* operator new(size_t n) {
  if (n > kMallocLimit) too_big(n);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

int main(int argc, char** argv) {
  double seconds = 10;
  uint64_t runs = UINT64_MAX, seed = 1;
  size_t max_len = 65536;
  unsigned timeout = 25;
  std::string dict_path, prefix, v;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (flag(argv[i], "-max_total_time", v)) seconds = std::atof(v.c_str());
    else if (flag(argv[i], "-runs", v)) runs = std::strtoull(v.c_str(), nullptr, 10);
    else if (flag(argv[i], "-seed", v)) seed = std::strtoull(v.c_str(), nullptr, 10);
    else if (flag(argv[i], "-max_len", v)) max_len = std::strtoull(v.c_str(), nullptr, 10);
    else if (flag(argv[i], "-timeout", v)) timeout = static_cast<unsigned>(std::atoi(v.c_str()));
    else if (flag(argv[i], "-dict", v)) dict_path = v;
    else if (flag(argv[i], "-artifact_prefix", v)) prefix = v;
    else if (argv[i][0] == '-') {
      std::fprintf(stderr, "pipeline_fuzz_mutate: unknown flag %s\n", argv[i]);
      return 2;
    } else paths.push_back(argv[i]);
  }
  std::vector<Bytes> seeds;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".onnx") files.push_back(it->path());
      std::sort(files.begin(), files.end());  // the same order on every machine
      for (const auto& f : files) add_seed(f, max_len, seeds);
    } else if (fs::is_regular_file(p, ec)) {
      add_seed(p, SIZE_MAX, seeds);
    }
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "pipeline_fuzz_mutate: no input found in the given files and folders\n");
    return 2;
  }
  std::vector<Bytes> dict = dict_path.empty() ? std::vector<Bytes>{} : read_dict(dict_path);

  std::snprintf(g_artifact, sizeof g_artifact, "%scrash-seed%llu", prefix.c_str(),
                static_cast<unsigned long long>(seed));
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGALRM}) ::signal(sig, save_current_and_die);

  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  auto run_one = [&](const Bytes& b) {
    g_current = b.data();
    g_current_size = b.size();
    ++g_runs;
    ::alarm(timeout);
    LLVMFuzzerTestOneInput(b.data(), b.size());
    ::alarm(0);
  };
  std::mt19937_64 rng(seed);
  // Every seed once (with -max_total_time=0 only that: a reproduction), then mutants of random
  // seeds, 1 to 4 mutations each, until the time or the run count is used.
  bool replay_only = seconds <= 0;
  uint64_t n_seeds = 0, n_mutants = 0;
  for (const Bytes& s : seeds) {
    if (n_seeds >= runs || (!replay_only && n_seeds > 0 && elapsed() > seconds / 2)) break;
    run_one(s);
    ++n_seeds;
  }
  while (!replay_only && n_seeds + n_mutants < runs && elapsed() < seconds) {
    Bytes b = seeds[static_cast<size_t>(rng() % seeds.size())];
    for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) mutate(b, seeds, dict, rng, max_len);
    run_one(b);
    ++n_mutants;
  }
  std::printf(
      "pipeline_fuzz_mutate: seed %llu: %zu seed inputs available, %llu run, %llu mutants in %.1f s; no crash\n",
      static_cast<unsigned long long>(seed), seeds.size(), static_cast<unsigned long long>(n_seeds),
      static_cast<unsigned long long>(n_mutants), elapsed());
  if (onnxtrim_pipeline_fuzzer_stats)
    std::printf("pipeline_fuzz_mutate: %llu inputs loaded, %llu simplified, %llu saved and reloaded\n",
                onnxtrim_pipeline_fuzzer_stats[0], onnxtrim_pipeline_fuzzer_stats[1],
                onnxtrim_pipeline_fuzzer_stats[2]);
  return 0;
}
