#!/usr/bin/env python3
"""The bytes onnxtrim writes for every fixture stay what they were (issue 26): a refactoring must
not change them. tests/golden/outputs.sha256 holds, per fixture and option set, the SHA-256 of the
model file written, and of its structure (the file with every tensor's contents left out: nodes,
names, attributes, types and shapes). On another machine folded constants may round otherwise
(BLAS kernels differ by CPU): there a file whose bytes differ but whose structure is as recorded
passes, and the run says so. A change that is meant to change what is written updates the file
in the same commit:

    /usr/bin/python3 tests/e2e/golden.py build/onnxtrim --update

and the diff of that file says which fixtures changed.

The bench/ models (bench/make_models.py exports them; none is committed) are checked the same way
by hand, before and after a refactoring:

    /usr/bin/python3 tests/e2e/golden.py build/onnxtrim --bench [DIR] [--update]

DIR defaults to bench/models: every *.onnx there and gpt/gpt.onnx, whose output (the model and
its external-data files) is digested whole. tests/golden/bench.sha256 records each input's digest
with its output's: an export that is not the recorded one (another torch, another machine) is
said and not compared.
"""
import hashlib
import os

import onnx
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MANIFEST = os.path.join(ROOT, "tests", "golden", "outputs.sha256")
MODELS = os.path.join(ROOT, "tests", "models")
BENCH_MANIFEST = os.path.join(ROOT, "tests", "golden", "bench.sha256")
BENCH_MODELS = os.path.join(ROOT, "bench", "models")
# Option sets run on every fixture besides the default.
EXTRA = {
    "llama_tiny.onnx": [["--opset", "23"]],
    "rope_interleaved_tiny.onnx": [["--opset", "23"]],
    "fp16_norms_tiny.onnx": [["--opset", "23"]],
    "gpt_kv_tiny.onnx": [["--opset", "23"]],
    "gpt2_tiny.onnx": [["--opset", "23"]],
    "gpt2_hf_tiny.onnx": [["--opset", "23"]],
    "gptj_tiny.onnx": [["--opset", "23"]],
    "bert_tiny_op13.onnx": [["--opset", "23"]],
    "vit_tiny_op13.onnx": [["--opset", "17"]],
    "swin_stage.onnx": [["--target", "coreml"]],
    "groupnorm_unet_tiny.onnx": [["--target", "tensorrt", "--opset", "24"]],
}


def cases():
    for f in sorted(os.listdir(MODELS)):
        if f.endswith(".onnx"):
            yield f, []
            for opts in EXTRA.get(f, []):
                yield f, opts


def strip_tensors(g):
    """Leaves out every tensor's contents (initializers, Constant values, in subgraphs too)."""
    def clear(t):
        for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data", "string_data"):
            t.ClearField(f)
    for t in g.initializer:
        clear(t)
    for n in g.node:
        for a in n.attribute:
            if a.HasField("t"):
                clear(a.t)
            for t in a.tensors:
                clear(t)
            if a.HasField("g"):
                strip_tensors(a.g)
            for sg in a.graphs:
                strip_tensors(sg)


def digest(binary, model, opts, tmp):
    """(SHA-256 of the bytes, SHA-256 of the structure) of what the CLI writes."""
    out = os.path.join(tmp, "out.onnx")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([binary, os.path.join(MODELS, model), out, "--quiet", "--no-verify", *opts],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"exit {r.returncode}", f"exit {r.returncode}"
    data = open(out, "rb").read()
    m = onnx.load_from_string(data)
    strip_tensors(m.graph)
    for f in m.functions:
        for n in f.node:
            for a in n.attribute:
                if a.HasField("t"):
                    a.t.ClearField("raw_data")
    return hashlib.sha256(data).hexdigest(), hashlib.sha256(m.SerializeToString(deterministic=True)).hexdigest()


def file_digest(paths):
    """SHA-256 over the files' names (relative to their folder) and bytes, in sorted order."""
    h = hashlib.sha256()
    for base, rel in sorted(paths, key=lambda p: p[1]):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(base, rel), "rb") as f:
            for block in iter(lambda: f.read(1 << 24), b""):
                h.update(block)
    return h.hexdigest()


