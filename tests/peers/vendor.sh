#!/bin/bash
# Copies the peers' test files, unmodified, at the pinned commits, from bare git mirrors of their
# repositories (MIRRORS: a folder holding daquexian+onnx-simplifier/repo and inisis+OnnxSlim/repo),
# with each repository's LICENSE, and writes COMMIT beside them. The harness (run.py) adapts
# nothing in them: shims and the pytest plugin do.
#   tests/peers/vendor.sh /path/to/mirrors
set -euo pipefail
MIRRORS=${1:?usage: vendor.sh MIRRORS_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
vendor() {  # repo-dir commit dest files...
  local git=$1 commit=$2 dest=$3; shift 3
  rm -rf "$dest"; mkdir -p "$dest"
  git --git-dir="$git" archive "$commit" LICENSE "$@" | tar -x -C "$dest"
  echo "$commit" > "$dest/COMMIT"
}
vendor "$MIRRORS/daquexian+onnx-simplifier/repo" f89308cfba9f28ebaea734d8ab7069b5f651e067 \
  "$HERE/onnx-simplifier" tests
vendor "$MIRRORS/inisis+OnnxSlim/repo" 813a3536e779f59f757e994af2d5d4c21cbb45ca "$HERE/OnnxSlim" tests
