// Runs ONNX models with ONNX Runtime on inputs given as raw files and writes the outputs.
//
//   node run.js MODEL.onnx IN_DIR OUT_DIR
//     IN_DIR holds NAME.json ({"dtype": "float32", "dims": [...]}) and NAME.bin (little-endian
//     bytes) per input, NAME being the URI-encoded input name; OUT_DIR receives the same pair
//     per output.
//
//   node run.js --serve
//     One process for many models (node's start-up and ORT's load cost ~0.3 s each time). Reads
//     one JSON job per line on stdin:
//       {"model": PATH, "inputs": {NAME: {"dtype": D, "dims": [...], "file": PATH}}, "out": DIR}
//     and answers each with one JSON line on stdout, in order:
//       {"ok": true, "outputs": [{"name": N, "dtype": D, "dims": [...], "file": PATH}, ...]}
//       {"ok": false, "error": "one line"}
//     Output K is written to DIR/K.bin. A failing job does not stop the server.
//
//   node run.js --optimize LEVEL MODEL.onnx OUT.onnx
//     Loads MODEL with ONNX Runtime's graph optimizations at LEVEL ('basic', 'extended', 'all')
//     and writes the graph ORT would run to OUT (its optimizedModelFilePath); runs nothing.
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const ctors = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array, float16: Uint16Array,
};

function tensorFrom(meta, buf) {
  const C = ctors[meta.dtype];
  if (!C) throw new Error(`unsupported input dtype ${meta.dtype}`);
  // Copy into a fresh, aligned buffer: a Buffer read from a file may start at any offset.
  const bytes = new Uint8Array(buf.byteLength);
  bytes.set(buf);
  const data = new C(bytes.buffer);
  return new ort.Tensor(meta.dtype, data, meta.dims);
}

function bytesOf(t) {
  const d = t.data;
  if (t.type === 'string') throw new Error('string outputs are not supported');
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

async function runDirs(model, inDir, outDir) {
  const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'disabled' });
  const feeds = {};
  for (const name of session.inputNames) {
    const meta = JSON.parse(fs.readFileSync(path.join(inDir, encodeURIComponent(name) + '.json')));
    feeds[name] = tensorFrom(meta, fs.readFileSync(path.join(inDir, encodeURIComponent(name) + '.bin')));
  }
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of session.outputNames) {
    const t = results[name];
    fs.writeFileSync(path.join(outDir, encodeURIComponent(name) + '.json'), JSON.stringify({ dtype: t.type, dims: t.dims }));
    fs.writeFileSync(path.join(outDir, encodeURIComponent(name) + '.bin'), bytesOf(t));
  }
}

async function runJob(job) {
  const session = await ort.InferenceSession.create(job.model, { graphOptimizationLevel: 'disabled' });
  try {
    const feeds = {};
    for (const name of session.inputNames) {
      const meta = job.inputs[name];
      if (!meta) throw new Error(`no value given for input '${name}'`);
      feeds[name] = tensorFrom(meta, fs.readFileSync(meta.file));
    }
    const results = await session.run(feeds);
    fs.mkdirSync(job.out, { recursive: true });
    const outputs = [];
    session.outputNames.forEach((name, k) => {
      const t = results[name];
      const file = path.join(job.out, `${k}.bin`);
      fs.writeFileSync(file, bytesOf(t));
      outputs.push({ name, dtype: t.type, dims: t.dims, file });
    });
    return { ok: true, outputs };
  } finally {
    if (session.release) await session.release();
  }
}

async function serve() {
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of rl) {
    if (!line.trim()) continue;
    let answer;
    try {
      answer = await runJob(JSON.parse(line));
    } catch (e) {
      answer = { ok: false, error: String(e && e.message ? e.message : e).split('\n')[0] };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--serve') return serve();
  if (args[0] === '--optimize') {
    const [, level, model, out] = args;
    const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: level, optimizedModelFilePath: out });
    if (session.release) await session.release();
    return;
  }
  const [model, inDir, outDir] = args;
  return runDirs(model, inDir, outDir);
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
