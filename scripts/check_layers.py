#!/usr/bin/env python3
"""Checks that includes go down the layers of src/ (docs/architecture.md, "Folders"): a file
of one layer may include its own layer's headers and those of the layers below it, never one
above. Exits 1 listing each upward include (file:line, the include, both layers); the ctest
layers.includes runs it (after a self-test on a tree made to fail).

The layers are LAYERS below, from the bottom: a layer may include any layer listed before it."""
import os
import re
import sys
import tempfile

LAYERS = [
    "support",   # Status, hashing, threads, cancellation, limits
    "symbolic",  # dim expressions and the facts that always hold
    "ir",        # Model/Graph/Node/Value/Tensor, the Rewriter, the verifier
    "onnx_io",   # protobuf load/save (the only user of the ONNX headers)
    "ops",       # one op per file: kernels, shape rules, local folds
    "eval",      # the interpreter, random inputs, comparison, the Verifier
    "passes",    # Pass, the registry, the pipeline order, the PassManager, shape inference
    "rewrites",  # the multi-node rewrites (rules)
    "targets",   # legalization for a runtime (coreml)
    "convert",   # --opset and --dtype, the spec table's readers
    "surgery",   # --outputs/--inputs/--rename/--batch
    "driver",    # the stages of a run, the check's making and its sizes
    "api",       # the public API's implementation: load, save, the public Model, the C layer
]
# `#include "onnxtrim/..."`: the public headers (include/onnxtrim/), whose types (Options,
# Report, Error) are the driver's vocabulary and whose functions the API implements.
PUBLIC = {"onnxtrim": "driver"}

# Upward includes known today, each with the reason it is not fixed yet. An entry that no longer
# occurs is reported too, so the list only shrinks.
KNOWN = {}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"')


def layer_rank(name):
    name = PUBLIC.get(name, name)
    return LAYERS.index(name) if name in LAYERS else None


def upward_includes(root):
    """[(path, line number, include, own layer, included layer)] for every upward include."""
    found = []
    src = os.path.join(root, "src")
    for own in LAYERS:
        base = os.path.join(src, own)
        for dirpath, _, files in os.walk(base):
            for f in sorted(files):
                if not f.endswith((".h", ".cc", ".inc")):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for k, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        rank = layer_rank(m.group(1))
                        if rank is not None and rank > LAYERS.index(own):
                            include = line.split('"')[1]
                            found.append((os.path.relpath(path, root), k, include, own, PUBLIC.get(m.group(1), m.group(1))))
    return found


def check(root):
    problems, seen = [], set()
    for path, k, include, own, theirs in upward_includes(root):
        if (path, include) in KNOWN:
            seen.add((path, include))
            continue
        problems.append(f"{path}:{k}: includes \"{include}\": {own}/ is below {theirs}/ (docs/architecture.md, Folders)")
    for (path, include), why in KNOWN.items():
        if (path, include) not in seen:
            problems.append(f"{path}: no longer includes \"{include}\": remove it from KNOWN in scripts/check_layers.py")
    return problems, seen


def self_test():
    """The check finds an upward include in a tree made for it, and passes a clean one."""
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        write("src/passes/a.h", '#include "ir/graph.h"\n#include "passes/b.h"\n#include <vector>\n')
        write("src/api/c.cc", '#include "passes/a.h"\n#include "onnxtrim/onnxtrim.hpp"\n')
        found = upward_includes(root)
        assert found == [], found
        write("src/passes/d.cc", '// x\n#include "api/report.h"\n  # include "onnxtrim/onnxtrim.hpp"\n')
        found = [(p, k, inc) for p, k, inc, _, _ in upward_includes(root)]
        assert found == [("src/passes/d.cc", 2, "api/report.h"), ("src/passes/d.cc", 3, "onnxtrim/onnxtrim.hpp")], found


def main(argv):
    root = argv[0] if argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    self_test()
    problems, known = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)")
        return 1
    print(f"check_layers: includes go down the {len(LAYERS)} layers of src/ "
          f"({len(known)} known exception(s): " + "; ".join(f"{p} -> {i}" for p, i in sorted(known)) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
