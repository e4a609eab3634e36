#!/usr/bin/env node
// The JS API of the WebAssembly build (build-web/site/onnxtrim.js, scripts/web.sh) against the
// native CLI, in Node, with no npm packages:
//   node tests/wasm/api_test.js ONNXTRIM_CLI SITE_DIR
// - every fixture of tests/models (the e2e golden's list) simplified through the API with the
//   default options (the check on), --no-verify, and per fixture --dim, --opset and --dtype fp16
//   where they apply: the model's bytes are the CLI's for the same options, and the API's report
//   says what the CLI's --json report says (nodes before and after, the check's outcome);
// - errors: an invalid model, an unknown option and a bad value reject with the CLI's message
//   and exit code, and return nothing;
// - external data: a model whose weights are in a separate file goes in through extra.files and
//   comes out, as the CLI writes it, with --external-data always;
// - inspect and verify answer as the CLI's inspect and verify;
// - the portable SIMD GEMM (no OpenBLAS in wasm): a folded 96x80x300 MatMul is bit for bit the
//   naive loop's float32 sums, and a folded 512x512x512 product gives the GFLOP/s figure.
"use strict";
const assert = require("assert");
const cp = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const [cli, site] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!cli || !site) {
  console.error("usage: node tests/wasm/api_test.js ONNXTRIM_CLI SITE_DIR");
  process.exit(2);
}
const ROOT = path.resolve(__dirname, "..", "..");
const MODELS = path.join(ROOT, "tests", "models");
const PYTHON = "/usr/bin/python3";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "onnxtrim-wasm-"));
const onnxtrim = require(path.join(site, "onnxtrim.js"));

