#!/usr/bin/env python3
"""onnxtrim writes only shapes it has proved: checked on every fixture and backend test model.

For each model (tests/models, examples, every model.onnx of the ONNX backend test data; node
tests also in a variant whose graph inputs have named dims d<i>_<k>), `onnxtrim IN OUT`:
  1. must not reject it (exit 0): the input check of issue 16 item 7 has no false alarm here;
  2. no value_info, graph output or body output of OUT may have element type 0 (for tensors,
     and inside sequences and optionals);
  3. every dim name written (value_info, and graph and body outputs beyond what the input
     declared) must be an expression over the graph inputs' dim names: two values share a name
     only when they share the expression, i.e. when their dims were proved equal; and one that
     is not an input's own dim name is at most 40 characters long (longer ones are unnamed);
  4. on running OUT with our evaluator (every main-graph value_info value made an extra output)
     at one or two dim settings, each value's dims equal what its written type says: its fixed
     sizes, and its named dims evaluated at the inputs' sizes. Node tests run on their own test
     data; fixtures on random inputs at two settings of their dims.

usage: written_facts.py ONNXTRIM [--data DIR | --default-data DIR] [--fixtures-dir DIR] FIXTURE.onnx[@dim=v,...[|dim=v,...]] ...
(--fixtures-dir: every DIR/*.onnx must be among the fixtures given)
(a fixture given without @ is run once, with its static input shapes)
(the test data is found as tests/e2e/test_data.py says)
"""
import concurrent.futures
import glob
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_data  # noqa: E402

args = sys.argv[1:]
data = test_data.take(args)
fixtures_dir = None
if "--fixtures-dir" in args:  # every model in this folder must be among the fixtures given
    k = args.index("--fixtures-dir")
    fixtures_dir = args[k + 1]
    del args[k:k + 2]
binary, fixture_specs = args[0], args[1:]
test_data.require(data)
failures = []
counts = {"models": 0, "named dims": 0, "values checked by running": 0, "runs": 0}


lock = threading.Lock()


def fail(name, why):
    with lock:
        failures.append(f"{name}: {why}")


def bump(what):
    with lock:
        counts[what] += 1


def input_params(m):
    names = set()
    inits = {i.name for i in m.graph.initializer}

    def walk(t):
        if t.HasField("tensor_type"):
            for d in t.tensor_type.shape.dim:
                if d.HasField("dim_param"):
                    names.add(d.dim_param)
        elif t.HasField("sequence_type"):
            walk(t.sequence_type.elem_type)
        elif t.HasField("optional_type"):
            walk(t.optional_type.elem_type)

    for i in m.graph.input:
        walk(i.type)
    return names, inits


def written(m, orig):
    """(graph, where, ValueInfoProto) for everything OUT writes about values."""
    def graphs(g, depth):
        yield g, depth
        for n in g.node:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    yield from graphs(a.g, depth + 1)
                for sg in a.graphs:
                    yield from graphs(sg, depth + 1)

    # The model's own declarations of its outputs (main graph and bodies, by depth and name):
    # keeping those is not a claim of onnxtrim's.
    declared_out = {}
    for g, depth in graphs(orig.graph, 0):
        for o in g.output:
            declared_out.setdefault((min(depth, 1), o.name), o)

    for g, depth in graphs(m.graph, 0):
        for vi in g.value_info:
            yield depth, "value_info", vi, None
        for o in g.output:
            yield depth, "output", o, declared_out.get((min(depth, 1), o.name))


def elem_problem(t):
    if t.HasField("tensor_type"):
        return "element type 0" if t.tensor_type.elem_type == 0 else None
    if t.HasField("sequence_type"):
        return elem_problem(t.sequence_type.elem_type) if t.sequence_type.HasField("elem_type") else "sequence of nothing"
    if t.HasField("optional_type"):
        return elem_problem(t.optional_type.elem_type) if t.optional_type.HasField("elem_type") else "optional of nothing"
    return None


def tensor_dims(t):
    return list(t.tensor_type.shape.dim) if t.HasField("tensor_type") and t.tensor_type.HasField("shape") else None


