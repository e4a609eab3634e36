"""The Python package on the bundled fixtures: simplify, run (against ONNX Runtime), verify,
infer_shapes, inspect, the onnxsim/OnnxSlim drop-ins (same graph as the CLI with the mapped
flags), one error class per kind of bad model, and a model past 2 GB through simplify_file.

Run by CTest with PYTHONPATH=build/python, ONNXTRIM_CLI=build/onnxtrim."""
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxtrim
from onnxtrim.compat import onnxsim, onnxslim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from ort_util import run_ort  # noqa: E402

CLI = os.environ.get("ONNXTRIM_CLI", os.path.join(ROOT, "build", "onnxtrim"))
DIRTY = os.path.join(ROOT, "examples", "dirty.onnx")
MODELS = os.path.join(ROOT, "tests", "models")
FIXTURES = [(DIRTY, {"batch": 2}), (os.path.join(MODELS, "resnet_small.onnx"), {"batch": 2}),
            (os.path.join(MODELS, "bert_tiny.onnx"), {"batch": 2, "seq": 7}),
            (os.path.join(MODELS, "gpt2_tiny.onnx"), {"batch": 1, "seq": 5})]


def random_feeds(path, dims, seed=0):
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    rng = np.random.default_rng(seed)
    feeds = {}
    for i in m.graph.input:
        if i.name in inits:
            continue
        t = i.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else dims[d.dim_param] for d in t.shape.dim]
        dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t.elem_type]
        if dtype.kind == "f":
            feeds[i.name] = rng.uniform(-1, 1, shape).astype(dtype)
        else:
            feeds[i.name] = rng.integers(0, 8, shape).astype(dtype)
    return feeds


def node_count(m):
    return len(m.graph.node)


@pytest.mark.parametrize("path,dims", FIXTURES, ids=lambda x: os.path.basename(x) if isinstance(x, str) else "")
def test_simplify_checks_and_shrinks(path, dims):
    model, report = onnxtrim.simplify(path)
    assert isinstance(model, onnx.ModelProto)
    onnx.checker.check_model(model)
    assert node_count(model) <= node_count(onnx.load(path))
    assert report.after["nodes"] == len(model.graph.node) or report.after["nodes"] >= len(model.graph.node)
    v = report.verification
    assert v["ran"] and v["ok"] and v["samples"] == 1, v
    assert v["outputs"] and all(o["ok"] for o in v["outputs"])
    assert [p["name"] for p in report.passes][0] == "infer_shapes"
    assert '"verification"' in report.to_json()
    # The same model from a ModelProto and from bytes.
    m2, _ = onnxtrim.simplify(onnx.load(path), verify=False)
    m3, _ = onnxtrim.simplify(open(path, "rb").read(), verify=False)
    assert m2.graph == m3.graph
    assert node_count(m2) == node_count(model)


@pytest.mark.parametrize("path,dims", FIXTURES, ids=lambda x: os.path.basename(x) if isinstance(x, str) else "")
def test_run_matches_onnx_runtime(path, dims):
    feeds = random_feeds(path, dims)
    ours = onnxtrim.run(path, feeds)
    theirs = run_ort(path, feeds)
    assert set(ours) == set(theirs)
    for name, want in theirs.items():
        assert ours[name].dtype == want.dtype and ours[name].shape == want.shape
        np.testing.assert_allclose(ours[name], want, rtol=1e-4, atol=1e-5)
    # The simplified model computes the same in ONNX Runtime.
    simplified, _ = onnxtrim.simplify(path, dims=None)
    tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "onnxtrim_py_" + os.path.basename(path))
    onnx.save(simplified, tmp)
    try:
        again = run_ort(tmp, feeds)
    finally:
        os.remove(tmp)
    for name, want in theirs.items():
        np.testing.assert_allclose(again[name], want, rtol=1e-4, atol=1e-5)


def test_run_reads_inputs_in_place_and_checks_them():
    path = DIRTY
    feeds = random_feeds(path, {"batch": 3})
    out = onnxtrim.run(path, feeds)
    assert all(isinstance(a, np.ndarray) for a in out.values())
    # A non-contiguous view is accepted (made contiguous), a wrong dtype is refused.
    name = next(iter(feeds))
    wide = np.repeat(feeds[name], 2, axis=-1)[..., ::2]
    assert not wide.flags["C_CONTIGUOUS"]
    out2 = onnxtrim.run(path, {**feeds, name: wide})
    for k in out:
        np.testing.assert_array_equal(out[k], out2[k])
    with pytest.raises(onnxtrim.Error):
        onnxtrim.run(path, {**feeds, name: feeds[name].astype(np.float64)})
    with pytest.raises(onnxtrim.UsageError, match="no value given"):
        onnxtrim.run(path, {})


def test_verify_passes_on_equal_and_fails_on_perturbed_weights(tmp_path):
    path = os.path.join(MODELS, "resnet_small.onnx")
    simplified, _ = onnxtrim.simplify(path)
    r = onnxtrim.verify(path, simplified, samples=2, dims={"batch": 2})
    assert r.ok and bool(r) and r.samples == 2 and r.dims == {"batch": 2}
    m = onnx.load(path)
    big = max(m.graph.initializer, key=lambda t: int(np.prod(t.dims)))
    w = numpy_helper.to_array(big)
    rng = np.random.default_rng(0)
    big.CopyFrom(numpy_helper.from_array((w * (1 + 0.01 * rng.standard_normal(w.shape))).astype(w.dtype), big.name))
    bad = onnxtrim.verify(path, m)
    assert not bad.ok and not bad
    assert any(not o["ok"] for o in bad.outputs)