let failures = 0, checks = 0;
async function check(name, f) {
  try {
    await f();
    ++checks;
  } catch (e) {
    ++failures;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : e}`);
  }
}

// The CLI's long options for the API's options object.
function cliArgs(options) {
  const args = [];
  for (const [k, v] of Object.entries(options))
    for (const x of Array.isArray(v) ? v : [v]) {
      if (x === true) args.push("--" + k);
      else args.push("--" + k, String(x));
    }
  return args;
}

// Runs the CLI in `dir` on `name` (so that its messages name the file as the API's do); the
// output goes to a folder of its own. Returns {code, stderr, out: {file: bytes}, report}.
function runCli(dir, name, options) {
  const outDir = fs.mkdtempSync(path.join(tmp, "cli-"));
  const json = path.join(tmp, "report-" + path.basename(outDir) + ".json");
  const r = cp.spawnSync(cli, [name, path.join(outDir, name), "--quiet", "--json", json, ...cliArgs(options)],
                         {cwd: dir, encoding: "utf8"});
  const out = {};
  const walk = (d, pre) => {
    for (const f of fs.readdirSync(d)) {
      const p = path.join(d, f);
      if (fs.statSync(p).isDirectory()) walk(p, pre + f + "/");
      else out[pre + f] = fs.readFileSync(p);
    }
  };
  walk(outDir, "");
  const report = fs.existsSync(json) ? JSON.parse(fs.readFileSync(json, "utf8")) : null;
  return {code: r.status, stderr: r.stderr, out, report};
}

function sameBytes(a, b, what) {
  assert.ok(a && b, what + ": missing output");
  assert.ok(Buffer.from(a).equals(Buffer.from(b)), `${what}: ${a.length} bytes from the API, ${b.length} from the CLI, not the same`);
}

async function compareWithCli(model, options, times) {
  const bytes = fs.readFileSync(path.join(MODELS, model));
  const t0 = process.hrtime.bigint();
  const api = await onnxtrim.simplify(bytes, options, {name: model});
  const t1 = process.hrtime.bigint();
  const c = runCli(MODELS, model, options);
  const t2 = process.hrtime.bigint();
  if (times) times.push([model, JSON.stringify(options), Number(t1 - t0) / 1e9, Number(t2 - t1) / 1e9]);
  assert.strictEqual(c.code, 0, `CLI failed: ${c.stderr}`);
  sameBytes(api.model, c.out[model], `${model} ${JSON.stringify(options)}`);
  assert.deepStrictEqual(Object.keys(api.files).sort(), Object.keys(c.out).filter((f) => f !== model).sort());
  assert.strictEqual(api.report.before.nodes, c.report.before.nodes);
  assert.strictEqual(api.report.after.nodes, c.report.after.nodes);
  assert.deepStrictEqual(api.report.after.op_histogram, c.report.after.op_histogram);
  assert.strictEqual(api.report.verification.ran, c.report.verification.ran);
  assert.strictEqual(api.report.verification.ok, c.report.verification.ok);
  return api;
}

// A symbolic dim of the model's first input ("batch" of "float[batch,3]"), or null.
function symbolicDim(info) {
  for (const v of info.inputs) {
    const m = /\[(.*)\]/.exec(v.type);
    if (!m) continue;
    for (const d of m[1].split(",").map((s) => s.trim()))
      if (d && !/^-?\d+$/.test(d) && d !== "?" && /^[A-Za-z_][\w.]*$/.test(d)) return d;
  }
  return null;
}

function python(code, args) {
  const r = cp.spawnSync(PYTHON, ["-c", code, ...args], {encoding: "utf8"});
  if (r.status !== 0) throw new Error("python: " + r.stderr);
  return r.stdout;
}

async function main() {
  await onnxtrim.ready;
  assert.match(onnxtrim.version, /^\d+\.\d+\.\d+$/);
  const fixtures = fs.readdirSync(MODELS).filter((f) => f.endsWith(".onnx")).sort();
  const times = [];

  for (const model of fixtures) {
    await check(`${model} default`, () => compareWithCli(model, {}, times));
    await check(`${model} no-verify`, () => compareWithCli(model, {"no-verify": true}));
  }
  // Options per fixture where they apply.
  for (const model of fixtures) {
    const info = await onnxtrim.inspect(fs.readFileSync(path.join(MODELS, model)));
    const d = symbolicDim(info);
    if (d) await check(`${model} dim ${d}=1`, () => compareWithCli(model, {dim: `${d}=1`, "no-verify": true}));
  }
  for (const [model, opset] of [["bert_tiny_op13.onnx", 23], ["vit_tiny_op13.onnx", 17], ["llama_tiny.onnx", 23]])
    await check(`${model} opset ${opset}`, () => compareWithCli(model, {opset}));
  for (const model of ["resnet_small.onnx", "bert_tiny.onnx", "vit_tiny.onnx"])
    await check(`${model} dtype fp16`, () => compareWithCli(model, {dtype: "fp16"}));
  await check("swin_stage.onnx target coreml", () => compareWithCli("swin_stage.onnx", {target: "coreml"}));
  await check("repeated options as arrays", () =>
    compareWithCli("fusions_tiny.onnx", {skip: ["fuse_gelu", "fuse_layer_normalization"], "no-verify": true}));

  // ---- errors: the CLI's message and exit code, nothing returned
  const errDir = fs.mkdtempSync(path.join(tmp, "err-"));
  fs.writeFileSync(path.join(errDir, "bad.onnx"), Buffer.from("this is not an ONNX model"));
  fs.copyFileSync(path.join(MODELS, "resnet_small.onnx"), path.join(errDir, "good.onnx"));
  async function expectCliError(name, bytes, options) {
    const c = runCli(errDir, name, options);
    assert.notStrictEqual(c.code, 0, "the CLI accepted it");
    let rejected = null;
    try {
      await onnxtrim.simplify(bytes, options, {name});
    } catch (e) {
      rejected = e;
    }
    assert.ok(rejected instanceof Error, "the API did not reject");
    assert.strictEqual(rejected.exitCode, c.code, `exit code ${rejected.exitCode}, the CLI's ${c.code}`);
    assert.ok(rejected.message.length > 0 && c.stderr.includes(rejected.message),
              `message '${rejected.message}' is not in the CLI's '${c.stderr.trim()}'`);
    assert.strictEqual(Object.keys(c.out).length, 0, "the CLI wrote something");
  }
  await check("invalid model", () => expectCliError("bad.onnx", fs.readFileSync(path.join(errDir, "bad.onnx")), {}));
  // A well-formed protobuf whose graph reads a value nothing defines: an invalid model (5).
  python(`
import sys, onnx
from onnx import helper, TensorProto
g = helper.make_graph([helper.make_node("Relu", ["nowhere"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
open(sys.argv[1], "wb").write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
`, [path.join(errDir, "dangling.onnx")]);
  await check("invalid graph", () => expectCliError("dangling.onnx", fs.readFileSync(path.join(errDir, "dangling.onnx")), {}));
  await check("unknown option", () => expectCliError("good.onnx", fs.readFileSync(path.join(errDir, "good.onnx")), {colour: true}));
  await check("bad option value", () => expectCliError("good.onnx", fs.readFileSync(path.join(errDir, "good.onnx")), {opset: "x"}));
  await check("bad dtype", () => expectCliError("good.onnx", fs.readFileSync(path.join(errDir, "good.onnx")), {dtype: "fp7"}));

  // ---- external data: in through extra.files, out in result.files
  await check("external data round trip", async () => {
    const dir = fs.mkdtempSync(path.join(tmp, "ext-"));
    // The fixture written by the CLI with its weights in a separate file...
    const w = cp.spawnSync(cli, [path.join(MODELS, "resnet_small.onnx"), path.join(dir, "ext.onnx"), "--quiet", "--no-passes",
                                 "--no-verify", "--external-data", "always", "--external-location", "weights.bin"]);
    assert.strictEqual(w.status, 0, String(w.stderr));
    assert.ok(fs.existsSync(path.join(dir, "weights.bin")));
    const bytes = fs.readFileSync(path.join(dir, "ext.onnx"));
    const files = {"weights.bin": fs.readFileSync(path.join(dir, "weights.bin"))};
    // ...simplified with its data read from extra.files, written back inline and with external data.
    for (const options of [{}, {"external-data": "always"}, {"external-data": "always", "external-location": "w.data"}]) {
      const api = await onnxtrim.simplify(bytes, options, {name: "ext.onnx", files});
      const c = runCli(dir, "ext.onnx", options);
      assert.strictEqual(c.code, 0, c.stderr);
      sameBytes(api.model, c.out["ext.onnx"], "ext.onnx " + JSON.stringify(options));
      const cliFiles = {};
      for (const [f, b] of Object.entries(c.out)) if (f !== "ext.onnx") cliFiles[f] = b;
      assert.ok(Object.keys(cliFiles).length > 0 || !options["external-data"], "the CLI wrote no data file");
      assert.deepStrictEqual(Object.keys(api.files).sort(), Object.keys(cliFiles).sort());
      for (const f of Object.keys(cliFiles)) sameBytes(api.files[f], cliFiles[f], f);
    }
    // Without its data file the model is refused, as by the CLI.
    let rejected = null;
    try {
      await onnxtrim.simplify(bytes, {}, {name: "ext.onnx"});
    } catch (e) {
      rejected = e;
    }
    const lone = fs.mkdtempSync(path.join(tmp, "lone-"));
    fs.copyFileSync(path.join(dir, "ext.onnx"), path.join(lone, "ext.onnx"));
    const c = runCli(lone, "ext.onnx", {});
    assert.ok(rejected, "a model without its external data was accepted");
    assert.strictEqual(rejected.exitCode, c.code);
    assert.ok(c.stderr.includes(rejected.message), `'${rejected.message}' vs '${c.stderr.trim()}'`);
  });

  // ---- inspect and verify
  await check("inspect", async () => {
    const bytes = fs.readFileSync(path.join(MODELS, "bert_tiny.onnx"));
    const info = await onnxtrim.inspect(bytes);
    const r = cp.spawnSync(cli, ["inspect", "bert_tiny.onnx"], {cwd: MODELS, encoding: "utf8"});
    assert.strictEqual(r.status, 0);
    assert.ok(r.stdout.includes(`nodes: ${info.nodes} (${info.top_level_nodes} at top level)`), r.stdout);
    for (const v of info.inputs) assert.ok(r.stdout.includes(`  ${v.name}: ${v.type}\n`), v.name);
    for (const [op, n] of Object.entries(info.op_histogram)) assert.match(r.stdout, new RegExp(`\\n  ${op} +${n}\\n`));
  });
  await check("verify", async () => {
    const a = fs.readFileSync(path.join(MODELS, "vit_tiny.onnx"));
    const b = (await onnxtrim.simplify(a, {"no-verify": true})).model;
    const v = await onnxtrim.verify(a, b, {samples: 2});
    assert.strictEqual(v.ran, true);
    assert.strictEqual(v.ok, true);
    assert.strictEqual(v.samples, 2);
    assert.ok(v.outputs.length > 0);
    let rejected = null;
    try {
      await onnxtrim.verify(a, Buffer.from("nope"));
    } catch (e) {
      rejected = e;
    }
    assert.ok(rejected && rejected.exitCode === 4, "an invalid second model: " + (rejected && rejected.exitCode));
  });
  await check("progress", async () => {
    const seen = [];
    await onnxtrim.simplify(fs.readFileSync(path.join(MODELS, "bert_tiny.onnx")), {}, {onProgress: (p) => seen.push(p)});
    assert.ok(seen.some((p) => p.round === 1 && p.pass.length > 0), JSON.stringify(seen.slice(0, 3)));
    assert.ok(seen.some((p) => p.pass === "check"));
  });

  // ---- the portable GEMM in wasm: exact, and how fast
  await check("GEMM exact (folded MatMul vs the naive float32 loop)", async () => {
    const dir = fs.mkdtempSync(path.join(tmp, "gemm-"));
    python(`
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
m, k, n = 96, 300, 80
rng = np.random.default_rng(7)
a = rng.standard_normal((m, k)).astype(np.float32); b = rng.standard_normal((k, n)).astype(np.float32)
g = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["C"]), helper.make_node("Add", ["C", "x"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, n])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
    [numpy_helper.from_array(a, "A"), numpy_helper.from_array(b, "B")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
`, [path.join(dir, "mm.onnx")]);
    const api = await onnxtrim.simplify(fs.readFileSync(path.join(dir, "mm.onnx")), {"no-verify": true});
    fs.writeFileSync(path.join(dir, "out.onnx"), api.model);
    const verdict = python(`
import sys, numpy as np, onnx
from onnx import numpy_helper
src = {t.name: numpy_helper.to_array(t) for t in onnx.load(sys.argv[1]).graph.initializer}
out = onnx.load(sys.argv[2])
folded = [numpy_helper.to_array(t) for t in out.graph.initializer]
assert len(folded) == 1 and folded[0].shape == (96, 80), [f.shape for f in folded]
a, b = src["A"], src["B"]
want = np.zeros((96, 80), np.float32)
for kk in range(a.shape[1]):  # acc += a[:, k] * b[k, :], in k order, float32 throughout
    want = (want + np.outer(a[:, kk], b[kk, :]).astype(np.float32)).astype(np.float32)
print("same" if np.array_equal(want.view(np.uint32), folded[0].view(np.uint32)) else "differ %d" % int((want != folded[0]).sum()))
`, [path.join(dir, "mm.onnx"), path.join(dir, "out.onnx")]).trim();
    assert.strictEqual(verdict, "same");
  });
  await check("GEMM speed (512x512x512)", async () => {
    const dir = fs.mkdtempSync(path.join(tmp, "gemm512-"));
    python(`
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(1)
a = rng.standard_normal((512, 512)).astype(np.float32); b = rng.standard_normal((512, 512)).astype(np.float32)
g = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["C"]), helper.make_node("Add", ["C", "x"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [512, 512])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [512, 512])],
    [numpy_helper.from_array(a, "A"), numpy_helper.from_array(b, "B")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
`, [path.join(dir, "mm.onnx")]);
    const api = await onnxtrim.simplify(fs.readFileSync(path.join(dir, "mm.onnx")), {"no-verify": true});
    const fold = api.report.passes.filter((p) => p.name === "fold_constants").reduce((s, p) => s + p.seconds, 0);
    assert.ok(fold > 0, "no folding time in the report");
    console.log(`GEMM 512x512x512 in wasm: fold_constants ${(fold * 1e3).toFixed(1)} ms, ` +
                `${(2 * 512 ** 3 / fold / 1e9).toFixed(2)} GFLOP/s (including the fold's own work)`);
  });

  for (const [m, o, a, c] of times)
    console.log(`time ${m.padEnd(28)} ${o.padEnd(10)} API (wasm, Node) ${a.toFixed(2)} s, CLI ${c.toFixed(2)} s`);
  fs.rmSync(tmp, {recursive: true, force: true});
  console.log(failures ? `${failures} of ${checks + failures} checks failed` : `all ${checks} checks passed`);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
