#!/usr/bin/env python3
"""--opset N against ONNX Runtime (issue 17).

Fixtures (tests/models): each is converted down to 13, down to 11 (where its ops allow: a
refusal must be one line naming the node) and up to 21, with the check on. Each result must
import the target opset, pass onnx.checker (python3-onnx 1.12 knows opsets up to 17: results of
opset 18+ are not checked by it) and compute in ONNX Runtime what the original computes there,
at two settings of the symbolic dims.

ONNX backend node tests (ONNXTRIM_TEST_DATA/node): each model is converted (with --no-passes,
so the conversion alone is what runs) down to 13 (models of opset > 13) and 12 (opset >= 13), up to 21 (opset < 21),
and to its neighbouring opsets where python3-onnx's version_converter converts it too. Each
converted model runs in ONNX Runtime on the test's inputs and must give the test's expected
outputs. A refusal is counted, not failed (it is the converter saying it cannot); a result that
ONNX Runtime cannot load, or that computes other numbers, fails.

usage: opset_convert.py ONNXTRIM WORKDIR [--data DIR] [--default-data DIR] [--quick] [--only NAME]"""
import glob
import json
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import onnx
from onnx import numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "fuzz_graphs"))
import test_data  # noqa: E402
from harness import ORT_DTYPES, OrtServer  # noqa: E402

args = sys.argv[1:]
data_root = test_data.take(args)
quick = "--quick" in args
args = [a for a in args if a != "--quick"]
only = None  # --only SUBSTRING: node tests whose name contains it, no fixtures (for debugging)
if "--only" in args:
    k = args.index("--only")
    only = args[k + 1]
    del args[k:k + 2]
binary, work = args[0], args[1]
os.makedirs(work, exist_ok=True)
models_dir = os.path.join(here, "..", "models")
ort = OrtServer()
failures = []


def fail(what):
    print("FAIL " + what, flush=True)
    failures.append(what)


def convert(src, dst, opset, *flags):
    r = subprocess.run([binary, src, dst, "--opset", str(opset), "--quiet", "--json", "-", *flags],
                       capture_output=True, text=True, timeout=600)
    try:
        rep = json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else {}
    except ValueError:
        rep = {}
    return r.returncode, rep, r.stderr.strip()


def imported(path):
    m = onnx.load(path, load_external_data=False)
    return {o.domain or "": o.version for o in m.opset_import}.get("", 0)


def close(a, b):
    if a.shape != b.shape:
        return False, f"shape {a.shape} vs {b.shape}"
    if a.dtype.kind in "fc":
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        scale = float(np.sqrt(np.mean(b64 ** 2))) if b64.size else 0.0
        tol = 1e-4 + 1e-3 * np.maximum(np.abs(b64), scale)
        bad = ~((np.abs(a64 - b64) <= tol) | (np.isnan(a64) & np.isnan(b64)) | (a64 == b64))
        if bad.any():
            return False, f"max abs diff {float(np.nanmax(np.abs(a64 - b64))):.3g}"
        return True, ""
    return (bool(np.array_equal(a, b)), "values differ")


# ------------------------------------------------------------------------------- fixtures

def feeds_for(path, dims, seed=0):
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    rng = np.random.default_rng(seed)
    feeds = {}
    for i in m.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else dims.get(d.dim_param, 1 if k == 0 else 8)
                 for k, d in enumerate(t.shape.dim)]
        if t.elem_type == onnx.TensorProto.FLOAT:
            feeds[i.name] = rng.uniform(-1, 1, shape).astype(np.float32)
        elif t.elem_type == onnx.TensorProto.INT64:
            feeds[i.name] = rng.integers(0, 8, shape).astype(np.int64)
        elif t.elem_type == onnx.TensorProto.BOOL:
            feeds[i.name] = np.ones(shape, dtype=bool)
        else:
            raise RuntimeError(f"{path}: input {i.name} of element type {t.elem_type}")
    return feeds