def test_infer_shapes_writes_symbolic_dims():
    m = onnxtrim.infer_shapes(os.path.join(MODELS, "bert_tiny.onnx"))
    params = {d.dim_param for vi in m.graph.value_info for d in vi.type.tensor_type.shape.dim if d.dim_param}
    assert "batch" in params and "seq" in params
    fixed = onnxtrim.infer_shapes(os.path.join(MODELS, "bert_tiny.onnx"), dims={"batch": 2, "seq": 7})
    params = {d.dim_param for vi in fixed.graph.value_info for d in vi.type.tensor_type.shape.dim if d.dim_param}
    assert "batch" not in params and "seq" not in params


def test_inspect():
    info = onnxtrim.inspect(DIRTY)
    assert info["nodes"] == len(onnx.load(DIRTY).graph.node)
    assert info["inputs"] and info["outputs"] and "ai.onnx" in info["opsets"]
    assert sum(info["op_histogram"].values()) == info["nodes"]


def test_options_are_the_cli_table():
    names = {o["name"] for o in onnxtrim.option_table()}
    assert {"dim", "skip", "no-verify", "overwrite-input-shape", "model-check-inputs"} <= names
    with pytest.raises(onnxtrim.UsageError, match="unknown option '--no-such-option'"):
        onnxtrim.simplify(DIRTY, no_such_option=True)
    with pytest.raises(onnxtrim.UsageError, match="unknown pass 'nope'"):
        onnxtrim.simplify(DIRTY, skip=["nope"])
    m, rep = onnxtrim.simplify(DIRTY, passes=["infer_shapes", "eliminate_identity"], samples=2, seed=3)
    assert [p["name"] for p in rep.passes] == ["infer_shapes", "eliminate_identity"]
    assert rep.verification["samples"] == 2


def cli_nodes(tmp_path, *flags, src=DIRTY):
    out = str(tmp_path / "cli.onnx")
    subprocess.run([CLI, src, out, "--quiet", *flags], check=True)
    return onnx.load(out)


def test_onnxsim_drop_in_matches_the_cli(tmp_path):
    path = os.path.join(MODELS, "resnet_small.onnx")
    model, ok = onnxsim.simplify(path, check_n=2, skip_fuse_bn=True, overwrite_input_shapes={"image": [2, 3, 32, 32]})
    assert ok is True
    cli = cli_nodes(tmp_path, "--check-n", "2", "--skip-fuse-bn", "--overwrite-input-shape", "image:2,3,32,32",
                    src=path)
    assert model.graph == cli.graph
    assert [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim] == [2, 3, 32, 32]
    plain, ok = onnxsim.simplify(onnx.load(path), perform_optimization=False)
    assert ok and plain.graph == cli_nodes(tmp_path, "--skip-optimization", src=path).graph
    # onnxoptimizer's names for skipped_optimizers, as the CLI's --skip-optimization NAME ...
    model, ok = onnxsim.simplify(path, skipped_optimizers=["fuse_bn_into_conv", "eliminate_nop_transpose"])
    assert ok and model.graph == cli_nodes(tmp_path, "--skip-optimization", "fuse_bn_into_conv",
                                           "eliminate_nop_transpose", src=path).graph
    assert any(n.op_type == "BatchNormalization" for n in model.graph.node)
    with pytest.raises(onnxtrim.UsageError, match="unknown onnxsim optimizer 'fuse_all'"):
        onnxsim.simplify(path, skipped_optimizers=["fuse_all"])
    # test_input_shapes, named or (one input) not: the check's inputs only
    for shapes, arg in (({"image": [3, 3, 32, 32]}, "image:3,3,32,32"), ({None: [3, 3, 32, 32]}, "3,3,32,32")):
        model, ok = onnxsim.simplify(path, test_input_shapes=shapes)
        assert ok and model.graph == cli_nodes(tmp_path, "--test-input-shape", arg, src=path).graph
        assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    model, ok = onnxsim.simplify(path, skip_constant_folding=True)
    assert ok and model.graph == cli_nodes(tmp_path, "--skip-constant-folding", src=path).graph
    model, ok = onnxsim.simplify(path, tensor_size_threshold="1KB")
    assert ok and model.graph == cli_nodes(tmp_path, "--no-large-tensor", "1KB", src=path).graph
    with pytest.raises(TypeError, match="custom_lib"):
        onnxsim.simplify(path, custom_lib="libx.so")
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        onnxsim.simplify(path, bogus=1)