TOKEN = re.compile(r"\s*(?:(\d+)|(floor|mod|min|max)\b|(@\d+)|([-+*/(),]))")


def expression(text, params):
    """A Python expression for a written dim name, or None when it is not built from `params`."""
    # Input dim names may be any string: substitute them first (longest first), then tokenize.
    placeholders = {}
    for k, p in enumerate(sorted(params, key=len, reverse=True)):
        pat = r"(?<![A-Za-z0-9_@])" + re.escape(p) + r"(?![A-Za-z0-9_])"
        if p and re.search(pat, text):
            text = re.sub(pat, f"@{k}", text)
            placeholders[f"@{k}"] = p
    out, pos = [], 0
    while pos < len(text):
        mt = TOKEN.match(text, pos)
        if not mt:
            return None
        num, fn, ph, op = mt.groups()
        out.append(num or fn or (f"v[{placeholders[ph]!r}]" if ph else op))
        pos = mt.end()
    return "".join(out).replace("/", "//") if out else None


# passes/shape_inference.h kMaxWrittenDimChars: a longer expression is written unnamed (issue 16,
# item 3: WaveRNN's dims had been written as 26-term max(...) expressions).
MAX_DIM_CHARS = 40
FUNCS = {"floor": lambda x: x, "mod": lambda a, b: a % b, "min": min, "max": max}


def check_model(name, path, runs, variant_of=None):
    """runs: list of (label, extra onnxtrim-run args, {input dim name: value})."""
    bump("models")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.onnx")
        # The default check is issue 12's subject and has its own tests; here only what is written.
        r = subprocess.run([binary, path, out, "--quiet", "--no-verify"], capture_output=True, text=True)
        if r.returncode != 0:
            fail(name, f"onnxtrim exit {r.returncode}: {r.stderr.strip()[:300]}")
            return
        orig = onnx.load(path, load_external_data=False)
        m = onnx.load(out, load_external_data=False)
        params, inits = input_params(m)
        claims = {}  # main-graph value -> [(dim index, python expr or int)]
        for depth, where, vi, declared in written(m, orig):
            p = elem_problem(vi.type)
            if p:
                fail(name, f"{where} '{vi.name}' has {p}")
            dims = tensor_dims(vi.type)
            if dims is None:
                continue
            ddims = tensor_dims(declared.type) if declared is not None else None
            claim = []
            for k, d in enumerate(dims):
                if d.HasField("dim_value"):
                    claim.append((k, d.dim_value))
                elif d.HasField("dim_param"):
                    if ddims is not None and k < len(ddims) and ddims[k].HasField("dim_param") and \
                            ddims[k].dim_param == d.dim_param:
                        continue  # the model's own declaration of its output
                    bump("named dims")
                    if d.dim_param not in params and len(d.dim_param) > MAX_DIM_CHARS:
                        fail(name, f"{where} '{vi.name}' dim {k} is named '{d.dim_param}': longer than "
                                   f"{MAX_DIM_CHARS} characters (README: such dims are written unnamed)")
                    e = expression(d.dim_param, params)
                    if e is None:
                        fail(name, f"{where} '{vi.name}' dim {k} is named '{d.dim_param}', not an expression over "
                                   f"the inputs' dim names {sorted(params)}")
                        continue
                    claim.append((k, e))
            if depth == 0 and where == "value_info" and vi.name not in inits:
                claims[vi.name] = (len(dims), claim)
        if not runs or not claims:
            return
        # Run OUT with every claimed value as an extra output.
        probe = onnx.load(out, load_external_data=False)
        outs = {o.name for o in probe.graph.output}
        extra = [n for n in claims if n not in outs]
        for vi in probe.graph.value_info:
            if vi.name in extra:
                probe.graph.output.append(vi)
        probe_path = os.path.join(tmp, "probe.onnx")
        onnx.save(probe, probe_path)
        # The probe reads external data (if any) relative to the original's folder.
        if any(t.data_location == onnx.TensorProto.EXTERNAL for t in probe.graph.initializer):
            return
        for label, args, dimvals in runs:
            bump("runs")
            od = os.path.join(tmp, "run_" + str(abs(hash(label))))
            r = subprocess.run([binary, "run", probe_path, "--output-dir", od, *args], capture_output=True, text=True)
            if r.returncode != 0:
                if r.returncode == 6:  # an operator the evaluator lacks: nothing to check by running
                    continue
                fail(name, f"{label}: running the probe: exit {r.returncode}: {r.stderr.strip()[:300]}")
                continue
            order = [o.name for o in probe.graph.output]
            for vname, (rank, claim) in claims.items():
                k_out = order.index(vname)
                f = os.path.join(od, f"output_{k_out}.pb")
                if not os.path.exists(f):
                    continue
                actual = list(numpy_helper.to_array(onnx.load_tensor(f)).shape)
                bump("values checked by running")
                if len(actual) != rank:
                    fail(name, f"{label}: '{vname}' is written with rank {rank} but has shape {actual}")
                    continue
                for k, c in claim:
                    want = c if isinstance(c, int) else eval(c, {"__builtins__": {}, **FUNCS}, {"v": dimvals})
                    if actual[k] != want:
                        fail(name, f"{label}: '{vname}' dim {k} is written "
                                   f"'{c if isinstance(c, int) else c}' = {want} but is {actual[k]}")


