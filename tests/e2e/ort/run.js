// Runs an ONNX model with ONNX Runtime on inputs given as raw files and writes the outputs.
//   node run.js MODEL.onnx IN_DIR OUT_DIR
// IN_DIR holds NAME.json ({"dtype": "float32", "dims": [...]}) and NAME.bin (little-endian
// bytes) per input; OUT_DIR receives the same pair per output.
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');

const ctors = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array, float16: Uint16Array,
};

async function main() {
  const [model, inDir, outDir] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'disabled' });
  const feeds = {};
  for (const name of session.inputNames) {
    const meta = JSON.parse(fs.readFileSync(path.join(inDir, encodeURIComponent(name) + '.json')));
    const buf = fs.readFileSync(path.join(inDir, encodeURIComponent(name) + '.bin'));
    const C = ctors[meta.dtype];
    const data = new C(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    feeds[name] = new ort.Tensor(meta.dtype, meta.dtype === 'bool' ? Uint8Array.from(data) : data, meta.dims);
  }
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of session.outputNames) {
    const t = results[name];
    fs.writeFileSync(path.join(outDir, encodeURIComponent(name) + '.json'), JSON.stringify({ dtype: t.type, dims: t.dims }));
    const d = t.data;
    fs.writeFileSync(path.join(outDir, encodeURIComponent(name) + '.bin'), Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