def test_every_documented_compat_parameter_is_mapped_or_refused_by_name(tmp_path):
    import inspect as pyinspect
    path = os.path.join(MODELS, "resnet_small.onnx")
    # onnxsim 0.4's simplify(): each parameter with a value other than its default
    onnxsim_values = {
        "check_n": 2, "perform_optimization": False, "skip_fuse_bn": True,
        "overwrite_input_shapes": {"image": [1, 3, 32, 32]}, "test_input_shapes": {"image": [2, 3, 32, 32]},
        "skipped_optimizers": ["fuse_bn_into_conv"], "skip_constant_folding": True, "skip_shape_inference": True,
        "input_data": {"image": np.zeros((1, 3, 32, 32), np.float32)}, "dynamic_input_shape": True,
        "custom_lib": "libcustom.so", "include_subgraph": True, "unused_output": ["logits"],
        "tensor_size_threshold": "1MB", "mutable_initializer": True,
        # newer onnxsim's user rewrite rules (tests/python/test_user_rules.py)
        "custom_rewriter": lambda m: False,
        "function_rewrite_rules": [(
            helper.make_function("r", "neg_neg", ["x"], ["y"], [helper.make_node("Neg", ["x"], ["n"]),
                                 helper.make_node("Neg", ["n"], ["y"])], [helper.make_opsetid("", 13)]),
            helper.make_function("r", "neg_neg_r", ["x"], ["y"], [helper.make_node("Identity", ["x"], ["y"])],
                                 [helper.make_opsetid("", 13)]))],
        "input_shapes": {"image": [1, 3, 32, 32]},
    }
    params = [n for n in pyinspect.signature(onnxsim.simplify).parameters if n not in ("model", "kwargs")]
    assert params == [n for n in onnxsim_values if n != "input_shapes"]  # the same order (positional use)
    # OnnxSlim's slim(): its documented keywords
    onnxslim_values = {
        "model_check": True, "input_shapes": ["input_ids:2,7", "attention_mask:2,7"],
        "inputs": ["input_ids", "attention_mask"], "outputs": ["hidden"],
        "no_shape_infer": True, "skip_optimizations": ["graph_fusion"], "dtype": "fp16",
        "skip_fusion_patterns": ["FusionGemm"], "size_threshold": 1024, "inspect": True, "dump_to_disk": True,
        "save_as_external_data": True, "model_check_inputs": ["input_ids:2,7", "attention_mask:2,7"], "verbose": True,
        "no_constant_folding": True,
    }
    bert = os.path.join(MODELS, "bert_tiny.onnx")
    for fn, values, src in ((onnxsim.simplify, onnxsim_values, path), (onnxslim.slim, onnxslim_values, bert)):
        for name, value in values.items():
            try:
                fn(src, **{name: value})
            except TypeError as e:
                assert f"'{name}'" in str(e), (name, e)
            except onnxtrim.Error as e:
                if name == "unused_output" and "one must stay" in str(e):
                    continue  # logits is resnet_small's only output (test_onnxsim_unused_output)
                raise AssertionError(f"{fn.__module__}: {name}={value!r}: {e}") from None
    assert onnxslim.slim(bert, str(tmp_path / "ext.onnx"), save_as_external_data=True) is None
    # OnnxSlim's input_shapes typed as a dict works too
    m = onnxslim.slim(bert, input_shapes={"input_ids": [2, 7], "attention_mask": [2, 7]})
    assert [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim][:2] == [2, 7]


def test_onnxsim_unused_output(tmp_path):
    # onnxsim's unused_output: the outputs named go, with what only they needed (the CLI's
    # --unused-output); the rest computes what the original does
    path = os.path.join(MODELS, "cut_if_function.onnx")
    full, ok = onnxsim.simplify(path)
    model, ok = onnxsim.simplify(path, unused_output=["gate"], check_n=2)
    assert ok and [o.name for o in model.graph.output] == ["logits"]
    assert model.graph == cli_nodes(tmp_path, "--unused-output", "gate", src=path).graph
    assert len(model.graph.node) < len(full.graph.node)
    rng = np.random.default_rng(1)
    feeds = {i.name: np.asarray(rng.uniform(-1, 1, [d.dim_value or 2 for d in i.type.tensor_type.shape.dim]),
                                np.float32) for i in onnx.load(path).graph.input}
    got = run_ort(_write(tmp_path, model), {i.name: feeds[i.name] for i in model.graph.input})
    np.testing.assert_allclose(got["logits"], run_ort(path, feeds)["logits"], rtol=1e-4, atol=1e-5)
    model, ok = onnxsim.simplify(path, unused_output="logits")  # one name as a string
    assert ok and [o.name for o in model.graph.output] == ["gate"]
    with pytest.raises(onnxtrim.UsageError, match="'ghost' is not an output of the model"):
        onnxsim.simplify(path, unused_output=["ghost"])
    with pytest.raises(onnxtrim.UsageError, match="one must stay"):
        onnxsim.simplify(path, unused_output=["logits", "gate"])


def test_onnxslim_skip_optimizations_and_dump_to_disk(tmp_path, monkeypatch):
    path = os.path.join(MODELS, "resnet_small.onnx")
    for names, flags in ((["graph_fusion", "weight_tying"], ["graph_fusion", "weight_tying"]),
                         (["constant_folding"], ["constant_folding"])):
        model = onnxslim.slim(path, skip_optimizations=names)
        assert model.graph == cli_nodes(tmp_path, "--skip-optimizations", *flags, src=path).graph
    assert any(n.op_type == "BatchNormalization" for n in onnxslim.slim(path, skip_optimizations=["graph_fusion"]).graph.node)
    with pytest.raises(TypeError, match="unknown optimization 'fusion'"):
        onnxslim.slim(path, skip_optimizations=["fusion"])
    # dump_to_disk with inspect: STEM_model_info.csv in the current folder ("OnnxModel" for a proto)
    monkeypatch.chdir(tmp_path)
    onnxslim.slim(path, inspect=True, dump_to_disk=True)
    onnxslim.slim(onnx.load(path), inspect=True, dump_to_disk=True)
    import csv
    for name in ("resnet_small_model_info.csv", "OnnxModel_model_info.csv"):
        rows = list(csv.reader(open(tmp_path / name)))
        assert rows[0] == ["NodeName", "OpType", "OutputDtype", "OutputShape"]
        assert len(rows) - 1 == sum(len(n.output) for n in onnx.load(path).graph.node), name