FIXTURES = {
    # name: (targets that must convert, targets that may be refused, dim settings)
    "bert_tiny": ([13, 11, 21], [], [{"batch": 1, "seq": 8}, {"batch": 2, "seq": 5}]),
    "gpt2_tiny": ([13, 11, 21], [], [{"batch": 1, "seq": 8}, {"batch": 3, "seq": 4}]),
    "resnet_small": ([13, 11, 21], [], [{}, {}]),
    "swin_stage": ([13, 11, 21], [], [{}, {}]),
    "fusions_tiny": ([13, 21], [11], [{}, {}]),
    "squeeze_ifs": ([13, 21], [11], [{}, {}]),
    "keypoint_rcnn": ([13, 21], [], [{}, {}]),
}
fixture_rows = []
for name, (must, may, settings) in ({} if only else FIXTURES).items():
    src = os.path.join(models_dir, name + ".onnx")
    if not os.path.exists(src):
        fail(f"{name}: fixture missing")
        continue
    for target in must + may:
        dst = os.path.join(work, f"{name}.opset{target}.onnx")
        rc, rep, err = convert(src, dst, target, "--verify")
        if rc != 0:
            if target in may and rc == 6 and "\n" not in err and "node '" in err:
                fixture_rows.append((name, target, "refused: " + err.split("--opset")[-1][:100]))
                print(f"ok   {name} -> {target}: refused ({err[-120:]})", flush=True)
                continue
            fail(f"{name} -> {target}: exit {rc}: {err[-300:]}")
            continue
        if imported(dst) != target:
            fail(f"{name} -> {target}: imports opset {imported(dst)}")
            continue
        if target <= 17:
            try:
                onnx.checker.check_model(onnx.load(dst), full_check=True)
            except Exception as e:  # noqa: BLE001
                fail(f"{name} -> {target}: onnx.checker: {str(e).splitlines()[0][:200]}")
                continue
        worst = 0.0
        ok = True
        for k, dims in enumerate(settings):
            feeds = feeds_for(src, dims, seed=k)
            a, e1 = ort.run(src, feeds, os.path.join(work, "ort_a"))
            b, e2 = ort.run(dst, feeds, os.path.join(work, "ort_b"))
            if e1 or e2:
                fail(f"{name} -> {target}: ONNX Runtime: {e1 or e2}")
                ok = False
                break
            for x, y in zip(b, a):
                good, why = close(x, y)
                if x.dtype.kind == "f" and x.size:
                    worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y))))
                if not good:
                    fail(f"{name} -> {target} {dims}: {why}")
                    ok = False
        if ok:
            o = rep.get("opset", {})
            fixture_rows.append((name, target, f"{o.get('nodes_converted')} nodes converted, "
                                               f"{o.get('nodes_expanded')} expanded, max |diff| in ORT {worst:.2g}"))
            print(f"ok   {name} -> {target}: {fixture_rows[-1][2]}", flush=True)

# External data: a copy of bert_tiny whose weights live in a side file converts through the
# same streaming path; the result keeps its weights external and computes the same.
if not only:
    ext_dir = os.path.join(work, "external")
    os.makedirs(ext_dir, exist_ok=True)
    src = os.path.join(ext_dir, "bert_ext.onnx")
    m = onnx.load(os.path.join(models_dir, "bert_tiny.onnx"))
    onnx.save_model(m, src, save_as_external_data=True, all_tensors_to_one_file=True, location="bert_ext.data",
                    size_threshold=256)
    dst = os.path.join(ext_dir, "bert_ext.13.onnx")
    rc, rep, err = convert(src, dst, 13, "--external-data", "always")
    if rc != 0:
        fail(f"external data: exit {rc}: {err[-300:]}")
    else:
        out = onnx.load(dst, load_external_data=False)
        external = sum(1 for t in out.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL)
        feeds = feeds_for(src, {"batch": 2, "seq": 6})
        a, e1 = ort.run(src, feeds, os.path.join(work, "ort_a"))
        b, e2 = ort.run(dst, feeds, os.path.join(work, "ort_b"))
        if e1 or e2:
            fail(f"external data: ONNX Runtime: {e1 or e2}")
        elif external == 0:
            fail("external data: the result has no external tensor")
        elif not all(close(x, y)[0] for x, y in zip(b, a)):
            fail("external data: outputs differ")
        else:
            fixture_rows.append(("bert_tiny (external data)", 13, f"{external} tensors external, outputs match"))
            print(f"ok   external data -> 13: {external} tensors external", flush=True)

# ------------------------------------------------------------------------------- node tests

node_root = os.path.join(test_data.require(data_root, "node"), "node")
cases = sorted(glob.glob(os.path.join(node_root, "*", "model.onnx")))
if quick:
    cases = cases[::10]
if only:
    cases = [c for c in cases if only in c]
test_data.require_cases(len(cases), "opset_convert", data_root)
RANDOM = ("bernoulli", "random", "dropout")
stats = {13: Counter(), 12: Counter(), 21: Counter(), "neighbour": Counter()}
examples = {13: [], 12: [], 21: [], "neighbour": []}


def load_set(case_dir, model):
    ds = os.path.join(case_dir, "test_data_set_0")
    ins, outs = [], []
    for k in range(len(model.graph.input)):
        p = os.path.join(ds, f"input_{k}.pb")
        if not os.path.exists(p):
            return None
        t = onnx.TensorProto()
        t.ParseFromString(open(p, "rb").read())
        ins.append(numpy_helper.to_array(t))
    for k in range(len(model.graph.output)):
        p = os.path.join(ds, f"output_{k}.pb")
        if not os.path.exists(p):
            return None
        t = onnx.TensorProto()
        try:
            t.ParseFromString(open(p, "rb").read())
            outs.append(numpy_helper.to_array(t))
        except Exception:  # noqa: BLE001  (sequences, optionals)
            return None
    return ins, outs


