// The ONNX Runtime half of bench/ort_latency.py (run that, not this): loads every variant of a
// model in one process, checks that each one's outputs equal the reference variant's, then
// times them interleaved.
//
//   node bench/ort_latency.js JOB.json      (prints one JSON result on stdout)
//
// JOB: {"variants": [{"name", "model", "level", "threads", "spin"}],   // threads 0: ORT's default
//       "inputs": {NAME: {"dtype", "dims", "file"}},                   // raw little-endian bytes
//       "reference": 0, "rtol": 1e-3, "atol": 1e-4,
//       "warmup": 2, "rounds": 15, "seconds": 20, "runs": 0}           // runs 0: from `seconds`
// RESULT: {"variants": [{"name", "create_ms", "check": {"ok", "outputs": [{name, max_abs, bad}]},
//          "samples_ms": [...]}], "runs_per_round": K, "rounds": R}
// A variant whose outputs differ from the reference's fails the whole job before any timing
// (exit 2, the RESULT still printed with its checks).
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '..', 'tests', 'e2e', 'ort', 'node_modules', 'onnxruntime-node'));

const ctors = {
  float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
  uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  bool: Uint8Array, float16: Uint16Array,  // float16: the raw bits (decoded by halfToFloat to compare)
};

// An IEEE binary16 bit pattern as a number.
function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function tensorFrom(meta) {
  const C = ctors[meta.dtype];
  if (!C) throw new Error(`unsupported input dtype ${meta.dtype}`);
  const buf = fs.readFileSync(meta.file);
  const bytes = new Uint8Array(buf.byteLength);  // a fresh, aligned copy
  bytes.set(buf);
  return new ort.Tensor(meta.dtype, new C(bytes.buffer), meta.dims);
}

function sessionOptions(v) {
  const o = { graphOptimizationLevel: v.level, executionMode: 'sequential' };
  if (v.threads > 0) {
    o.intraOpNumThreads = v.threads;
    o.interOpNumThreads = 1;
  }
  if (v.spin === false) o.extra = { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } };
  return o;
}

// numpy.allclose's rule (|a - b| <= atol + rtol * |b|), NaN equal to NaN, infinities equal to
// themselves; integers and bools must be equal.
function compare(a, b, rtol, atol) {
  if (a.type !== b.type) return { ok: false, why: `dtype ${a.type} vs ${b.type}` };
  if (a.dims.join(',') !== b.dims.join(',')) return { ok: false, why: `dims [${a.dims}] vs [${b.dims}]` };
  const half = a.type === 'float16';
  const x = half ? Array.from(a.data, halfToFloat) : a.data, y = half ? Array.from(b.data, halfToFloat) : b.data;
  const isFloat = half || a.type === 'float32' || a.type === 'float64';
  let maxAbs = 0, bad = 0;
  for (let i = 0; i < x.length; ++i) {
    if (!isFloat) {
      if (x[i] !== y[i]) ++bad;
      continue;
    }
    const u = x[i], w = y[i];
    if (Number.isNaN(u) || Number.isNaN(w)) { if (!(Number.isNaN(u) && Number.isNaN(w))) ++bad; continue; }
    if (!Number.isFinite(u) || !Number.isFinite(w)) { if (u !== w) ++bad; continue; }
    const d = Math.abs(u - w);
    if (d > maxAbs) maxAbs = d;
    if (d > atol + rtol * Math.abs(w)) ++bad;
  }
  return { ok: bad === 0, max_abs: maxAbs, bad, size: x.length };
}

async function main() {
  const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const feeds = {};
  for (const [name, meta] of Object.entries(job.inputs)) feeds[name] = tensorFrom(meta);
  const result = { variants: [] };
  const sessions = [];
  for (const v of job.variants) {
    const t0 = process.hrtime.bigint();
    const s = await ort.InferenceSession.create(v.model, sessionOptions(v));
    const t1 = process.hrtime.bigint();
    sessions.push(s);
    result.variants.push({ name: v.name, create_ms: Number(t1 - t0) / 1e6, samples_ms: [] });
  }
  // Check: every output of every variant, by name, against the reference variant's.
  const outs = [];
  for (const s of sessions) {
    const f = {};
    for (const n of s.inputNames) {
      if (!feeds[n]) throw new Error(`no value for input '${n}'`);
      f[n] = feeds[n];
    }
    outs.push(await s.run(f));
  }
  const ref = outs[job.reference || 0];
  const refNames = sessions[job.reference || 0].outputNames;
  let allOk = true;
  sessions.forEach((s, k) => {
    const checks = [];
    let ok = true;
    for (const n of refNames) {
      if (!(n in outs[k])) { checks.push({ name: n, ok: false, why: 'missing output' }); ok = false; continue; }
      const c = compare(outs[k][n], ref[n], job.rtol, job.atol);
      c.name = n;
      checks.push(c);
      ok = ok && c.ok;
    }
    result.variants[k].check = { ok, outputs: checks };
    allOk = allOk && ok;
  });
  if (!allOk) {
    process.stdout.write(JSON.stringify(result) + '\n');
    process.exit(2);
  }
  const feedsOf = sessions.map((s) => Object.fromEntries(s.inputNames.map((n) => [n, feeds[n]])));
  const runOnce = async (k) => {
    const t0 = process.hrtime.bigint();
    await sessions[k].run(feedsOf[k]);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  // Warm-up, which also measures a run's cost for the budget.
  const est = sessions.map(() => 0);
  for (let w = 0; w < Math.max(1, job.warmup); ++w) {
    for (let k = 0; k < sessions.length; ++k) est[k] = await runOnce(k);
  }
  const rounds = Math.max(1, job.rounds);
  let runs = job.runs;
  if (!runs) {
    const perRound = est.reduce((a, b) => a + b, 0);
    runs = Math.max(1, Math.floor((job.seconds * 1000) / (rounds * perRound)));
  }
  // Interleaved: each round runs every variant `runs` times, starting at a different variant
  // each round, so that no variant always follows the same one.
  const n = sessions.length;
  for (let r = 0; r < rounds; ++r) {
    for (let j = 0; j < n; ++j) {
      const k = (r + j) % n;
      for (let i = 0; i < runs; ++i) result.variants[k].samples_ms.push(await runOnce(k));
    }
  }
  result.rounds = rounds;
  result.runs_per_round = runs;
  for (const s of sessions) if (s.release) await s.release();
  process.stdout.write(JSON.stringify(result) + '\n');
}
main().catch((e) => { console.error(String(e && e.stack ? e.stack : e)); process.exit(1); });