def test_onnxslim_drop_in_matches_the_cli(tmp_path):
    path = os.path.join(MODELS, "bert_tiny.onnx")
    model = onnxslim.slim(path, model_check=True, skip_fusion_patterns=["FusionGemm"])
    cli = cli_nodes(tmp_path, "--model-check", "--skip-fusion-patterns", "FusionGemm", src=path)
    assert model.graph == cli.graph
    out = str(tmp_path / "slim.onnx")
    assert onnxslim.slim(path, out, no_shape_infer=True) is None
    assert not onnx.load(out).graph.value_info
    assert onnx.load(out).graph == cli_nodes(tmp_path, "--no-shape-infer", src=path).graph
    half = onnxslim.slim(path, dtype="fp16").graph
    # OnnxSlim's fp16 converts the inputs and outputs too: the CLI's --no-keep-io-types
    cli_half = cli_nodes(tmp_path, "--dtype", "fp16", "--no-keep-io-types", src=path).graph
    # The same conversion, names of the Casts it made included (they follow graph order, not
    # where earlier runs in this process left nodes in memory).
    assert half == cli_half
    assert any(t.data_type == onnx.TensorProto.FLOAT16 for t in half.initializer)
    with pytest.raises(TypeError, match="unexpected keyword argument 'speed'"):
        onnxslim.slim(path, speed=3)


def test_surgery_keywords(tmp_path):
    path = os.path.join(MODELS, "cut_if_function.onnx")
    rng = np.random.default_rng(0)
    image = rng.uniform(-1, 1, (2, 3, 8, 8)).astype(np.float32)
    bias = rng.uniform(-1, 1, (2, 4, 8, 8)).astype(np.float32)
    thr = np.array(0.0, np.float32)
    # the original's values at the cut points (marked, not simplified)
    ref_model, _ = onnxtrim.simplify(path, add_outputs=["f2"], no_passes=True, verify=False)
    ref = onnxtrim.run(ref_model, {"image": image, "bias": bias, "threshold": thr})
    cut, rep = onnxtrim.simplify(path, inputs=["f2", "bias", "threshold"], outputs=["logits"],
                                 rename={"f2": "features"})
    assert [i.name for i in cut.graph.input] == ["features", "bias", "threshold"]
    assert rep.verification["ran"] and rep.verification["ok"] and "compared" in rep.verification
    got = run_ort(_write(tmp_path, cut), {"features": ref["f2"], "bias": bias, "threshold": thr})["logits"]
    np.testing.assert_allclose(got, ref["logits"], rtol=1e-4, atol=1e-5)
    with pytest.raises(onnxtrim.UsageError, match="still depends on graph input 'threshold'"):
        onnxtrim.simplify(path, inputs=["f2", "bias"], outputs=["logits"])
    with pytest.raises(onnxtrim.UsageError, match="no value named 'ghost'"):
        onnxtrim.simplify(path, outputs=["ghost"])
    every, _ = onnxtrim.simplify(path, add_outputs="all")
    assert len(every.graph.output) > 10
    b4, _ = onnxtrim.simplify(path, batch=4)
    assert b4.graph.input[0].type.tensor_type.shape.dim[0].dim_value == 4
    out = str(tmp_path / "cut.onnx")
    onnxtrim.simplify_file(path, out, outputs=["f1"])
    assert [o.name for o in onnx.load(out).graph.output] == ["f1"]
    # OnnxSlim's names for the same cut
    slim = onnxslim.slim(path, inputs=["f2", "bias", "threshold"], outputs=["logits"])
    assert [i.name for i in slim.graph.input] == ["f2", "bias", "threshold"]
    assert [o.name for o in slim.graph.output] == ["logits"]


def _conv_model(path, name, hw=224, mid="mid", out="y"):
    """name[1,3,hw,hw] -> Conv (4 filters 3x3, pads 1) -> mid (declared in value_info) -> Relu -> out."""
    w = numpy_helper.from_array(np.random.default_rng(0).uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32), "w")
    g = helper.make_graph([helper.make_node("Conv", [name, "w"], [mid], pads=[1, 1, 1, 1]),
                           helper.make_node("Relu", [mid], [out])], "g",
                          [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 3, hw, hw])],
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 4, hw, hw])], [w],
                          value_info=[helper.make_tensor_value_info(mid, TensorProto.FLOAT, [1, 4, hw, hw])])
    save(g, str(path))
    return str(path)


def _dims(v):
    return [d.dim_value for d in v.type.tensor_type.shape.dim]


def test_tensorflow_name_with_npy_through_onnxslim(tmp_path):
    # OnnxSlim cuts NAME:FILE.npy at the last ':' ("input_1:0" is a TensorFlow tensor name)
    path = _conv_model(tmp_path / "tf.onnx", "input_1:0")
    data = str(tmp_path / "x.npy")
    np.save(data, np.full((1, 3, 224, 224), 0.5, np.float32))
    assert onnxslim.slim(path, model_check=True, model_check_inputs=[f"input_1:0:{data}"]) is not None
    np.save(data, np.full((1, 5, 224, 224), 0.5, np.float32))  # the file is what the check runs on
    with pytest.raises(onnxtrim.Error, match="channel"):
        onnxslim.slim(path, model_check=True, model_check_inputs=[f"input_1:0:{data}"])
    m = onnxslim.slim(path, input_shapes=["input_1:0:1,3,224,224"])
    assert _dims(m.graph.input[0]) == [1, 3, 224, 224]


