#!/usr/bin/env bash
# clang-format (Debian 12's clang-format 14, .clang-format at the root) over the project's C and
# C++ sources: every tracked .c, .cc, .cpp, .h and .hpp file. Generated tables (.inc) and
# vendored code are left as they are.
#   scripts/format.sh            rewrites the files in place
#   scripts/format.sh --check    changes nothing; exits 1 listing the files that differ (ctest format.check)
set -euo pipefail
cd "$(dirname "$0")/.."
CF=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$CF" ] || { echo "format.sh: clang-format not found: run scripts/setup.sh" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.cc' '*.cpp' '*.h' '*.hpp' | grep -v -E '(^|/)(node_modules|third_party|vendor)/' | grep -v '^tests/peers/')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    "$CF" --style=file "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if ((${#bad[@]})); then
    printf 'format.sh: %d of %d files are not as clang-format writes them (run scripts/format.sh):\n' "${#bad[@]}" "${#files[@]}"
    printf '  %s\n' "${bad[@]}"
    exit 1
  fi
  echo "format.sh: ${#files[@]} files as clang-format writes them"
else
  "$CF" --style=file -i "${files[@]}"
fi