def model_files(path):
    """The model file and the external-data files it names, as (folder, relative name)."""
    base = os.path.dirname(path)
    m = onnx.load(path, load_external_data=False)
    names = {os.path.basename(path)}
    def walk(g):
        for t in list(g.initializer) + [a.t for n in g.node for a in n.attribute if a.HasField("t")]:
            for e in t.external_data:
                if e.key == "location":
                    names.add(e.value)
        for n in g.node:
            for a in n.attribute:
                if a.HasField("g"):
                    walk(a.g)
                for sg in a.graphs:
                    walk(sg)
    walk(m.graph)
    return [(base, n) for n in names]


def bench_cases(folder):
    out = [f for f in sorted(os.listdir(folder)) if f.endswith(".onnx")]
    if os.path.exists(os.path.join(folder, "gpt", "gpt.onnx")):
        out.append(os.path.join("gpt", "gpt.onnx"))
    return out


def bench(binary, folder, update):
    cases = bench_cases(folder)
    if not cases:
        print(f"golden --bench: no model in {folder} (bench/make_models.py exports them)")
        return 1
    got = {}
    for name in cases:
        src = os.path.join(folder, name)
        with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(binary))) as tmp:
            out = os.path.join(tmp, "out.onnx")
            r = subprocess.run([binary, src, out, "--quiet", "--no-verify"], capture_output=True, text=True)
            result = f"exit{r.returncode}" if r.returncode else file_digest(model_files(out))
        got[name] = (file_digest(model_files(src)), result)
        print(f"  {name}: {got[name][1][:16]}", flush=True)
    want = {}
    if os.path.exists(BENCH_MANIFEST):
        for line in open(BENCH_MANIFEST):
            if line.strip():
                hashes, k = line.rstrip("\n").split("  ", 1)
                want[k] = tuple(hashes.split(" "))
    if update:
        want.update(got)
        with open(BENCH_MANIFEST, "w") as f:
            for k in sorted(want):
                f.write(f"{want[k][0]} {want[k][1]}  {k}\n")
        print(f"golden --bench: wrote {len(got)} digests to {BENCH_MANIFEST}")
        return 0
    same, bad, other = 0, [], []
    for k, (i, o) in got.items():
        w = want.get(k)
        if not w or w[0] != i:
            other.append(k)
        elif w[1] == o:
            same += 1
        else:
            bad.append(k)
            print(f"CHANGED: {k}: {w[1]} -> {o}")
    for k in other:
        print(f"not compared: {k} is not the recorded export (or none is recorded)")
    print(f"golden --bench: {same} of {len(got)} outputs byte for byte as recorded, {len(other)} not compared")
    return 1 if bad else 0


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    binary, update = args[0], "--update" in args
    if "--bench" in args:
        i = args.index("--bench")
        folder = args[i + 1] if i + 1 < len(args) and not args[i + 1].startswith("--") else BENCH_MODELS
        return bench(binary, folder, update)
    got = {}
    with tempfile.TemporaryDirectory() as tmp:
        for model, opts in cases():
            key = " ".join([model] + opts)
            got[key] = digest(binary, model, opts, tmp)
    if update:
        with open(MANIFEST, "w") as f:
            for k, (b, st) in got.items():
                f.write(f"{b} {st}  {k}\n")
        print(f"golden: wrote {len(got)} digests to {MANIFEST}")
        return 0
    want = {}
    for line in open(MANIFEST):
        if line.strip():
            hashes, k = line.rstrip("\n").split("  ", 1)
            want[k] = tuple(hashes.split(" "))
    bad, rounded = [], []
    for k, (b, st) in got.items():
        w = want.get(k)
        if w and w[0] == b:
            continue
        if w and w[1] == st:
            rounded.append(k)
            continue
        bad.append(k)
    missing = [k for k in want if k not in got]
    for k in bad:
        print(f"CHANGED: {k}: {want.get(k, ('(new)', ''))[0]} -> {got[k][0]}")
    for k in rounded:
        print(f"same structure, other tensor bytes (rounding on this machine?): {k}")
    for k in missing:
        print(f"GONE: {k}")
    print(f"golden: {len(got) - len(bad) - len(rounded)} of {len(got)} outputs byte for byte as recorded, "
          f"{len(rounded)} with the recorded structure")
    if bad or missing:
        print("(if the change is meant, run: /usr/bin/python3 tests/e2e/golden.py build/onnxtrim --update)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