def test_names_with_spaces_and_commas_pass_whole(tmp_path):
    path = _conv_model(tmp_path / "names.onnx", "in a,b", hw=16, mid="mid x", out="out,y")
    m, ok = onnxsim.simplify(path, check_n=1, overwrite_input_shapes={"in a,b": [2, 3, 16, 16]})
    assert ok and _dims(m.graph.input[0]) == [2, 3, 16, 16]
    m, ok = onnxsim.simplify(path, test_input_shapes={"in a,b": [2, 3, 16, 16]})
    assert ok
    m, rep = onnxtrim.simplify(path, outputs=["mid x"], input_shapes={"in a,b": [2, 3, 16, 16]})
    assert [o.name for o in m.graph.output] == ["mid x"] and rep.verification["ok"]
    m, _ = onnxtrim.simplify(path, add_outputs=["mid x"], rename={"out,y": "o \"q\""})
    assert [o.name for o in m.graph.output] == ['o "q"', "mid x"]
    for kw in ({"outputs": ["mid x"]}, {"outputs": "mid x"}):
        m = onnxslim.slim(path, model_check=True, **kw)
        assert [o.name for o in m.graph.output] == ["mid x"], kw
    for shapes in (["in a,b:2,3,16,16"], {"in a,b": [2, 3, 16, 16]}):
        m = onnxslim.slim(path, model_check=True, input_shapes=shapes, model_check_inputs=["in a,b:2,3,16,16"])
        assert _dims(m.graph.input[0]) == [2, 3, 16, 16], shapes
    with pytest.raises(onnxtrim.UsageError, match="changing the type"):
        onnxslim.slim(path, outputs=["mid x:fp16"])


def test_overwrite_input_shapes_changes_a_fixed_dim(tmp_path):
    # As onnxsim and OnnxSlim: 224 -> 112 where the model fixes 224; the check runs both at 112.
    path = _conv_model(tmp_path / "conv.onnx", "input")
    m, ok = onnxsim.simplify(path, check_n=1, overwrite_input_shapes={"input": [1, 3, 112, 112]})
    assert ok
    assert _dims(m.graph.input[0]) == [1, 3, 112, 112] and _dims(m.graph.output[0]) == [1, 4, 112, 112]
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 112, 112)).astype(np.float32)
    want = onnxtrim.run(path, {"input": x})["y"]  # the original's computation at 112
    np.testing.assert_allclose(run_ort(_write(tmp_path, m), {"input": x})["y"], want, rtol=1e-4, atol=1e-5)
    out = str(tmp_path / "slim.onnx")
    assert onnxslim.slim(path, out, model_check=True, input_shapes=["input:1,3,112,112"]) is None
    written = onnx.load(out)
    assert _dims(written.graph.input[0]) == [1, 3, 112, 112] and _dims(written.graph.output[0]) == [1, 4, 112, 112]
    assert all(_dims(v)[2:] == [112, 112] for v in written.graph.value_info)
    onnx.checker.check_model(written, full_check=True)
    _, rep = onnxtrim.simplify(path, verify=True, input_shapes={"input": [1, 3, 112, 112]})
    assert rep.verification["ran"] and rep.verification["ok"]
    inferred = onnxtrim.infer_shapes(path, input_shapes={"input": [1, 3, 112, 112]})
    assert _dims(inferred.graph.input[0]) == [1, 3, 112, 112]
    assert {v.name: _dims(v) for v in inferred.graph.value_info}["mid"] == [1, 4, 112, 112]
    with pytest.raises(onnxtrim.UsageError, match="rank 4.*rank 3"):
        onnxsim.simplify(path, overwrite_input_shapes={"input": [1, 3, 112]})


def _write(tmp_path, model):
    p = str(tmp_path / "m.onnx")
    onnx.save(model, p)
    return p


def save(graph, path, opset=17):
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)


def test_each_error_class(tmp_path):
    with pytest.raises(onnxtrim.FileError) as e:
        onnxtrim.simplify(str(tmp_path / "missing.onnx"))
    assert e.value.exit_code == 3 and "missing.onnx" in str(e.value)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\x0a\xff\xff\xff\xff garbage")
    with pytest.raises(onnxtrim.ParseError):
        onnxtrim.simplify(str(junk))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    undefined = tmp_path / "undefined.onnx"
    save(helper.make_graph([helper.make_node("Relu", ["ghost"], ["y"], name="relu0")], "g", [x], [y]), str(undefined))
    with pytest.raises(onnxtrim.InvalidModel, match="ghost"):
        onnxtrim.simplify(str(undefined))
    custom = tmp_path / "custom.onnx"
    g = helper.make_graph([helper.make_node("Mystery", ["x"], ["y"], domain="com.example")], "g", [x], [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]),
              str(custom))
    with pytest.raises(onnxtrim.Unsupported):
        onnxtrim.run(str(custom), {"x": np.zeros(2, np.float32)})
    with pytest.raises(onnxtrim.Unsupported):
        onnxtrim.simplify(str(custom), verify=True)
    # The default check says why it skipped, and the run succeeds.
    m, rep = onnxtrim.simplify(str(custom))
    assert not rep.verification["ran"] and "Mystery" in rep.verification["skipped"]
    with pytest.raises(onnxtrim.UsageError):
        onnxtrim.simplify(DIRTY, size_threshold="lots")
    assert issubclass(onnxtrim.VerificationFailed, onnxtrim.Error)