def symbolic_variant(path, tmp):
    """The node test with every graph input dim named d<i>_<k>, and the names' values in its data."""
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    data_dir = os.path.join(os.path.dirname(path), "test_data_set_0")
    values, pins = {}, []
    real = [i for i in m.graph.input if i.name not in inits]
    for i, inp in enumerate(real):
        f = os.path.join(data_dir, f"input_{i}.pb")
        if not os.path.exists(f) or not inp.type.HasField("tensor_type"):
            return None
        t = onnx.load_tensor(f)
        pins += ["--input", f"{inp.name}={f}"]
        shape = inp.type.tensor_type.shape
        if len(shape.dim) != len(t.dims):
            return None
        for k, d in enumerate(shape.dim):
            d.Clear()
            d.dim_param = f"d{i}_{k}"
            values[f"d{i}_{k}"] = t.dims[k]
    out = os.path.join(tmp, os.path.basename(os.path.dirname(path)) + ".onnx")
    onnx.save(m, out)
    return out, pins, values


start = time.time()
models = []
if fixtures_dir:
    given = {os.path.realpath(spec.partition("@")[0]) for spec in fixture_specs}
    for f in sorted(glob.glob(os.path.join(fixtures_dir, "*.onnx"))):
        if os.path.realpath(f) not in given:
            fail(os.path.basename(f), "a fixture of --fixtures-dir that is not checked (add it, with its dim settings)")
for spec in fixture_specs:
    path, _, settings = spec.partition("@")
    runs = [] if settings else [("static", ["--seed", "0"], {})]  # a model without named input dims: one run
    for k, s in enumerate(filter(None, settings.split("|"))):
        dims = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in s.split(","))
        args = [a for kv in s.split(",") for a in ("--dim", kv)] + ["--seed", str(k)]
        runs.append((f"dims {s}", args, dims))
    check_model(os.path.basename(path), path, runs)

all_models = sorted(glob.glob(os.path.join(data, "**", "model.onnx"), recursive=True))
test_data.require_cases(len(all_models), "written_facts", data)


def check_backend_model(path, vt):
    rel = os.path.relpath(path, data)
    check_model(rel, path, [])
    if os.sep + "node" + os.sep in path:
        v = symbolic_variant(path, vt)
        if v:
            vpath, pins, values = v
            check_model(rel + " (named input dims)", vpath, [("test data", pins, values)])


# The work is in the onnxtrim subprocesses: two at a time (these machines have two cores).
with tempfile.TemporaryDirectory() as vt, concurrent.futures.ThreadPoolExecutor(2) as pool:
    list(pool.map(lambda p: check_backend_model(p, vt), all_models))

for f in sorted(failures):
    print("FAIL:", f)
print(f"written_facts: {counts['models']} models, {counts['named dims']} named dims written, "
      f"{counts['values checked by running']} values checked in {counts['runs']} runs, "
      f"{len(failures)} failures, {time.time() - start:.0f} s")
sys.exit(1 if failures or counts["models"] == 0 else 0)
