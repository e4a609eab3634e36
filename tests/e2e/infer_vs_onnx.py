#!/usr/bin/env python3
"""Our shape inference against Debian's python3-onnx on every backend-test model of opset <= 17,
and on the model files given after the manifest (the fixtures of tests/models).

For each model, onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True) is
the oracle. `onnxtrim IN OUT --passes infer_shapes` writes our inferred types as value_info.
Every value onnx gives an element type must get the same type from us, and every dim onnx
infers as a number must be that number in ours. Disagreements that are known (a missing rule,
or onnx's own error) are listed with reasons in tests/conformance/onnx_infer_manifest.txt; any
other one fails the test, and so does a listed model that now agrees. The count of values that
onnx shapes, and of those we shape too, is printed at the end.

usage: infer_vs_onnx.py ONNXTRIM MANIFEST [MODEL.onnx ...] [--data DIR | --default-data DIR]
       [--write-manifest]
(the data folder as tests/e2e/test_data.py finds it)
"""
import os
import subprocess
import sys
import tempfile

import onnx
import onnx.shape_inference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_data  # noqa: E402

args = sys.argv[1:]
root = test_data.require(test_data.take(args))
write = "--write-manifest" in args
args = [a for a in args if a != "--write-manifest"]
binary, manifest_path = args[:2]
extra = args[2:]

manifest = {}
if os.path.exists(manifest_path):
    for line in open(manifest_path):
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            manifest[name] = reason


def types_of(graph, out):
    for vi in list(graph.value_info) + list(graph.output) + list(graph.input):
        t = vi.type
        if t.HasField("tensor_type"):
            tt = t.tensor_type
            dims = None
            if tt.HasField("shape"):
                dims = [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim]
            out[vi.name] = (tt.elem_type, dims)
    for n in graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                types_of(a.g, out)
            for g in a.graphs:
                types_of(g, out)
    return out


models = []
for d, _, files in os.walk(root):
    for f in files:
        if f.endswith(".onnx"):
            models.append(os.path.join(d, f))
models.sort()
models = [(p, os.path.relpath(p, root)) for p in models] + [(p, "fixtures/" + os.path.basename(p)) for p in extra]
agree = disagree = skipped = 0
values_onnx = values_ours = 0
unexpected, stale, new_manifest = [], [], {}
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out.onnx")
    for path, name in models:
        m = onnx.load(path)
        opset = max([o.version for o in m.opset_import if o.domain in ("", "ai.onnx")] or [0])
        if opset == 0 or opset > 17 or any(o.domain not in ("", "ai.onnx") for o in m.opset_import):
            skipped += 1
            continue
        try:
            want = types_of(onnx.shape_inference.infer_shapes(m, strict_mode=False, data_prop=True).graph, {})
        except Exception as e:  # onnx itself fails on this model
            skipped += 1
            continue
        r = subprocess.run([binary, path, out, "--passes", "infer_shapes", "--quiet"], capture_output=True, text=True)
        if r.returncode != 0:
            problem = f"onnxtrim failed: {r.stderr.strip()[:200]}"
        else:
            got = types_of(onnx.load(out).graph, {})
            problem = None
            for value, (elem, dims) in want.items():
                if elem != 0:
                    values_onnx += 1
                    values_ours += value in got and got[value][0] == elem and (
                        dims is None or (got[value][1] is not None and len(got[value][1]) == len(dims)))
            for value, (elem, dims) in want.items():
                if elem == 0:
                    continue
                if value not in got:
                    problem = f"'{value}': no type inferred (onnx: {elem} {dims})"
                    break
                gelem, gdims = got[value]
                if gelem != elem:
                    problem = f"'{value}': dtype {gelem} != onnx's {elem}"
                    break
                if dims is not None:
                    if gdims is None or len(gdims) != len(dims):
                        problem = f"'{value}': rank {None if gdims is None else len(gdims)} != onnx's {len(dims)}"
                        break
                    bad = [k for k, (a, b) in enumerate(zip(gdims, dims)) if b is not None and a != b]
                    if bad:
                        problem = f"'{value}': dims {gdims} != onnx's {dims}"
                        break
        if problem is None:
            agree += 1
            if name in manifest:
                stale.append(name)
        else:
            disagree += 1
            new_manifest[name] = manifest.get(name, problem)
            if name not in manifest:
                unexpected.append(f"{name}: {problem}")

test_data.require_cases(agree + disagree, "infer_vs_onnx", root)
if write:
    with open(manifest_path, "w") as f:
        f.write("# Models where our inferred types disagree with onnx.shape_inference (opset <= 17): NAME REASON\n")
        for k in sorted(new_manifest):
            f.write(f"{k} {new_manifest[k]}\n")
    print(f"wrote {len(new_manifest)} entries")
for u in unexpected[:40]:
    print("DISAGREES:", u)
for s in stale:
    print("NOW AGREES (remove from the manifest):", s)
print(f"infer_vs_onnx: values onnx types: {values_onnx}; typed by us with the same type and rank: {values_ours}")
print(f"infer_vs_onnx: {agree} passed, {disagree} failed, {skipped} skipped "
      f"({len(unexpected)} unexpected, {len(stale)} stale)")
sys.exit(0 if write or (not unexpected and not stale) else 1)