def test_past_2gb_through_simplify_file(tmp_path):
    # Two 1.1 GB weights as external data (sparse files: nothing is written to disk), read by
    # Gather, so that the check stays cheap; the result keeps them external.
    n = 1100 * 1024 * 1024 // 4
    inits = []
    for k in range(2):
        name = f"w{k}"
        path = tmp_path / f"{name}.bin"
        with open(path, "wb") as f:
            f.write(np.full(4, k + 1, np.float32).tobytes())  # distinct weights (not merged)
            f.truncate(n * 4)
        t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=[n])
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", f"{name}.bin"), ("offset", "0"), ("length", str(n * 4))):
            e = t.external_data.add()
            e.key, e.value = key, value
        inits.append(t)
    idx = helper.make_tensor_value_info("idx", TensorProto.INT64, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    nodes = [helper.make_node("Gather", ["w0", "idx"], ["a"]), helper.make_node("Gather", ["w1", "idx"], ["b"]),
             helper.make_node("Identity", ["a"], ["a2"]), helper.make_node("Add", ["a2", "b"], ["y"])]
    src = tmp_path / "big.onnx"
    onnx.save(helper.make_model(helper.make_graph(nodes, "big", [idx], [y], initializer=inits),
                                opset_imports=[helper.make_opsetid("", 17)]), str(src))
    dst = tmp_path / "out" / "big.onnx"
    dst.parent.mkdir()
    rep = onnxtrim.simplify_file(src, dst)
    assert rep.after["nodes"] == 3 and rep.verification["ok"]
    assert os.path.getsize(dst) < 1 << 20
    out = onnx.load(str(dst), load_external_data=False)
    assert all(t.data_location == TensorProto.EXTERNAL for t in out.graph.initializer)
    with pytest.raises(onnxtrim.Error, match="2 GB|protobuf|simplify_file"):
        onnxtrim.simplify(str(src), verify=False)


def test_python_m_onnxtrim_is_the_cli(tmp_path):
    out = tmp_path / "o.onnx"
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-m", "onnxtrim", DIRTY, str(out), "--json", "-", "--quiet"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert '"verification"' in r.stdout and out.exists()
    r = subprocess.run([sys.executable, "-m", "onnxtrim", DIRTY], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "expected IN.onnx OUT.onnx" in r.stderr


def test_ctrl_c_interrupts_a_long_run(tmp_path):
    # A Loop of 10^9 trips: Ctrl-C (SIGINT) must stop onnxtrim.run within a second or two.
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "one"], ["acc_out"]), helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [1])],
        initializer=[numpy_helper.from_array(np.ones(1, np.float32), "one")])
    g = helper.make_graph(
        [helper.make_node("Loop", ["trips", "cond", "x"], ["y"], body=body)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
        initializer=[numpy_helper.from_array(np.array(10**9, np.int64), "trips"),
                     numpy_helper.from_array(np.array(True), "cond")])
    path = tmp_path / "loop.onnx"
    save(g, str(path))
    script = f"""
import time, numpy as np, onnxtrim
t = time.time()
try:
    onnxtrim.run({str(path)!r}, {{"x": np.zeros(1, np.float32)}})
    print("finished")
except KeyboardInterrupt:
    print("interrupted after", round(time.time() - t, 1))
"""
    import signal
    import time
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    time.sleep(2.0)
    t = time.time()
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert "interrupted" in out, out
    assert time.time() - t < 5
    # The CLI and python3 -m onnxtrim: exit code 130, one line, nothing written
    for cmd in ([CLI], [sys.executable, "-m", "onnxtrim"]):
        p = subprocess.Popen([*cmd, str(path), str(tmp_path / "out.onnx")], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=dict(os.environ))
        time.sleep(1.5)
        t = time.time()
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        assert p.returncode == 130 and time.time() - t < 5, (cmd, p.returncode, err)
        assert err.startswith("onnxtrim: error: ") and err.endswith("interrupted\n") and err.count("\n") == 1, err
        assert sorted(os.listdir(tmp_path)) == ["loop.onnx"]


def test_opset_keyword():
    path = os.path.join(MODELS, "bert_tiny.onnx")
    down, rep = onnxtrim.simplify(path, opset=13)
    assert rep.opset["from"] == 17 and rep.opset["to"] == 13 and rep.opset["nodes_expanded"] == 4
    assert {o.domain: o.version for o in down.opset_import}[""] == 13
    assert not any(n.op_type == "LayerNormalization" for n in down.graph.node)
    assert rep.verification["ok"]
    onnx.checker.check_model(down)
    with pytest.raises(onnxtrim.UsageError):
        onnxtrim.simplify(path, opset=3)


def test_dtype_keywords():
    path = os.path.join(MODELS, "resnet_small.onnx")
    half, rep = onnxtrim.simplify(path, dtype="fp16")
    assert rep.conversion["dtype"] == "fp16" and rep.conversion["converted_nodes"] > 0
    assert rep.verification["ok"] and rep.verification["l2_tol"] == 1e-2
    assert all(o["rel_l2"] <= 1e-2 for o in rep.verification["outputs"])
    assert half.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    open_io, rep2 = onnxtrim.simplify(path, dtype="fp16", keep_io_types=False)
    assert open_io.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT16
    assert open_io.graph.output[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT16
    with pytest.raises(onnxtrim.UsageError):
        onnxtrim.simplify(path, dtype="int8")


def _cli_error(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    line = r.stderr.strip()
    for prefix in ("onnxtrim: error: ", "onnxtrim: "):
        if line.startswith(prefix):
            line = line[len(prefix):]
            break
    for suffix in ("; nothing was written", " (see onnxtrim --help)"):
        if line.endswith(suffix):
            line = line[:-len(suffix)]
    return r.returncode, line


def test_error_classes_carry_the_clis_exit_code_and_message(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    undefined, custom, junk = (str(tmp_path / n) for n in ("undefined.onnx", "custom.onnx", "junk.onnx"))
    save(helper.make_graph([helper.make_node("Relu", ["ghost"], ["y"], name="relu0")], "g", [x], [y]), undefined)
    g = helper.make_graph([helper.make_node("Mystery", ["x"], ["y"], domain="com.example")], "g", [x], [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]),
              custom)
    with open(junk, "wb") as f:
        f.write(b"\x0a\xff\xff\xff\xff garbage")
    resnet = os.path.join(MODELS, "resnet_small.onnx")
    out = str(tmp_path / "out.onnx")
    cases = [  # (class, Python keywords, CLI flags, input)
        (onnxtrim.FileError, {}, [], str(tmp_path / "missing.onnx")),
        (onnxtrim.ParseError, {}, [], junk),
        (onnxtrim.InvalidModel, {}, [], undefined),
        (onnxtrim.Unsupported, {"verify": True}, ["--verify"], custom),
        (onnxtrim.UsageError, {"size_threshold": "lots"}, ["--size-threshold", "lots"], DIRTY),
        # exact comparison: the fused model differs from the original by float rounding
        (onnxtrim.VerificationFailed, {"rtol": 0, "atol": 0}, ["--rtol", "0", "--atol", "0"], resnet),
    ]
    for cls, kwargs, flags, src in cases:
        with pytest.raises(cls) as e:
            onnxtrim.simplify(src, **kwargs)
        code, message = _cli_error(src, out, "--quiet", *flags)
        assert e.value.exit_code == code == {onnxtrim.FileError: 3, onnxtrim.ParseError: 4, onnxtrim.InvalidModel: 5,
                                             onnxtrim.Unsupported: 6, onnxtrim.UsageError: 2,
                                             onnxtrim.VerificationFailed: 1}[cls], cls
        assert str(e.value) == message, (cls, str(e.value), message)
        assert not os.path.exists(out)
    assert e.value.report is not None and not e.value.report.verification["ok"]
    # run and verify name the file too
    with pytest.raises(onnxtrim.Unsupported, match=f"^{custom}: node"):
        onnxtrim.run(custom, {"x": np.zeros(2, np.float32)})


def test_run_takes_and_gives_every_numpy_dtype():
    kinds = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
             np.uint32, np.uint64, np.bool_, np.complex64, np.complex128]
    for dt in kinds:
        et = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)]
        g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", et, [2, 3])],
                              [helper.make_tensor_value_info("y", et, [2, 3])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        x = (np.arange(6).reshape(2, 3) % 3).astype(dt)
        y = onnxtrim.run(m, {"x": x})["y"]
        assert y.dtype == x.dtype and y.shape == x.shape and np.array_equal(y, x), dt
    # float16 arithmetic, and a bool result of a comparison
    g = helper.make_graph([helper.make_node("Add", ["a", "a"], ["s"]), helper.make_node("Greater", ["a", "z"], ["gt"])],
                          "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT16, [3]),
                                helper.make_tensor_value_info("z", TensorProto.FLOAT16, [3])],
                          [helper.make_tensor_value_info("s", TensorProto.FLOAT16, [3]),
                           helper.make_tensor_value_info("gt", TensorProto.BOOL, [3])])
    a = np.array([0.5, -1.25, 1000], np.float16)
    r = onnxtrim.run(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), {"a": a, "z": np.zeros(3, np.float16)})
    assert r["s"].dtype == np.float16 and r["s"].tolist() == [1.0, -2.5, 2000.0]
    assert r["gt"].dtype == np.bool_ and r["gt"].tolist() == [True, False, True]
    # strings: str, bytes and object arrays in; str out, bytes where they are not UTF-8
    g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.STRING, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.STRING, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    for arr in (np.array(["a", "bé"]), np.array(["a", "bé"], dtype=object), np.array(["a".encode(), "bé".encode()])):
        y = onnxtrim.run(m, {"x": arr})["y"]
        assert y.dtype == object and y.tolist() == ["a", "bé"]
    y = onnxtrim.run(m, {"x": np.array([b"\xff\xfe", b"ok"], dtype=object)})["y"]
    assert y.tolist() == [b"\xff\xfe", "ok"]
    # a big-endian array is read in native order
    g = helper.make_graph([helper.make_node("Neg", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    y = onnxtrim.run(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), {"x": np.arange(3, dtype=">f4")})
    assert y["y"].tolist() == [0.0, -1.0, -2.0]


def test_the_gil_is_released_while_cpp_works():
    import threading
    import time
    n, k = 1024, 20
    nodes = [helper.make_node("MatMul", ["x" if i == 0 else f"h{i - 1}", "w"], [f"h{i}"]) for i in range(k)]
    nodes.append(helper.make_node("Identity", [f"h{k - 1}"], ["y"]))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
                          initializer=[numpy_helper.from_array(np.eye(n, dtype=np.float32), "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.005)
    t = threading.Thread(target=tick)
    t.start()
    start = time.monotonic()
    onnxtrim.run(m, {"x": np.ones((n, n), np.float32)})
    end = time.monotonic()
    stop.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    # A held GIL would let the other thread tick at most at the 50 ms polls.
    assert end - start > 0.1 and len(during) >= (end - start) / 0.05, (end - start, len(during))


def test_signatures_are_the_documented_ones():
    import inspect as pyinspect
    kw = pyinspect.Parameter.KEYWORD_ONLY

    def kwonly(fn):
        return {n: p.default for n, p in pyinspect.signature(fn).parameters.items() if p.kind == kw}
    assert {"input_shapes": None, "dims": None, "passes": None, "skip": None, "constant_folding": True,
            "size_threshold": None, "target": None, "verify": None, "max_rounds": None}.items() <= \
        kwonly(onnxtrim.simplify).items()
    assert kwonly(onnxtrim.run) == {"fast": False}
    assert kwonly(onnxtrim.verify) == {"samples": 3, "seed": 0, "rtol": None, "atol": None, "dims": None,
                                       "input_shapes": None}
    assert kwonly(onnxtrim.infer_shapes) == {"dims": None, "input_shapes": None}
    for name in ("simplify", "simplify_file", "run", "verify", "infer_shapes", "inspect", "Report", "VerifyResult",
                 "Error"):
        assert getattr(onnxtrim, name).__doc__, name
    stub = open(os.path.join(os.path.dirname(onnxtrim.__file__), "__init__.pyi")).read()
    for name in ("def simplify(", "def simplify_file(", "def run(", "def verify(", "def infer_shapes(",
                 "def inspect(", "class Report", "class VerifyResult", "class VerificationFailed"):
        assert name in stub, name


def test_infer_shapes_writes_dim_expressions():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Concat", ["x", "x"], ["c"], axis=1), helper.make_node("Relu", ["c"], ["y"])],
                          "g", [x], [y])
    m = onnxtrim.infer_shapes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    dims = {vi.name: [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]
            for vi in list(m.graph.value_info) + list(m.graph.output)}
    assert dims == {"c": ["batch", "2*seq"], "y": ["batch", "2*seq"]}


def test_onnxslim_inspect_and_lists_as_onnxslim(tmp_path, capfd, monkeypatch):
    # OnnxSlim's slim() reads inspect and does nothing with it: one model is slimmed all the same
    # (its suite's test_inspect summarizes what slim(path, inspect=True) returns); a list of
    # models, inspect or not, is printed and None returned (tests/peers: test_slim_inspect_mode,
    # test_slim_list_of_models).
    path = os.path.join(MODELS, "bert_tiny.onnx")
    plain = onnxslim.slim(path)
    inspected = onnxslim.slim(path, inspect=True)
    assert isinstance(inspected, onnx.ModelProto) and inspected.graph == plain.graph
    assert len(inspected.graph.node) < len(onnx.load(path).graph.node)
    capfd.readouterr()
    assert onnxslim.slim([path, DIRTY], inspect=True) is None
    assert onnxslim.slim([path, onnx.load(DIRTY)]) is None
    printed = capfd.readouterr().out
    # the CLI's --inspect of each: the original models, node counts included
    assert printed.count("model: ") == 4 and printed.count(f"model: {path}") == 2
    assert f"nodes: {len(onnx.load(path).graph.node)} " in printed
    assert f"nodes: {len(onnx.load(DIRTY).graph.node)} " in printed
    monkeypatch.chdir(tmp_path)
    assert onnxslim.slim([path], dump_to_disk=True) is None
    rows = (tmp_path / "bert_tiny_model_info.csv").read_text().splitlines()
    assert len(rows) - 1 == sum(len(n.output) for n in onnx.load(path).graph.node)
    with pytest.raises(onnxtrim.Error, match="failed"):
        onnxslim.slim([str(tmp_path / "missing.onnx")])


def test_onnxslim_dtype_converts_inputs_and_outputs(tmp_path):
    # OnnxSlim's dtype="fp16" is onnxconverter_common's conversion with keep_io_types=False: the
    # graph's inputs and outputs become float16 too; "fp32" turns such a model back (tests/peers:
    # test_slim_with_dtype_conversion).
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    w = numpy_helper.from_array(np.array([[0.5, -1.0, 2.0]], dtype=np.float32), "w")
    g = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])],
                          "g", [x], [y], [w])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    half = onnxslim.slim(model, dtype="fp16")
    assert half.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT16
    assert half.graph.output[0].type.tensor_type.elem_type == TensorProto.FLOAT16
    assert not any(n.op_type == "Cast" for n in half.graph.node)
    path = str(tmp_path / "half.onnx")
    onnx.save(half, path)
    xv = np.array([[1, 2, 3], [-4, 5, -6]], dtype=np.float16)
    got = run_ort(path, {"x": xv})["y"]
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.maximum(xv * np.array([0.5, -1, 2], dtype=np.float16), 0))
    back = onnxslim.slim(half, dtype="fp32")
    assert back.graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT
    assert back.graph.output[0].type.tensor_type.elem_type == TensorProto.FLOAT
    # written to a file the same way
    out = str(tmp_path / "out.onnx")
    assert onnxslim.slim(model, out, dtype="fp16") is None
    assert onnx.load(out).graph.input[0].type.tensor_type.elem_type == TensorProto.FLOAT16
