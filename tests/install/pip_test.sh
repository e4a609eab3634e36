#!/usr/bin/env bash
# The Python package installed offline as a user would, into fresh virtual environments:
#   1. pip install --no-build-isolation --no-index . (setup.py builds the module with CMake;
#      ONNXTRIM_CMAKE_BUILD_DIR points it at the test build so nothing is compiled twice);
#   2. python3 -m build --no-isolation --wheel, and the wheel installed with --no-index;
# each followed by `import onnxtrim` and a simplification from outside the checkout.
# usage: pip_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ONNXTRIM_CMAKE_BUILD_DIR="$build"
export PIP_DISABLE_PIP_VERSION_CHECK=1

check() {
  (cd "$tmp" && "$1/bin/python" - "$src/examples/dirty.onnx" <<'PY'
import sys, onnxtrim
assert onnxtrim.__file__.startswith(sys.prefix), onnxtrim.__file__
import os
pkg = os.path.dirname(onnxtrim.__file__)
assert os.path.exists(os.path.join(pkg, "__init__.pyi")) and os.path.exists(os.path.join(pkg, "py.typed")), "type hints"
from onnxtrim.compat import onnxsim, onnxslim
model, report = onnxtrim.simplify(sys.argv[1])
assert report.verification["ok"] and report.after["nodes"] < report.before["nodes"]
print("import onnxtrim", onnxtrim.__version__, "from", onnxtrim.__file__)
PY
  )
  (cd "$tmp" && "$1/bin/python" -m onnxtrim --version | grep -q "^onnxtrim ") || { echo "python -m onnxtrim"; exit 1; }
  # the console script: `onnxtrim` on PATH (and the older name onnxtrim-py)
  for exe in onnxtrim onnxtrim-py; do
    (cd "$tmp" && "$1/bin/$exe" --version | grep -q "^onnxtrim ") || { echo "$exe not installed in $1/bin"; exit 1; }
  done
}

echo "== pip install --no-build-isolation --no-index ."
/usr/bin/python3 -m venv --system-site-packages "$tmp/v1"
(cd "$src" && "$tmp/v1/bin/pip" install -q --no-build-isolation --no-index .)
check "$tmp/v1"

echo "== python3 -m build --no-isolation --wheel"
(cd "$src" && /usr/bin/python3 -m build --no-isolation --wheel --outdir "$tmp/dist" >/dev/null)
/usr/bin/python3 -m venv --system-site-packages "$tmp/v2"
"$tmp/v2/bin/pip" install -q --no-index "$tmp"/dist/onnxtrim-*.whl
check "$tmp/v2"
echo "pip_test: 2 passed, 0 failed"
