#!/usr/bin/env bash
# Installs the build tree into a fresh prefix and uses it as a downstream user would:
#   1. a C11 program compiled with pkg-config's flags, simplifying a fixture through the C API,
#      linked with the shared library and, with pkg-config --static, with the static archive;
#   2. a CMake project using find_package(onnxtrim CONFIG REQUIRED) and the C++ API;
#   3. the installed CLI, which carries no debug info (installed without --strip from a build
#      with debug info: the install itself strips it);
#   4. the README's Python, C and C++ examples.
# usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
fixture="$src/examples/dirty.onnx"

echo "== C API through pkg-config"
cc -std=c11 -Wall -Werror "$src/tests/install/c_consumer.c" -o "$tmp/c_consumer" \
  $(pkg-config --cflags --libs onnxtrim) -Wl,-rpath,"$tmp/prefix/lib"
"$tmp/c_consumer" "$fixture" "$tmp/c.onnx"
readelf -d "$tmp/prefix/lib/libonnxtrim.so" | grep -q "SONAME.*libonnxtrim.so.0" || { echo "no SONAME"; exit 1; }
readelf -d "$tmp/c_consumer" | grep -q "NEEDED.*libonnxtrim.so.0" || { echo "c_consumer does not use libonnxtrim.so.0"; exit 1; }
echo "== C API through pkg-config --static (the archive, every op and pass registered)"
cc -std=c11 -Wall -Werror "$src/tests/install/c_consumer.c" -o "$tmp/c_static" $(pkg-config --cflags onnxtrim) \
  $(pkg-config --static --libs onnxtrim | sed 's/-lonnxtrim /-l:libonnxtrim.a /')
if readelf -d "$tmp/c_static" | grep -q "NEEDED.*libonnxtrim"; then echo "c_static uses the shared library"; exit 1; fi
"$tmp/c_static" "$fixture" "$tmp/c_static.onnx"

echo "== the public headers include nothing but the C and C++ standard libraries"
for h in onnxtrim.h onnxtrim.hpp; do
  lang=c; [ "$h" = onnxtrim.hpp ] && lang=c++
  leaked=$(echo "#include <onnxtrim/$h>" | c++ -x "$lang" -E -I"$tmp/prefix/include" - |
    grep -o '^# [0-9]* "[^"]*"' | grep -i 'protobuf\|onnx/\|onnx_\|/src/\|nlohmann' | sort -u || true)
  [ -z "$leaked" ] || { echo "$h includes: $leaked"; exit 1; }
done
echo "== C++ API through find_package"
cmake -S "$src/tests/install/cmake_consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_RPATH="$tmp/prefix/lib" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/consumer" "$fixture" "$tmp/cpp.onnx"

echo "== installed CLI"
"$tmp/prefix/bin/onnxtrim" "$fixture" "$tmp/cli.onnx" --quiet
if readelf -S "$tmp/prefix/bin/onnxtrim" | grep -q debug_info; then echo "the installed CLI has debug info"; exit 1; fi
echo "== the README's examples"
/usr/bin/python3 "$src/tests/install/readme_examples.py" "$src" "$tmp/prefix" "$build/python"
echo "install_test: 6 passed, 0 failed"
