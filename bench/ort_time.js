// Times ONNX Runtime (onnxruntime-node, its default graph optimizations and threads) on one
// model with random float inputs, batch 1 for symbolic dims: prints the median of N runs after
// one warm-up run.   node bench/ort_time.js MODEL.onnx [N]
const path = require('path');
const ort = require(path.join(__dirname, '..', 'tests', 'e2e', 'ort', 'node_modules', 'onnxruntime-node'));

async function main() {
  const [model, n = '5'] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model);
  const feeds = {};
  for (const name of session.inputNames) {
    const meta = session.inputMetadata ? session.inputMetadata.find((m) => m.name === name) : null;
    const dims = meta && meta.shape ? meta.shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1)) : [1, 3, 224, 224];
    const size = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    for (let i = 0; i < size; ++i) data[i] = Math.random() * 2 - 1;
    feeds[name] = new ort.Tensor('float32', data, dims);
  }
  const times = [];
  for (let i = 0; i <= Number(n); ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    const t1 = process.hrtime.bigint();
    if (i > 0) times.push(Number(t1 - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ median_ms: Number(times[Math.floor(times.length / 2)].toFixed(1)), runs: Number(n) }));
}
main().catch((e) => { console.error(String(e)); process.exit(1); });
