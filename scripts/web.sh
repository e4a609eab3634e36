#!/usr/bin/env bash
# Builds onnxtrim for WebAssembly and writes the static site to build-web/site/:
#   the page (every file of web/site/), onnxtrim.js (the JS API: globalThis.onnxtrim) and
#   onnxtrim-core.js + onnxtrim-core.wasm (emscripten's output, loaded by onnxtrim.js from the
#   same directory). Serve it with: python3 -m http.server -d build-web/site
# Needs Debian 12's emscripten (scripts/setup.sh installs it, dpkg-dev and the deb-src lines).
# libprotobuf and RE2 are built for wasm from Debian's own source packages (the versions the
# native build links) into build-web/deps/, once: a later run reuses them.
#   scripts/web.sh            deps (if missing), the library, the site
#   JOBS=N scripts/web.sh     parallel jobs (default 2)
#   WEB_OUT=DIR scripts/web.sh  everything in DIR instead of build-web/ (a from-scratch build)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${WEB_OUT:-$ROOT/build-web}
DEPS=$OUT/deps
JOBS=${JOBS:-2}
# Debian's emcc runs its JS tools with the system node; they need acorn from /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs
command -v emcc >/dev/null || { echo "web.sh: emcc not found: run scripts/setup.sh" >&2; exit 1; }

# Every object of the module (deps included) uses wasm's native exceptions; mixing exception
# models does not link.
WASM_FLAGS="-fwasm-exceptions -msimd128"
now() { date +%s; }

build_protobuf() {
  local src
  src=$(ls -d "$DEPS"/src/protobuf-*/ 2>/dev/null | head -1 || true)
  if [ -z "$src" ]; then
    mkdir -p "$DEPS/src"
    (cd "$DEPS/src" && apt-get source -qq protobuf >/dev/null 2>&1) || {
      echo "web.sh: 'apt-get source protobuf' failed (deb-src lines: scripts/setup.sh)" >&2; exit 1; }
    src=$(ls -d "$DEPS"/src/protobuf-*/ | head -1)
  fi
  # libprotobuf only: no protoc, no libprotoc, no tests, no zlib (the host's protoc generates
  # the ONNX classes).
  emcmake cmake -S "$src" -B "$DEPS/protobuf-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$WASM_FLAGS" -DCMAKE_C_FLAGS="$WASM_FLAGS" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=OFF -Dprotobuf_BUILD_LIBPROTOC=OFF \
    -Dprotobuf_WITH_ZLIB=OFF -Dprotobuf_BUILD_SHARED_LIBS=OFF -Dprotobuf_INSTALL=ON \
    -DCMAKE_INSTALL_PREFIX="$DEPS/prefix" >/dev/null
  # Only the objects the ONNX classes and the loader need: the lite runtime and the full
  # runtime's reflection and text format, not the JSON/util, compiler, gzip and well-known-type
  # sources (a third of libprotobuf's files, none of which the module links).
  local objs=()
  while read -r f; do
    case "$f" in
      */util/*|*/compiler/*|*/gzip_stream.cc|*/service.cc) continue ;;
      */api.pb.cc|*/duration.pb.cc|*/empty.pb.cc|*/field_mask.pb.cc|*/source_context.pb.cc) continue ;;
      */struct.pb.cc|*/timestamp.pb.cc|*/type.pb.cc|*/wrappers.pb.cc) continue ;;
    esac
    objs+=("CMakeFiles/libprotobuf.dir/${f#\${protobuf_SOURCE_DIR\}/}.o")
  done < <(sed -n 's/^ *\(\${protobuf_SOURCE_DIR}\/src\/google\/protobuf\/[^ )]*\.cc\).*/\1/p' \
             "$src/cmake/libprotobuf-lite.cmake" "$src/cmake/libprotobuf.cmake" | sort -u)
  (cd "$DEPS/protobuf-build" && ninja -j"$JOBS" "${objs[@]}")
  mkdir -p "$DEPS/prefix/lib" "$DEPS/prefix/include"
  rm -f "$DEPS/prefix/lib/libprotobuf.a"
  (cd "$DEPS/protobuf-build" && emar qc "$DEPS/prefix/lib/libprotobuf.a" "${objs[@]}" && emranlib "$DEPS/prefix/lib/libprotobuf.a")
  (cd "$src/src" && find google \( -name '*.h' -o -name '*.inc' \) -exec cp --parents {} "$DEPS/prefix/include/" \;)
  touch "$DEPS/prefix/protobuf.done"
}

build_re2() {
  local src
  src=$(ls -d "$DEPS"/src/re2-*/ 2>/dev/null | head -1 || true)
  if [ -z "$src" ]; then
    mkdir -p "$DEPS/src"
    (cd "$DEPS/src" && apt-get source -qq re2 >/dev/null 2>&1) || {
      echo "web.sh: 'apt-get source re2' failed (deb-src lines: scripts/setup.sh)" >&2; exit 1; }
    src=$(ls -d "$DEPS"/src/re2-*/ | head -1)
  fi
  # The Debian source leaves out RE2's generated tables: made as the package makes them
  # (REBUILD_TABLES, from unicode-data's files).
  if [ ! -f "$src/re2/unicode_groups.cc" ]; then
    make -C "$src" -s REBUILD_TABLES=1 re2/perl_groups.cc re2/unicode_casefold.cc re2/unicode_groups.cc
  fi
  emcmake cmake -S "$src" -B "$DEPS/re2-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$WASM_FLAGS" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DRE2_BUILD_TESTING=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX="$DEPS/prefix" >/dev/null
  cmake --build "$DEPS/re2-build" -j"$JOBS" --target re2
  mkdir -p "$DEPS/prefix/lib" "$DEPS/prefix/include/re2"
  cp "$DEPS/re2-build/libre2.a" "$DEPS/prefix/lib/"
  cp "$src"/re2/{re2,stringpiece,set,filtered_re2}.h "$DEPS/prefix/include/re2/"
  touch "$DEPS/prefix/re2.done"
}

t0=$(now)
[ -f "$DEPS/prefix/protobuf.done" ] || build_protobuf
[ -f "$DEPS/prefix/re2.done" ] || build_re2
t1=$(now)
echo "web.sh: deps ready ($((t1 - t0)) s)"

# The library and the module: Release, unity batches, wasm exceptions and SIMD.
if [ ! -f "$OUT/lib/CMakeCache.txt" ]; then
  emcmake cmake -S . -B "$OUT/lib" -G Ninja -DONNXTRIM_WEB=ON -DONNXTRIM_WEB_DEPS="$DEPS/prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$WASM_FLAGS" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" >/dev/null
fi
cmake --build "$OUT/lib" -j"$JOBS"
t2=$(now)
echo "web.sh: library and module built ($((t2 - t1)) s)"

# The site: the page (web/site/), the JS API and the module. Nothing else is fetched.
SITE=$OUT/site
mkdir -p "$SITE"
if [ -d web/site ]; then cp -r web/site/. "$SITE/"; fi
cp "$OUT/lib/onnxtrim.js" "$OUT/lib/onnxtrim-core.js" "$OUT/lib/onnxtrim-core.wasm" "$SITE/"
echo "web.sh: site written to ${SITE#"$ROOT"/} ($(stat -c %s "$SITE/onnxtrim-core.wasm") bytes of wasm," \
  "$(stat -c %s "$SITE/onnxtrim-core.js") of JS glue); serve it with: python3 -m http.server -d ${SITE#"$ROOT"/}"
