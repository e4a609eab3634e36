"""Runs one generated case through the differential checks.

For a model and its meta (see graphgen.generate):
  1. the original passes onnx.checker (full_check) and runs in ONNX Runtime (else the generator
     is at fault: kind 'generator');
  2. our evaluator (`onnxtrim run`) matches ONNX Runtime on the original (kinds 'eval_mismatch',
     'eval_error');
  3. each simplification variant (default pipeline; --target coreml; dims fixed with --dim, one
     per dim setting of a dynamic case) exits 0 ('simplify_error'), passes onnx.checker
     ('checker'), has no more nodes, subgraphs included ('grew'), loads and runs in ONNX Runtime
     ('ort_error') with the original's outputs ('ort_mismatch'), and runs in our evaluator
     ('ours_error') with the original's outputs too ('ours_mismatch').
Before onnx.checker, every written model gets a structural check of its own ('structure': it
loads, its names are valid UTF-8, every node reads values defined before it in its scope, no value
is defined twice, every graph output is defined), which also holds where the checker's view
cannot be made. Dynamic cases run at two settings of their symbolic dims (the dims-fixed variant
at its own).

Custom domains: onnxtrim's evaluator cannot run their ops (its own check is skipped, and
`onnxtrim run` is not compared); ONNX Runtime runs the com.microsoft ops, and a model with ops of
graphgen's made-up domain runs in ONNX Runtime as its "twin" (graphgen.runnable_twin: each such
op spelled in standard ops), the original and every written model alike. Where ONNX Runtime
cannot run the original at all (kind 'generator'), the variants are still simplified and must
exit 0, pass the structural check and onnx.checker, and load in ONNX Runtime where the original
loads.

python3-onnx here is 1.12 (schemas up to opset 17, IR version 8): models of opset 18-21 are
checked through their "opset-17 view", which rewrites the few constructs whose schema changed
after 17 (Reduce* axes as input, Split num_outputs, Pad axes) into their opset-17 spelling.
"""
import copy
import json
import os
import select
import subprocess
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import graphgen

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "e2e", "ort", "run.js")
RTOL = 1e-3          # relative, per element
ATOL_SCALE = 1e-4    # absolute, times max(1, the largest |reference| of the output)
ORT_TIMEOUT = 120

ORT_DTYPES = {np.float32: "float32", np.float64: "float64", np.int64: "int64", np.int32: "int32", np.bool_: "bool",
              np.uint8: "uint8", np.int8: "int8", np.float16: "float16"}
NP_FROM_ORT = {v: k for k, v in ORT_DTYPES.items()}


class Failure:
    def __init__(self, kind, variant, setting, detail):
        self.kind, self.variant, self.setting, self.detail = kind, variant, setting, detail

    def key(self):
        return (self.kind, self.variant, self.setting)

    def __repr__(self):
        s = f"[{self.kind}] {self.variant}"
        if self.setting is not None:
            s += f" @setting{self.setting}"
        return s + f": {self.detail}"

    def to_json(self):
        return {"kind": self.kind, "variant": self.variant, "setting": self.setting, "detail": self.detail}


