#!/usr/bin/env python3
"""One test per onnxsim / OnnxSlim flag that onnxtrim maps (README: "Flags of onnxsim and
OnnxSlim"): each must do what it maps to, or be refused with one line saying what to use.

usage: cli_flags.py ONNXTRIM"""
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

binary = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESNET = os.path.join(ROOT, "tests", "models", "resnet_small.onnx")
DIRTY = os.path.join(ROOT, "examples", "dirty.onnx")
tmp = tempfile.mkdtemp()
passed = failed = 0


def run(*args, ok=True):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if ok and r.returncode != 0:
        raise AssertionError(f"exit {r.returncode}: {r.stderr.strip()}")
    return r


def simplify(src, *flags):
    out = os.path.join(tmp, "out.onnx")
    if os.path.exists(out):
        os.remove(out)
    r = run(src, out, "--quiet", "--json", "-", *flags)
    return onnx.load(out), json.loads(r.stdout)


def passes_run(report):
    return [p["name"] for p in report["passes"]]


def range_model():
    # y = x + Range(0, 600, 1): the Range is a 4800-byte generator (folded only within the threshold).
    x = helper.make_tensor_value_info("x", TensorProto.INT64, [600])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [600])
    c = [helper.make_node("Constant", [], [n], value=helper.make_tensor(n, TensorProto.INT64, [], [v]))
         for n, v in (("start", 0), ("limit", 600), ("delta", 1))]
    g = helper.make_graph(c + [helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
                               helper.make_node("Add", ["x", "r"], ["y"])], "g", [x], [y])
    path = os.path.join(tmp, "range.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_overwrite_input_shape():
    m, rep = simplify(RESNET, "--overwrite-input-shape", "image:2,3,32,32")
    assert [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim] == [2, 3, 32, 32]
    m, _ = simplify(RESNET, "--overwrite-input-shape", "2,3,32,32")  # one input: the name may go
    assert [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim] == [2, 3, 32, 32]
    r = run(RESNET, os.path.join(tmp, "x.onnx"), "--overwrite-input-shape", "image:2,3", ok=False)
    assert r.returncode == 2 and "rank" in r.stderr, r.stderr


def test_input_shapes():
    m, _ = simplify(RESNET, "--input-shapes", "image:1,3,32,32")
    assert [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim] == [1, 3, 32, 32]


def test_skip_optimization():
    _, rep = simplify(RESNET, "--skip-optimization")
    assert passes_run(rep) == ["infer_shapes", "fold_constants", "eliminate_dead_nodes",
                               "eliminate_unused_initializers", "eliminate_unused_value_info"], passes_run(rep)


def test_skip_optimization_with_onnxoptimizer_names():
    # onnxsim's --skip-optimization NAME ...: onnxoptimizer's names, onnxtrim's passes skipped
    m, rep = simplify(RESNET, "--skip-optimization", "fuse_bn_into_conv", "eliminate_nop_transpose")
    ran = passes_run(rep)
    assert "fuse_conv_bn" not in ran and "eliminate_nop_ops" not in ran and "fuse_conv_add" in ran, ran
    assert any(n.op_type == "BatchNormalization" for n in m.graph.node)
    _, rep = simplify(RESNET, "--skip-optimization", "fuse_qkv")  # never applied by onnxtrim: nothing skipped
    assert "fuse_conv_bn" in passes_run(rep)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    g = helper.make_graph([helper.make_node("Constant", [], ["c"], value=helper.make_tensor("c", TensorProto.FLOAT, [3],
                                                                                            [1, 2, 3])),
                           helper.make_node("Add", ["x", "c"], ["y"])], "g", [x], [y])
    const = os.path.join(tmp, "constant.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), const)
    assert not any(n.op_type == "Constant" for n in simplify(const)[0].graph.node)
    m, _ = simplify(const, "--skip-optimization", "extract_constant_to_initializer")  # = --keep-constant-nodes
    assert [n.op_type for n in m.graph.node] == ["Constant", "Add"]
    r = run(RESNET, os.path.join(tmp, "x.onnx"), "--skip-optimization", "fuse_everything", ok=False)
    assert r.returncode == 2 and "unknown onnxsim optimizer 'fuse_everything'" in r.stderr and \
        r.stderr.count("\n") == 1, r.stderr


def test_skip_fuse_bn():
    _, rep = simplify(RESNET, "--skip-fuse-bn")
    assert "fuse_conv_bn" not in passes_run(rep) and "fuse_matmul_bn" not in passes_run(rep)
    assert "fuse_conv_add" in passes_run(rep)


def test_no_large_tensor():
    src = range_model()
    m, _ = simplify(src)
    assert not any(n.op_type == "Range" for n in m.graph.node)  # 4800 bytes: within the fold budget
    m, _ = simplify(src, "--no-large-tensor", "4KB")
    assert any(n.op_type == "Range" for n in m.graph.node)  # no folded tensor past 4 KB
    m, _ = simplify(src, "--no-large-tensor", "8KB")
    assert not any(n.op_type == "Range" for n in m.graph.node)
    m, _ = simplify(src, "--no-large-tensor")  # onnxsim's default: 1KB
    assert any(n.op_type == "Range" for n in m.graph.node)


def test_size_threshold():
    m, _ = simplify(range_model(), "--size-threshold", "8192")
    assert not any(n.op_type == "Range" for n in m.graph.node)


def test_check_n():
    _, rep = simplify(DIRTY, "--check-n", "2")
    assert rep["verification"]["ran"] and rep["verification"]["samples"] == 2
    _, rep = simplify(DIRTY, "--check-n", "0")
    assert not rep["verification"]["ran"] and rep["verification"]["skipped"] == "--no-verify"


def test_positional_check_n():
    # onnxsim IN OUT 3: the third positional argument is check_n
    _, rep = simplify(DIRTY, "3")
    assert rep["verification"]["ran"] and rep["verification"]["samples"] == 3


def test_skip_constant_folding():
    _, rep = simplify(RESNET, "--skip-constant-folding")
    assert "fold_constants" not in passes_run(rep)
    m, _ = simplify(range_model(), "--skip-constant-folding", "--size-threshold", "8192")
    assert any(n.op_type == "Range" for n in m.graph.node)


def test_test_input_shape():
    _, rep = simplify(RESNET)
    assert rep["verification"]["dims"] == {"batch": 1}  # without the flag: the default size
    for arg in ("image:3,3,32,32", "3,3,32,32"):
        m, rep = simplify(RESNET, "--test-input-shape", arg)
        v = rep["verification"]
        assert v["ran"] and v["ok"] and v["dims"] == {}, v  # the shape gives every dim
        assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param  # the model stays dynamic
    # the check's inputs have that shape: 5 channels where the first Conv takes 3
    r = run(RESNET, os.path.join(tmp, "x.onnx"), "--quiet", "--test-input-shape", "1,5,32,32")
    assert "check skipped" in r.stderr and "channel" in r.stderr, r.stderr


def test_model_check():
    _, rep = simplify(DIRTY, "--model-check")
    assert rep["verification"]["ran"] and rep["verification"]["ok"]


def test_model_check_inputs():
    m, rep = simplify(RESNET, "--model-check-inputs", "image:3,3,32,32")
    v = rep["verification"]
    assert v["ran"] and v["ok"]
    # Only the check's inputs: the model stays dynamic.
    assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param


def test_model_check_inputs_npy():
    import numpy as np
    data = os.path.join(tmp, "image.npy")
    np.save(data, np.full((2, 3, 32, 32), 0.25, np.float32))
    _, rep = simplify(RESNET, "--model-check-inputs", f"image:{data}")
    v = rep["verification"]
    assert v["ran"] and v["ok"] and v["dims"] == {}, v  # the pinned input gives every dim
    np.save(data, np.full((2, 5, 32, 32), 0.25, np.float32))  # 5 channels: the original cannot run on it
    r = run(RESNET, os.path.join(tmp, "x.onnx"), "--quiet", "--model-check-inputs", f"image:{data}", ok=False)
    assert r.returncode != 0 and "channel" in r.stderr, r.stderr


def conv_model(name, hw=224, mid="mid", out="y"):
    # name[1,3,hw,hw] -> Conv (4 filters 3x3, pads 1) -> mid (value_info) -> Relu -> out
    import numpy as np
    from onnx import numpy_helper
    w = numpy_helper.from_array(np.random.default_rng(0).uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32), "w")
    g = helper.make_graph([helper.make_node("Conv", [name, "w"], [mid], pads=[1, 1, 1, 1]),
                           helper.make_node("Relu", [mid], [out])], "g",
                          [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 3, hw, hw])],
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 4, hw, hw])], [w],
                          value_info=[helper.make_tensor_value_info(mid, TensorProto.FLOAT, [1, 4, hw, hw])])
    path = os.path.join(tmp, "conv.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def dims_of(v):
    return [d.dim_value for d in v.type.tensor_type.shape.dim]


def test_model_check_inputs_tensorflow_name():
    # OnnxSlim's NAME:FILE.npy is cut at the last ':': input_1:0 is a TensorFlow tensor name.
    import numpy as np
    path = conv_model("input_1:0")
    data = os.path.join(tmp, "tf.npy")
    np.save(data, np.full((1, 3, 224, 224), 0.5, np.float32))
    _, rep = simplify(path, "--model-check-inputs", f"input_1:0:{data}")
    v = rep["verification"]
    assert v["ran"] and v["ok"] and v["dims"] == {}, v
    np.save(data, np.full((1, 5, 224, 224), 0.5, np.float32))  # the file is read: 5 channels fail
    r = run(path, os.path.join(tmp, "x.onnx"), "--quiet", "--model-check-inputs", f"input_1:0:{data}", ok=False)
    assert r.returncode != 0 and "channel" in r.stderr, r.stderr
    m, _ = simplify(path, "--overwrite-input-shape", "input_1:0:1,3,224,224")
    assert dims_of(m.graph.input[0]) == [1, 3, 224, 224]


def test_names_with_spaces_and_commas_quoted():
    path = conv_model("in a,b", mid="mid x", out="out,y")
    m, _ = simplify(path, "--outputs", '"mid x"')
    assert [o.name for o in m.graph.output] == ["mid x"]
    m, rep = simplify(path, "--overwrite-input-shape", '"in a,b":1,3,112,112', "--outputs", '"out,y"')
    assert dims_of(m.graph.input[0]) == [1, 3, 112, 112] and rep["verification"]["ok"]
    r = run(path, os.path.join(tmp, "x.onnx"), "--outputs", "mid x", ok=False)  # two names unquoted
    assert r.returncode == 2 and "no value named 'mid'" in r.stderr, r.stderr


def test_overwrite_input_shape_changes_a_fixed_dim():
    # onnxsim and OnnxSlim overwrite a dim the model fixes: 224 -> 112, checked at 112.
    path = conv_model("input")
    for flag in ("--overwrite-input-shape", "--input-shapes", "--input-shape"):
        m, rep = simplify(path, "--verify", flag, "input:1,3,112,112")
        v = rep["verification"]
        assert v["ran"] and v["ok"], (flag, v)
        assert dims_of(m.graph.input[0]) == [1, 3, 112, 112], flag
        assert dims_of(m.graph.output[0]) == [1, 4, 112, 112], flag
        assert all(dims_of(i)[2:] == [112, 112] for i in m.graph.value_info), flag
    r = run(path, os.path.join(tmp, "x.onnx"), "--overwrite-input-shape", "input:1,3,112", ok=False)
    assert r.returncode == 2 and "rank" in r.stderr, r.stderr


def test_skip_fusion_patterns():
    _, rep = simplify(RESNET, "--skip-fusion-patterns", "FusionConvBN", "FusionPadConv")
    assert "fuse_conv_bn" not in passes_run(rep) and "fuse_pad_conv" not in passes_run(rep)
    r = run(RESNET, os.path.join(tmp, "x.onnx"), "--skip-fusion-patterns", "NoSuchFusion", ok=False)
    assert r.returncode == 2 and "unknown pattern 'NoSuchFusion'" in r.stderr


def test_no_constant_folding():
    _, rep = simplify(RESNET, "--no-constant-folding")
    assert "fold_constants" not in passes_run(rep)


def test_skip_shape_inference_and_no_shape_infer():
    for flag in ("--skip-shape-inference", "--no-shape-infer"):
        m, _ = simplify(DIRTY, flag)
        assert len(m.graph.value_info) == 0, flag
    m, _ = simplify(DIRTY)
    assert len(m.graph.value_info) > 0


def test_save_as_external_data():
    out = os.path.join(tmp, "ext", "m.onnx")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    run(RESNET, out, "--quiet", "--save-as-external-data", "--external-threshold", "256")
    assert os.path.exists(out + ".data")
    assert any(t.data_location == onnx.TensorProto.EXTERNAL for t in onnx.load(out, load_external_data=False).graph.initializer)


def test_inspect():
    r = run(DIRTY, "--inspect")
    assert "nodes:" in r.stdout and "inputs:" in r.stdout


def test_onnxslim_inputs_outputs():
    # OnnxSlim's space-separated names: the graph is cut there (onnxtrim's --inputs/--outputs).
    fixture = os.path.join(os.path.dirname(RESNET), "cut_if_function.onnx")
    out = os.path.join(tmp, "slim_cut.onnx")
    run(fixture, out, "--inputs", "f2", "bias", "threshold", "--outputs", "logits", "--quiet")
    m = onnx.load(out)
    assert [i.name for i in m.graph.input] == ["f2", "bias", "threshold"]
    assert [o.name for o in m.graph.output] == ["logits"]
    r = run(fixture, out + "2", "--outputs", "logits:fp16", ok=False)
    assert r.returncode == 2 and "changing the type" in r.stderr, r.stderr


def test_dtype():
    m, rep = simplify(RESNET, "--dtype", "fp16")
    assert rep["conversion"]["dtype"] == "fp16" and rep["verification"]["ok"], rep
    assert any(t.data_type == onnx.TensorProto.FLOAT16 for t in m.graph.initializer)
    assert m.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT


def test_skip_optimizations():
    # OnnxSlim's --skip-optimizations NAME ...: its optimizations, as onnxtrim's passes skipped
    _, rep = simplify(RESNET, "--skip-optimizations", "graph_fusion", "weight_tying")
    ran = passes_run(rep)
    for p in ("fuse_conv_bn", "fuse_pad_conv", "fuse_consecutive_ops", "eliminate_duplicate_constants"):
        assert p not in ran, (p, ran)
    assert "fold_constants" in ran and "eliminate_dead_nodes" in ran, ran
    _, rep = simplify(RESNET, "--skip-optimizations", "constant_folding", "dead_node_elimination",
                      "subexpression_elimination")
    ran = passes_run(rep)
    for p in ("fold_constants", "eliminate_dead_nodes", "eliminate_common_subexpressions"):
        assert p not in ran, (p, ran)
    assert "fuse_conv_bn" in ran, ran
    r = run(RESNET, os.path.join(tmp, "x.onnx"), "--skip-optimizations", "graph_fusions", ok=False)
    assert r.returncode == 2 and "unknown optimization 'graph_fusions'" in r.stderr, r.stderr


def test_verbose():
    # OnnxSlim's --verbose: each stage and each pass of each round logged on stderr as it starts
    # (seconds since the start), in order; the report is the same
    r = run(RESNET, os.path.join(tmp, "v.onnx"), "--verbose")
    log = [line.split(None, 3)[1:] for line in r.stderr.splitlines() if line.startswith("onnxtrim: ")]
    stages = [s[2] for s in log]
    assert "round 1: fold_constants" in stages and "check" in stages, r.stderr
    assert stages.index("round 1: fold_constants") < stages.index("check"), stages
    assert [float(s[0]) for s in log] == sorted(float(s[0]) for s in log), log
    assert "passes (" in r.stdout and "check:" in r.stdout, r.stdout
    r = run(RESNET, os.path.join(tmp, "v.onnx"))
    assert "round 1:" not in r.stderr


def test_dump_to_disk():
    # OnnxSlim's --inspect --dump-to-disk: STEM_model_info.csv in the current folder, one row per
    # node output (name and op on the first), appended; without --inspect: exit 2, as OnnxSlim
    import csv
    d = tempfile.mkdtemp(dir=tmp)
    r = subprocess.run([binary, "--inspect", "--dump-to-disk", RESNET], capture_output=True, text=True, cwd=d)
    assert r.returncode == 0 and "resnet_small_model_info.csv" in r.stdout, r.stdout + r.stderr
    rows = list(csv.reader(open(os.path.join(d, "resnet_small_model_info.csv"))))
    m = onnx.load(RESNET)
    assert rows[0] == ["NodeName", "OpType", "OutputDtype", "OutputShape"], rows[0]
    assert len(rows) - 1 == sum(len(n.output) for n in m.graph.node), len(rows)
    first = m.graph.node[0]
    # OnnxSlim's spelling: NumPy dtype names, the shape as a Python list
    assert rows[1] == [first.name, first.op_type, "float32", "['batch', 8, 32, 32]"], rows[1]
    subprocess.run([binary, "--inspect", "--dump-to-disk", RESNET], capture_output=True, cwd=d, check=True)
    again = list(csv.reader(open(os.path.join(d, "resnet_small_model_info.csv"))))
    assert len(again) == 2 * len(rows) - 1, len(again)  # appended, one header
    r = run(RESNET, os.path.join(tmp, "x.onnx"), "--dump-to-disk", ok=False)
    assert r.returncode == 2 and "only with --inspect" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def two_output_model():
    # y1 = Relu(x); y2 = Sigmoid(Exp(x)) + c: the second output alone needs Exp, Sigmoid, Add and c
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    ys = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("y1", "y 2")]
    c = helper.make_tensor("c", TensorProto.FLOAT, [3], [1.0, 2.0, 3.0])
    nodes = [helper.make_node("Relu", ["x"], ["y1"], name="relu"),
             helper.make_node("Exp", ["x"], ["e"], name="exp"),
             helper.make_node("Sigmoid", ["e"], ["s"], name="sigmoid"),
             helper.make_node("Add", ["s", "c"], ["y 2"], name="add")]
    path = os.path.join(tmp, "two_outputs.onnx")
    onnx.save(helper.make_model(helper.make_graph(nodes, "g", [x], ys, [c]),
                                opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_unused_output():
    # onnxsim's --unused-output NAME ...: those outputs removed, and what only they needed
    path = two_output_model()
    m, rep = simplify(path, "--unused-output", '"y 2"')
    assert [o.name for o in m.graph.output] == ["y1"], m.graph.output
    assert [n.op_type for n in m.graph.node] == ["Relu"] and not m.graph.initializer, m.graph.node
    assert rep["verification"]["ran"] and rep["verification"]["ok"], rep["verification"]
    m, _ = simplify(path, "--unused-output", "y1")
    assert [o.name for o in m.graph.output] == ["y 2"] and "Relu" not in [n.op_type for n in m.graph.node]
    r = run(path, os.path.join(tmp, "x.onnx"), "--unused-output", "nope", ok=False)
    assert r.returncode == 2 and "'nope' is not an output of the model" in r.stderr and "y1" in r.stderr, r.stderr
    r = run(path, os.path.join(tmp, "x.onnx"), "--unused-output", "y1", '"y 2"', ok=False)
    assert r.returncode == 2 and "at least one must stay" in r.stderr, r.stderr


def test_input_fill():
    # --input-fill random|ones|zeros|arange: the check's (and `run`'s) generated inputs
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    i = helper.make_tensor_value_info("i", TensorProto.INT64, [5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [5])
    table = helper.make_tensor("t", TensorProto.FLOAT, [3], [10.0, 20.0, 30.0])
    nodes = [helper.make_node("Identity", ["x"], ["y"]), helper.make_node("Gather", ["t", "i"], ["z"])]
    path = os.path.join(tmp, "fill.onnx")
    onnx.save(helper.make_model(helper.make_graph(nodes, "g", [x, i], [y, z], [table]),
                                opset_imports=[helper.make_opsetid("", 17)]), path)

    def outputs(fill):
        r = run("run", path, "--input-fill", fill)
        return {line.split(":")[0]: line.split("] ", 1)[1] for line in r.stdout.splitlines()}
    out = outputs("arange")
    assert out["y"].replace(" ", "").strip("{}") == "0,1,2,3,4,5", out
    assert out["z"].replace(" ", "").strip("{}") == "10,20,30,10,20", out  # indices wrap at the axis's size 3
    out = outputs("ones")
    assert out["y"].replace(" ", "").strip("{}") == "1,1,1,1,1,1" and out["z"].replace(" ", "").strip("{}") == "20,20,20,20,20", out
    out = outputs("zeros")
    assert out["y"].replace(" ", "").strip("{}") == "0,0,0,0,0,0" and out["z"].replace(" ", "").strip("{}") == "10,10,10,10,10", out
    m, rep = simplify(path, "--input-fill", "arange", "--verify")
    assert rep["verification"]["ran"] and rep["verification"]["ok"], rep["verification"]
    r = run(path, os.path.join(tmp, "x.onnx"), "--input-fill", "gauss", ok=False)
    assert r.returncode == 2 and "random, ones, zeros or arange" in r.stderr, r.stderr


def test_refused_and_accepted():
    r = run(DIRTY, os.path.join(tmp, "x.onnx"), "--custom-lib", "libmy.so", ok=False)
    assert r.returncode == 2 and "not supported by onnxtrim" in r.stderr and r.stderr.count("\n") == 1, r.stderr
    r = run(DIRTY, os.path.join(tmp, "x.onnx"), "--input-data-path", "x:a.npy", ok=False)
    assert r.returncode == 2 and "--input NAME=FILE.pb" in r.stderr
    for flags, instead in ((["--mutable-initializer"], "never folded"),):
        r = run(DIRTY, os.path.join(tmp, "x.onnx"), *flags, ok=False)
        assert r.returncode == 2 and instead in r.stderr and r.stderr.count("\n") == 1, r.stderr
    simplify(DIRTY, "--include-subgraph", "--dynamic-input-shape")


for name, fn in list(globals().items()):
    if name.startswith("test_") and callable(fn):
        try:
            fn()
            passed += 1
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"FAIL: {name}: {e}")
print(f"cli_flags: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
