#!/usr/bin/env python3
"""Checks that includes go down the layers of src/ (docs/architecture.md, "Folders"): a file
of one layer may include its own layer's headers and those of the layers below it, never one
above. Exits 1 listing each upward include (file:line, the include, both layers); the ctest
layers.includes runs it (after a self-test on a tree made to fail).

With --build DIR (a configured build folder), it also checks that the build refuses what it
finds (cmake/layers.cmake): every compile of a file of src/ sees one layer's include folder
(DIR/layer-include/<layer>/) and neither src/ nor include/, and with each layer's flags from
DIR/compile_commands.json an include of the layer above fails to compile ("No such file") while
one of the layer's own headers and the layer below's compiles.

The layers are LAYERS below, from the bottom: a layer may include any layer listed before it."""
import json
import os
import re
import shlex
import subprocess
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


# One header of each layer, included by the build check's probes (each compiles on its own).
PROBE_HEADERS = {
    "support": "support/status.h",
    "symbolic": "symbolic/expr.h",
    "ir": "ir/graph.h",
    "onnx_io": "onnx_io/onnx_io.h",
    "ops": "ops/registry.h",
    "eval": "eval/interpreter.h",
    "passes": "passes/pass.h",
    "rewrites": "rewrites/splat.h",
    "targets": "targets/reshape_target.h",
    "convert": "convert/opset.h",
    "surgery": "surgery/surgery.h",
    "driver": "driver/driver.h",
    "api": "api/internal.h",
}
PUBLIC_PROBE = "onnxtrim/onnxtrim.hpp"
VIEW = re.compile(r"layer-include/([a-z_]+)$")


def layer_flags(root, build):
    """({layer: [compiler, flags...]}, [problems]) from build/compile_commands.json: the flags
    that matter to an include (include folders, definitions, the language standard)."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    hidden = {os.path.realpath(os.path.join(root, d)) for d in ("src", "include")}
    src = os.path.realpath(os.path.join(root, "src")) + os.sep
    unity = re.compile(r"/onnxtrim_([a-z_]+)\.dir/Unity/")
    flags, problems = {}, []
    for c in commands:
        path = os.path.realpath(os.path.join(c["directory"], c["file"]))
        batch = unity.search(path)
        if not path.startswith(src) and not (batch and batch.group(1) in LAYERS):
            continue  # tests (their batches too), tools, the Python module: they see src/ and include/
        args = c["arguments"] if "arguments" in c else shlex.split(c["command"])
        if os.path.basename(args[0]) == "ccache":
            args = args[1:]
        kept, views, k = [args[0]], [], 1
        while k < len(args):
            a = args[k]
            for opt in ("-I", "-isystem", "-iquote", "-idirafter"):
                if a == opt or (a.startswith(opt) and opt == "-I"):
                    value = args[k + 1] if a == opt else a[len(opt):]
                    k += 1 if a == opt else 0
                    folder = os.path.normpath(os.path.join(c["directory"], value))
                    if os.path.realpath(folder) in hidden:
                        problems.append(f"{c['file']}: compiles with {value} on its include path (src/ and include/ are no layer's)")
                    m = VIEW.search(folder)
                    if m:
                        views.append(m.group(1))
                    kept += [opt, folder]
                    break
            else:
                if a.startswith(("-D", "-std=", "-U")):
                    kept.append(a)
            k += 1
        if len(views) != 1:
            problems.append(f"{c['file']}: compiles with {len(views)} layer include folders (one expected)")
            continue
        flags.setdefault(views[0], kept)
    for layer in LAYERS:
        if layer not in flags:
            problems.append(f"no compile of src/{layer}/ in {build}/compile_commands.json (cmake/layers.cmake)")
    return flags, problems


def compiles(argv, includes, tmp):
    probe = os.path.join(tmp, "probe.cc")
    with open(probe, "w") as f:
        f.write("".join(f'#include "{i}"\n' for i in includes))
    r = subprocess.run(argv + ["-fsyntax-only", probe], capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def build_check(root, build):
    """Problems found compiling an upward and a downward include with each layer's flags."""
    flags, problems = layer_flags(root, build)
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, layer in enumerate(LAYERS):
            if layer not in flags:
                continue
            above = [PROBE_HEADERS[LAYERS[i + 1]]] if i + 1 < len(LAYERS) else []
            if i < LAYERS.index(PUBLIC["onnxtrim"]):
                above.append(PUBLIC_PROBE)
            for header in above:
                ok, err = compiles(flags[layer], [header], tmp)
                if ok or "No such file" not in err or header not in err:
                    problems.append(f"src/{layer}/: an include of \"{header}\" (a higher layer) "
                                    f"{'compiles' if ok else 'fails otherwise than as not found: ' + err[:400]}")
                checked += 1
            below = [PROBE_HEADERS[layer]] + ([PROBE_HEADERS[LAYERS[i - 1]]] if i else [])
            if layer == PUBLIC["onnxtrim"]:
                below.append(PUBLIC_PROBE)
            ok, err = compiles(flags[layer], below, tmp)
            if not ok:
                problems.append(f"src/{layer}/: including {', '.join(below)} does not compile: {err[:400]}")
            checked += 1
    return problems, checked


def main(argv):
    build = None
    if "--build" in argv:
        k = argv.index("--build")
        build = argv[k + 1]
        argv = argv[:k] + argv[k + 2:]
    root = argv[0] if argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    self_test()
    problems, known = check(root)
    if build:
        refused, checked = build_check(root, build)
        problems += refused
        if not refused:
            print(f"check_layers: the build refuses upward includes ({checked} probe compiles with the "
                  f"{len(LAYERS)} layers' flags from {build}/compile_commands.json)")
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