# ---------------------------------------------------------------------------------------------
class OrtServer:
    """One `node run.js --serve` process for many models."""

    def __init__(self):
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(["node", RUNNER, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def close(self):
        if self.proc:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except Exception:
                self.proc.kill()
            self.proc = None

    def run(self, model, inputs, work):
        """inputs: name -> np.ndarray. Returns (outputs list, None) or (None, error line)."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        os.makedirs(work, exist_ok=True)
        job_inputs = {}
        for k, (name, a) in enumerate(inputs.items()):
            f = os.path.join(work, f"in{k}.bin")
            np.ascontiguousarray(a).tofile(f)
            job_inputs[name] = {"dtype": ORT_DTYPES[a.dtype.type], "dims": list(a.shape), "file": f}
        job = {"model": os.path.abspath(model), "inputs": job_inputs, "out": os.path.join(work, "out")}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], ORT_TIMEOUT)
        if not ready:
            self.proc.kill()
            self.proc = None
            return None, f"ONNX Runtime took more than {ORT_TIMEOUT} s"
        line = self.proc.stdout.readline()
        if not line:
            self.proc = None
            return None, "ONNX Runtime's process died"
        ans = json.loads(line)
        if not ans["ok"]:
            return None, ans["error"]
        outs = []
        for o in ans["outputs"]:
            dt = NP_FROM_ORT.get(o["dtype"])
            if dt is None:
                return None, f"output dtype {o['dtype']} not supported by the harness"
            a = np.fromfile(o["file"], dtype=dt)
            outs.append(a.reshape(o["dims"]))
        return outs, None


def is_load_error(e):
    """An ONNX Runtime error line from loading the model (not from running it)."""
    return e.startswith("Load model") or "invalid model" in e or "INVALID_GRAPH" in e or "INVALID_PROTOBUF" in e


def sh(args, timeout=300):
    try:
        # errors="replace": an error line may carry bytes that are not UTF-8 (a freed name)
        r = subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout} s"
    return r.returncode, (r.stderr.strip().splitlines() or [""])[-1][:400]


def run_ours(binary, model, pins, work, n_outputs):
    os.makedirs(work, exist_ok=True)
    cmd = [binary, "run", model, "--output-dir", work]
    for name, path in pins.items():
        cmd += ["--input", f"{name}={path}"]
    rc, err = sh(cmd)
    if rc != 0:
        return None, rc, err
    outs = []
    for k in range(n_outputs):
        outs.append(numpy_helper.to_array(onnx.load_tensor(os.path.join(work, f"output_{k}.pb"))))
    return outs, 0, ""


def close(got, want):
    """(ok, why) comparing one output with the reference."""
    if got.shape != want.shape:
        return False, f"shape {list(got.shape)} != {list(want.shape)}"
    if got.dtype != want.dtype:
        return False, f"dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind in "fc":
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        fin = np.isfinite(w)
        scale = max(1.0, float(np.max(np.abs(w[fin]))) if fin.any() else 1.0)
        atol = ATOL_SCALE * scale
        ok = np.allclose(g, w, rtol=RTOL, atol=atol, equal_nan=True)
        if ok:
            return True, ""
        diff = np.abs(g - w)
        diff[np.isnan(diff) & ~(np.isnan(g) & np.isnan(w))] = np.inf
        diff[np.isnan(g) & np.isnan(w)] = 0
        i = int(np.nanargmax(diff))
        return False, (f"max abs diff {float(np.nanmax(diff)):.4g} at flat index {i} ({g.flat[i]:.7g} vs {w.flat[i]:.7g}; "
                       f"atol {atol:.3g}, rtol {RTOL})")
    ok = np.array_equal(got, want)
    if ok:
        return True, ""
    i = int(np.argmax(got.reshape(-1) != want.reshape(-1)))
    return False, f"values differ at flat index {i} ({got.flat[i]} vs {want.flat[i]})"


def compare(got, want):
    if len(got) != len(want):
        return False, f"{len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        ok, why = close(g, w)
        if not ok:
            return False, f"output {k}: {why}"
    return True, ""


# ---------------------------------------------------------------------------------------------
def count_nodes(graph):
    n = 0
    for nd in graph.node:
        n += 1
        for a in nd.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                n += count_nodes(a.g)
            elif a.type == onnx.AttributeProto.GRAPHS:
                n += sum(count_nodes(s) for s in a.graphs)
    return n


class ViewError(Exception):
    pass


class ViewUnknown(ViewError):
    """The view needs a fact the model does not state (the rank of a custom op's output, whose
    declared type onnxtrim does not keep: it writes only what it proves). python3-onnx's checker
    then cannot judge the model; ONNX Runtime and the structural check still do."""


REDUCE18 = {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare",
            "ReduceLogSum", "ReduceLogSumExp"}


def opset_of(model, domain=""):
    for o in model.opset_import:
        if o.domain in (domain, "ai.onnx" if domain == "" else domain):
            return o.version
    return None


def checker_view(model, meta=None):
    """The model in the spelling python3-onnx 1.12 can check (opset <= 17, IR <= 8)."""
    m = copy.deepcopy(model)
    if m.ir_version > 8:
        m.ir_version = 8
    op = opset_of(m)
    if op is None or op <= 17:
        return m
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 17
    dims = {}
    if meta:
        for name, info in meta.get("values", {}).items():
            dims[name] = [graphgen.dim_from_json(d) for d in info["dims"]]

    def collect_dims(g):
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            t = vi.type.tensor_type
            if t.HasField("shape"):
                dims.setdefault(vi.name, [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim])
        for t in g.initializer:
            dims.setdefault(t.name, list(t.dims))

    def view_graph(g, consts):
        consts = dict(consts)
        collect_dims(g)
        for t in g.initializer:
            consts[t.name] = numpy_helper.to_array(t)
        new_inits = []
        for nd in g.node:
            if nd.op_type == "Constant" and nd.domain in ("", "ai.onnx"):
                for a in nd.attribute:
                    if a.name == "value":
                        consts[nd.output[0]] = numpy_helper.to_array(a.t)
                    elif a.name == "value_ints":
                        consts[nd.output[0]] = np.array(list(a.ints), np.int64)
            for a in nd.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    view_graph(a.g, consts)
            if nd.domain not in ("", "ai.onnx"):
                continue
            attrs = {a.name: a for a in nd.attribute}
            if nd.op_type in REDUCE18:
                axes = None
                if len(nd.input) >= 2 and nd.input[1]:
                    if nd.input[1] not in consts:
                        raise ViewError(f"node '{nd.name}' ({nd.op_type}): axes are not a constant")
                    axes = [int(x) for x in consts[nd.input[1]].reshape(-1)]
                    del nd.input[1:]
                noop = attrs["noop_with_empty_axes"].i if "noop_with_empty_axes" in attrs else 0
                keep = [a for a in nd.attribute if a.name != "noop_with_empty_axes"]
                del nd.attribute[:]
                nd.attribute.extend(keep)
                if axes:
                    nd.attribute.append(helper.make_attribute("axes", axes))
                elif noop:
                    # no axes and noop_with_empty_axes: the reduction keeps the shape
                    nd.op_type = "Identity"
                    del nd.attribute[:]
            elif nd.op_type == "Split" and "num_outputs" in attrs:
                axis = attrs["axis"].i if "axis" in attrs else 0
                shape = dims.get(nd.input[0])
                if shape is None:
                    raise ViewUnknown(f"node '{nd.name}' (Split): input shape unknown")
                d = shape[axis]
                if not isinstance(d, int):
                    raise ViewUnknown(f"node '{nd.name}' (Split): split axis is not static")
                n = attrs["num_outputs"].i
                q = -(-d // n)
                sizes = [q] * (d // q) + ([d - q * (d // q)] if d % q else [])
                keep = [a for a in nd.attribute if a.name != "num_outputs"]
                del nd.attribute[:]
                nd.attribute.extend(keep)
                name = f"{nd.name or nd.output[0]}__split_sizes"
                new_inits.append(numpy_helper.from_array(np.array(sizes, np.int64), name))
                nd.input.append(name)
            elif nd.op_type == "Pad" and len(nd.input) >= 4 and nd.input[3]:
                shape = dims.get(nd.input[0])
                if shape is None:
                    raise ViewUnknown(f"node '{nd.name}' (Pad): input rank unknown")
                if nd.input[1] not in consts or nd.input[3] not in consts:
                    raise ViewError(f"node '{nd.name}' (Pad): pads or axes are not constant")
                r = len(shape)
                pads = consts[nd.input[1]].reshape(-1)
                axes = [int(a) % r for a in consts[nd.input[3]].reshape(-1)]
                full = np.zeros(2 * r, np.int64)
                for i, a in enumerate(axes):
                    full[a] = pads[i]
                    full[a + r] = pads[i + len(axes)]
                name = f"{nd.name or nd.output[0]}__full_pads"
                new_inits.append(numpy_helper.from_array(full, name))
                nd.input[1] = name
                del nd.input[3:]
                while nd.input and nd.input[-1] == "":
                    del nd.input[-1]
            elif nd.op_type == "Resize":
                for a in ("antialias", "keep_aspect_ratio_policy", "axes"):
                    if a in attrs:
                        raise ViewError(f"node '{nd.name}' (Resize): attribute {a} of opset 18")
        g.initializer.extend(new_inits)

    view_graph(m.graph, {})
    return m


def structure_errors(model):
    """The first structural defect of a written model, or None: a name that is not valid UTF-8
    (python3-onnx then hands out bytes) or holds control characters; a node input that no earlier
    node, graph input or initializer of its graph or an enclosing one defines (a dangling name, or
    nodes out of order); a value defined twice in one graph; a graph output nothing defines."""

    def bad(n):
        if isinstance(n, bytes):
            return f"name {n[:60]!r} is not valid UTF-8"
        if any(ord(c) < 32 or ord(c) == 127 for c in n):
            return f"name {n[:60]!r} holds control characters"
        return None

    def walk(g, outer, where):
        defined = set()
        for vi in g.input:
            if bad(vi.name):
                return f"{where}graph input: {bad(vi.name)}"
            defined.add(vi.name)
        for t in g.initializer:
            if bad(t.name):
                return f"{where}initializer: {bad(t.name)}"
            defined.add(t.name)
        for i, nd in enumerate(g.node):
            label = f"{where}node {i} ({nd.op_type})"
            for n in nd.input:
                if not n:
                    continue
                if bad(n):
                    return f"{label}: input {bad(n)}"
                if n not in defined and n not in outer:
                    return f"{label}: input '{n}' is defined by no earlier node, graph input or initializer"
            for a in nd.attribute:
                subs = [a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs) if a.type == onnx.AttributeProto.GRAPHS else []
                for sg in subs:
                    e = walk(sg, outer | defined, f"{label} attribute {a.name}: ")
                    if e:
                        return e
            for o in nd.output:
                if not o:
                    continue
                if bad(o):
                    return f"{label}: output {bad(o)}"
                if o in defined:
                    return f"{label}: output '{o}' is defined twice"
                defined.add(o)
        for o in g.output:
            if bad(o.name):
                return f"{where}graph output: {bad(o.name)}"
            if o.name not in defined and o.name not in outer:
                return f"{where}graph output '{o.name}' is not defined"
        return None

    return walk(model.graph, set(), "")


def check_model(model, meta=None):
    """None when python3-onnx's checker (full_check) accepts the model, else the error line."""
    try:
        v = checker_view(model, meta)
    except ViewUnknown:
        return None
    except ViewError as e:
        return f"opset-17 view: {e}"
    try:
        onnx.checker.check_model(v, full_check=True)
    except Exception as e:  # checker and shape-inference errors alike
        return str(e).strip().splitlines()[0][:400] if str(e).strip() else type(e).__name__
    return None


# ---------------------------------------------------------------------------------------------
def variants_for(meta):
    """The simplifications of a case. The default one runs as users run it, with onnxtrim's own
    check on; the others skip it (--no-verify), so that ONNX Runtime judges what they wrote.
    'noverify' is the default pipeline without the check: what onnxtrim writes when its check does
    not run (--no-verify, a custom domain, a model over the check's budget), so that a broken
    result cannot hide behind the check's refusal. (Where its file is the default one's, byte for
    byte, the default's checks stand for it: see Runner.run_case.)"""
    v = [("default", []), ("noverify", ["--no-verify"]), ("coreml", ["--target", "coreml", "--no-verify"])]
    if meta["dynamic"]:
        for i, s in enumerate(meta["settings"]):
            args = ["--no-verify"]
            for name, val in s.items():
                args += ["--dim", f"{name}={val}"]
            v.append((f"dims{i}", args))
    return v


def variant_settings(meta, variant):
    if variant.startswith("dims"):
        return [int(variant[4:])]
    return list(range(len(meta["settings"])))


class Runner:
    """Everything a case needs: the CLI, an ONNX Runtime server, a scratch folder."""

    def __init__(self, binary, scratch):
        self.binary = binary
        self.scratch = scratch
        self.ort = OrtServer()
        os.makedirs(scratch, exist_ok=True)

    def close(self):
        self.ort.close()

    def inputs_for(self, meta, si, work):
        """Input arrays for setting si, and TensorProto files for `onnxtrim run --input`."""
        vals = graphgen.make_input_values(meta, meta["settings"][si], meta["seed"] * 7 + si)
        pins = {}
        os.makedirs(work, exist_ok=True)
        for k, (name, a) in enumerate(vals.items()):
            p = os.path.join(work, f"input_{k}.pb")
            with open(p, "wb") as f:
                f.write(numpy_helper.from_array(a, name).SerializeToString())
            pins[name] = p
        return vals, pins

    def run_case(self, model_path, meta, only=None, stop_early=False):
        """All checks of a case (or only the (variant, setting) pairs in `only`). Returns
        (failures, info) with info: node counts, timings."""
        fails = []
        work = os.path.join(self.scratch, "w")
        os.makedirs(work, exist_ok=True)
        model = onnx.load(model_path)
        n_out = len(model.graph.output)
        err = structure_errors(model) or check_model(model, meta)
        if err:
            return [Failure("generator", "original", None, f"onnx.checker: {err}")], {}
        custom = any(nd.domain not in ("", "ai.onnx") for nd in model.graph.node)
        ort_model_path = model_path
        if graphgen.uses_made_up(model):
            ort_model_path = os.path.join(work, "original_twin.onnx")
            onnx.save(graphgen.runnable_twin(model), ort_model_path)
        n_orig = count_nodes(model.graph)
        info = {"nodes": n_orig}
        settings = range(len(meta["settings"]))
        if only is not None:
            settings = sorted({s for _, s in only if s is not None} | ({0} if any(s is None for _, s in only) else set()))
        refs, inputs, pins = {}, {}, {}
        need_eval = only is None or any(v == "original" for v, _ in only)
        for si in settings:
            inputs[si], pins[si] = self.inputs_for(meta, si, os.path.join(work, f"in{si}"))
            outs, e = self.ort.run(ort_model_path, inputs[si], os.path.join(work, f"ort_orig{si}"))
            if e:
                # the generator's fault; the variants are still checked for what needs no reference
                fails.append(Failure("generator", "original", si, f"ONNX Runtime: {e}"))
                info["unrunnable"] = True
                orig_loads = not is_load_error(e)
                unrun_inputs = inputs[si]
                break
            refs[si] = outs
            if need_eval and not custom:
                ours, rc, e = run_ours(self.binary, model_path, pins[si], os.path.join(work, f"ours_orig{si}"), n_out)
                if ours is None:
                    fails.append(Failure("eval_error", "original", si, f"exit {rc}: {e}"))
                else:
                    ok, why = compare(ours, refs[si])
                    if not ok:
                        fails.append(Failure("eval_mismatch", "original", si, why))
        if info.get("unrunnable") and only is not None:
            return fails, info
        checked = {}  # bytes of a written model -> the settings its checks ran at
        checked_by = {}  # ... -> the variant that ran them
        for vname, args in variants_for(meta):
            if only is not None and not any(v == vname for v, _ in only):
                continue
            out = os.path.join(work, f"simp_{vname}.onnx")
            if os.path.exists(out):
                os.remove(out)
            report = os.path.join(work, f"report_{vname}.json")
            if vname == "default":
                args = args + ["--json", report]
            rc, e = sh([self.binary, model_path, out, "--quiet"] + args)
            refused = None
            if rc == 1 and "--no-verify" not in args:
                # onnxtrim's check refused the result: write it anyway and let ONNX Runtime judge
                refused = e
                rc, e = sh([self.binary, model_path, out, "--quiet", "--no-verify"] + args)
            if rc != 0:
                fails.append(Failure("simplify_error", vname, None, f"exit {rc}: {e}"))
                continue
            n_fails = len(fails)
            if vname == "default" and os.path.exists(report):
                try:
                    with open(report) as fh:
                        rep = json.load(fh)
                    info["passes"] = sorted(p["name"] for p in rep.get("passes", []) if p.get("changes")
                                            and p["name"] not in ("infer_shapes",))
                except (ValueError, KeyError):
                    pass
                os.remove(report)
            with open(out, "rb") as fh:
                data = fh.read()
            want = {si for si in variant_settings(meta, vname) if si in refs
                    and (only is None or (vname, si) in only or (vname, None) in only)}
            if data in checked and want <= checked[data]:
                # byte for byte a model checked already (the noverify variant, when the default
                # pipeline's check passed): the same checks would give the same answers
                info[f"nodes_{vname}"] = info.get(f"nodes_{checked_by[data]}")
                continue
            try:
                sm = onnx.load(out)
            except Exception as ex:  # noqa: BLE001 (a file python3-onnx cannot parse)
                fails.append(Failure("structure", vname, None, f"onnx.load: {str(ex)[:300]}"))
                continue
            err = structure_errors(sm)
            if err:
                fails.append(Failure("structure", vname, None, err))
                if stop_early:
                    break
                continue
            err = check_model(sm, None)
            if err:
                fails.append(Failure("checker", vname, None, err))
            n = count_nodes(sm.graph)
            info[f"nodes_{vname}"] = n
            if n > n_orig:
                fails.append(Failure("grew", vname, None, f"{n_orig} -> {n} nodes"))
            ort_out = out
            if graphgen.uses_made_up(sm):
                ort_out = os.path.join(work, f"simp_{vname}_twin.onnx")
                onnx.save(graphgen.runnable_twin(sm), ort_out)
            checked[data] = want
            checked_by[data] = vname
            if info.get("unrunnable") and orig_loads:
                # no reference to compare with, but what ONNX Runtime loads it must still load
                _, e = self.ort.run(ort_out, unrun_inputs, os.path.join(work, f"ort_{vname}_load"))
                if e and is_load_error(e):
                    fails.append(Failure("ort_error", vname, None, f"ONNX Runtime loads the original, not this: {e}"))
            for si in variant_settings(meta, vname):
                if si not in refs:
                    continue
                if only is not None and (vname, si) not in only and (vname, None) not in only:
                    continue
                outs, e = self.ort.run(ort_out, inputs[si], os.path.join(work, f"ort_{vname}{si}"))
                if e:
                    fails.append(Failure("ort_error", vname, si, e))
                else:
                    ok, why = compare(outs, refs[si])
                    if not ok:
                        fails.append(Failure("ort_mismatch", vname, si, why))
                if custom:
                    continue
                ours, rc, e = run_ours(self.binary, out, pins[si], os.path.join(work, f"ours_{vname}{si}"), n_out)
                if ours is None:
                    fails.append(Failure("ours_error", vname, si, f"exit {rc}: {e}"))
                else:
                    ok, why = compare(ours, refs[si])
                    if not ok:
                        fails.append(Failure("ours_mismatch", vname, si, why))
            if refused is not None and len(fails) == n_fails:
                fails.append(Failure("check_refused", vname, None,
                                     f"onnxtrim's check refused a result that ONNX Runtime finds equal: {refused}"))
            if stop_early and fails:
                break
        return fails, info