def try_case(case_dir, model, feeds, expected, target, kind):
    name = os.path.basename(case_dir)
    dst = os.path.join(work, "node", f"{name}.{target}.onnx")
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    # ONNX Runtime on the test's own inputs is the oracle here (random inputs do not suit every
    # node test: sizes, indices).
    rc, rep, err = convert(os.path.join(case_dir, "model.onnx"), dst, target, "--no-passes", "--no-verify")
    st = stats[kind]
    if rc == 6 or (rc == 5 and "--opset" in err):
        st["refused"] += 1
        detail = err.split(": --opset ", 1)[-1].split(": ", 1)[-1]
        op = err.split("': --opset")[0].rsplit("(", 1)[-1].rstrip(")") if "': --opset" in err else "?"
        examples[kind].append((op, detail[:90]))
        return
    if rc != 0:
        st["error"] += 1
        fail(f"node {name} -> {target}: exit {rc}: {err[-200:]}")
        return
    st["converted"] += 1
    got, e = ort.run(dst, feeds, os.path.join(work, "ort_node"))
    if e:
        st["ort_failed"] += 1
        fail(f"node {name} -> {target}: ONNX Runtime cannot run the result: {e[:200]}")
        return
    for g, x in zip(got, expected):
        good, why = close(g, x)
        if not good:
            st["mismatch"] += 1
            fail(f"node {name} -> {target}: {why}")
            return
    st["matched"] += 1


from onnx import version_converter  # noqa: E402


def onnx_converts(model, target):
    """Whether python3-onnx's version_converter converts model to target (in a forked child:
    it crashes on some models)."""
    pid = os.fork()
    if pid == 0:
        try:
            version_converter.convert_version(model, target)
            os._exit(0)
        except BaseException:  # noqa: BLE001
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

for path in cases:
    case_dir = os.path.dirname(path)
    name = os.path.basename(case_dir)
    if any(r in name for r in RANDOM):
        continue
    model = onnx.load(path)
    src = {o.domain or "": o.version for o in model.opset_import}.get("", 0)
    if src < 7 or any(o.domain not in ("", "ai.onnx") for o in model.opset_import):
        continue
    try:
        loaded = load_set(case_dir, model)
    except Exception:  # noqa: BLE001  (element types numpy lacks)
        loaded = None
    if loaded is None:
        continue
    ins, expected = loaded
    inits = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    if len(names) != len(ins) or any(a.dtype.type not in ORT_DTYPES for a in ins):
        continue
    if any(x.dtype.type not in ORT_DTYPES for x in expected):
        continue
    feeds = dict(zip(names, ins))
    # The original must run in ONNX Runtime and give the expected outputs (else ORT is no oracle).
    got, e = ort.run(path, feeds, os.path.join(work, "ort_node"))
    if e or any(not close(g, x)[0] for g, x in zip(got, expected)):
        stats["ort_original"] = stats.get("ort_original", 0) + 1
        continue
    if src > 13:
        try_case(case_dir, model, feeds, expected, 13, 13)
    if src >= 13:  # below the bfloat16 additions of opset 13, which most downgrade adapters lack
        try_case(case_dir, model, feeds, expected, 12, 12)
    if src < 21:
        try_case(case_dir, model, feeds, expected, 21, 21)
    for nb in (src - 1, src + 1):
        if nb < 7 or nb > 17 or src > 17 or nb in (13, 21):
            continue
        if not onnx_converts(model, nb):
            continue
        try_case(case_dir, model, feeds, expected, nb, "neighbour")
ort.close()

print("\nfixtures:")
for name, target, what in fixture_rows:
    print(f"  {name} -> opset {target}: {what}")
print(f"\nnode tests (ONNX Runtime's results of the original differ from the expected ones, skipped: "
      f"{stats.get('ort_original', 0)})")
for kind, label in ((13, "down to 13"), (12, "down to 12"), (21, "up to 21"),
                    ("neighbour", "to a neighbouring opset onnx converts to")):
    st = stats[kind]
    print(f"  {label}: {st['converted'] + st['refused'] + st['error']} tried, {st['converted']} converted, "
          f"{st['matched']} match in ONNX Runtime, {st['mismatch']} differ, {st['ort_failed']} not loadable, "
          f"{st['refused']} refused")
refusal_ops = Counter()
for kind in examples:
    for op, why in examples[kind]:
        refusal_ops[(kind, op, why)] += 1
print("\nrefusals, by op and reason:")
for (kind, op, why), k in sorted(refusal_ops.items(), key=lambda x: (str(x[0][0]), -x[1])):
    print(f"  [{kind}] {op} x{k}: {why}")
if failures:
    print(f"\n{len(failures)} failures")
    sys.exit(1)
print("\nall ok")
