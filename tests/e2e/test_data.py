"""Where the ONNX backend test data is, for the e2e scripts (tests/test_data.h does the same for
the C++ programs): `--data DIR` when given, else the ONNXTRIM_TEST_DATA environment variable,
else `--default-data DIR` (the CMake option's value, which CTest passes). Missing data fails
with one line that says where it looked; so does a run of no case."""
import os
import sys

ENV = "ONNXTRIM_TEST_DATA"


def take(args):
    """Removes --data DIR / --default-data DIR from the list args; returns the data folder."""
    explicit = default = None
    rest = []
    i = 0
    while i < len(args):
        if args[i] in ("--data", "--default-data") and i + 1 < len(args):
            if args[i] == "--data":
                explicit = args[i + 1]
            else:
                default = args[i + 1]
            i += 2
        else:
            rest.append(args[i])
            i += 1
    args[:] = rest
    return explicit or os.environ.get(ENV) or default or ""


def require(root, sub=""):
    """Exits with status 1 and one line unless root (or root/sub) is a folder."""
    path = os.path.join(root, sub) if sub else root
    if not root or not os.path.isdir(path):
        sys.stderr.write(f"ONNX test data not found: looked in '{path}' (set the {ENV} environment variable "
                         f"or CMake option to the onnx-tests folder)\n")
        sys.exit(1)
    return root


def require_cases(count, suite, root):
    """Exits with status 1 and one line when the suite ran no case."""
    if count == 0:
        sys.stderr.write(f"{suite}: ran no test case (test data: '{root}')\n")
        sys.exit(1)
