#!/usr/bin/env bash
# Installs what onnxtrim needs on Debian 12 (as root, or with sudo). Idempotent: installs only
# what is missing, and does nothing at all when everything is there.
#   scripts/setup.sh           everything: building, the Python package, the whole test suite
#   scripts/setup.sh --build   only what building the CLI and the library needs (the demo)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  g++ make cmake pkg-config
  libprotobuf-dev protobuf-compiler libonnx-dev   # ONNX protobuf classes and text parser
  libopenblas-dev                                 # GEMM for MatMul/Gemm/Conv
  libre2-dev                                      # RegexFullMatch (the spec's RE2 syntax)
  nlohmann-json3-dev                              # JSON reports
  libmimalloc-dev                                 # the CLI's allocator (faster than glibc's on graphs)
)
if [ "${1:-}" != "--build" ]; then
  PACKAGES+=(
    libgtest-dev libgmock-dev libbenchmark-dev      # tests and benchmarks
    python3 python3-onnx python3-numpy              # test oracle (checker, shape inference)
    python3-dev pybind11-dev python3-pybind11       # the Python package
    python3-pytest python3-venv python3-build python3-wheel python3-setuptools
    clang libclang-rt-14-dev                        # libFuzzer and sanitizers
    clang-format-14                                 # the sources' layout (scripts/format.sh)
    python3-torch python3-torchvision               # real exports made by the tests (random weights)
    chromium                                        # the web page's test (headless, tests/web)
    emscripten dpkg-dev unicode-data                # the WebAssembly build (scripts/web.sh; RE2's tables)
  )
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# scripts/web.sh builds libprotobuf and RE2 for wasm from Debian's source packages (apt-get
# source): the archive's deb-src entries, added once where only binary packages are listed.
if [ "${1:-}" != "--build" ]; then
  SOURCES=/etc/apt/sources.list.d/debian.sources
  if [ -f "$SOURCES" ] && grep -q '^Types: deb$' "$SOURCES"; then
    echo "setup: adding deb-src to $SOURCES"
    $SUDO sed -i 's/^Types: deb$/Types: deb deb-src/' "$SOURCES"
    NEED_UPDATE=1
  fi
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})) || [ -n "${NEED_UPDATE:-}" ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "${1:-}" = "--build" ] && exit 0

# ONNX Runtime, the reference runtime of the end-to-end tests (npm package; its CUDA download
# is skipped: the tests run on the CPU).
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing nodejs and npm"
  export DEBIAN_FRONTEND=noninteractive
  ${SUDO:-} apt-get update -qq
  ${SUDO:-} apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if [ ! -f tests/e2e/ort/node_modules/onnxruntime-node/package.json ]; then
  echo "setup: installing onnxruntime-node"
  (cd tests/e2e/ort && ONNXRUNTIME_NODE_INSTALL_CUDA=skip npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
# puppeteer-core drives Debian's chromium in the web page's test; it downloads no browser.
if [ ! -f tests/web/node_modules/puppeteer-core/package.json ]; then
  echo "setup: installing puppeteer-core"
  (cd tests/web && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
