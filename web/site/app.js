// onnxtrim's page: picks the model (and its external data), reads the options as the command
// line names them, runs the job in worker.js and renders the report. No framework, no network:
// the only requests are for this site's own files.
'use strict';

const $ = (id) => document.getElementById(id);

const state = {
  worker: null,
  ready: false,
  busy: false,
  jobId: 0,
  models: [],        // File objects that can be the model (.onnx), with their relative paths
  all: [],           // every chosen file: {file, path}
  model: null,       // the chosen {file, path}
  data: [],          // extra files chosen separately: {file, path}
  urls: [],          // object URLs of the current downloads
  started: 0,
  inspectId: 0,
};

// ---------------------------------------------------------------- the worker

function startWorker() {
  if (!/^https?:$/.test(location.protocol)) {
    showFatal('This page must be served over http (a file:// page cannot load its .wasm): ' +
              'python3 -m http.server -d build-web/site');
    return;
  }
  const w = new Worker('worker.js');
  state.worker = w;
  state.ready = false;
  w.onmessage = (ev) => onWorkerMessage(ev.data);
  w.onerror = (ev) => {
    ev.preventDefault();
    showFatal('the worker failed: ' + (ev.message || 'unknown error'));
  };
}

function onWorkerMessage(msg) {
  if (msg.type === 'ready') {
    state.ready = true;
    $('version').textContent = msg.version;
    setStatus('Ready.');
    updateRunButton();
    inspectChosen();
  } else if (msg.type === 'fatal') {
    showFatal(msg.message);
  } else if (typeof msg.id === 'string' && msg.id.startsWith('inspect-')) {
    if (msg.id === `inspect-${state.inspectId}`) showSummary(msg.type === 'done' ? msg.summary : null, msg.message);
  } else if (msg.id !== state.jobId) {
    // a message of a job that was cancelled
  } else if (msg.type === 'progress') {
    showProgress(msg.info);
  } else if (msg.type === 'done') {
    finishJob();
    showResult(msg);
  } else if (msg.type === 'error') {
    finishJob();
    showError(msg.message, msg.exitCode);
  }
}

// A pass of a round, or a stage (load, check, save); a bar when the stage says how far it is.
function showProgress(info) {
  const what = info.round > 0 ? `round ${info.round}: ${info.pass}` : (info.stage || info.pass || '');
  $('progress-text').textContent = what + elapsed();
  const bar = $('progress');
  if (typeof info.total === 'number' && info.total > 0 && typeof info.done === 'number') {
    bar.max = info.total;
    bar.value = Math.min(info.done, info.total);
  } else {
    bar.removeAttribute('value');
  }
}

function showFatal(message) {
  setStatus('onnxtrim could not start.');
  showError(message, 70);
  $('run').disabled = true;
}

function setStatus(text) { $('status').textContent = text; }

function elapsed() {
  return state.started ? ` (${((performance.now() - state.started) / 1000).toFixed(1)} s)` : '';
}

// ---------------------------------------------------------------- choosing files

function relPath(file) {
  return file.relPath || file.webkitRelativePath || file.name;
}

function dirOf(path) {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i + 1);
}

function setFiles(entries, replaceData) {
  // entries: [{file, path}] from the picker, a folder or a drop
  state.all = entries;
  state.models = entries.filter((e) => /\.onnx$/i.test(e.path));
  if (replaceData) state.data = [];
  chooseModel(state.models[0] || null);
}

function chooseModel(entry) {
  state.model = entry;
  const sel = $('chosen-models');
  sel.textContent = '';
  for (const m of state.models) {
    const o = document.createElement('option');
    o.value = m.path;
    o.textContent = m.path;
    o.selected = m === entry;
    sel.appendChild(o);
  }
  $('chosen-models-row').hidden = state.models.length < 2;
  renderChosen();
}

// The files the model may reference as external data, by their path relative to the model's
// folder (ONNX's `location`): the other files of a folder or a drop, and the data files picked.
function dataFiles() {
  const files = {};
  if (!state.model) return files;
  const base = dirOf(state.model.path);
  for (const e of state.all) {
    if (e === state.model || !e.path.startsWith(base)) continue;
    files[e.path.slice(base.length)] = e.file;
  }
  for (const e of state.data) files[e.path] = e.file;
  return files;
}

function renderChosen() {
  const m = state.model;
  $('chosen').hidden = !m;
  if (m) {
    $('chosen-model').textContent = m.path;
    $('chosen-size').textContent = formatBytes(m.file.size);
    const names = Object.keys(dataFiles());
    $('chosen-data-row').hidden = names.length === 0;
    $('chosen-data').textContent = names.map((n) => `${n} (${formatBytes(dataFiles()[n].size)})`).join(', ');
  }
  updateRunButton();
  inspectChosen();
}

// The chosen model's inputs and outputs (onnxtrim inspect), to help fill --dim and --input-shape.
async function inspectChosen() {
  const id = ++state.inspectId;
  $('chosen-summary').textContent = '';
  if (!state.model || !state.ready) return;
  const files = {};
  let bytes;
  let buffers;
  try {
    bytes = new Uint8Array(await state.model.file.arrayBuffer());
    buffers = [bytes.buffer];
    for (const [name, file] of Object.entries(dataFiles())) {
      files[name] = new Uint8Array(await file.arrayBuffer());
      buffers.push(files[name].buffer);
    }
  } catch (e) {
    showSummary(null, `cannot read: ${(e && e.message) || e}`);
    return;
  }
  if (id !== state.inspectId) return;
  const name = state.model.path.slice(state.model.path.lastIndexOf('/') + 1);
  state.worker.postMessage({ id: `inspect-${id}`, cmd: 'inspect', bytes, files, name }, buffers);
}

function showSummary(summary, message) {
  const box = $('chosen-summary');
  box.textContent = '';
  if (!summary) {
    box.appendChild(el('p', { class: 'muted small' }, `(${message || 'no summary'})`));
    return;
  }
  const io = (label, values) => el('p', {}, `${label}: `, ...(values || []).flatMap((v, i) =>
    [i ? ', ' : '', el('code', {}, v.name), ` ${v.type}`]));
  box.appendChild(io('Inputs', summary.inputs));
  box.appendChild(io('Outputs', summary.outputs));
  const opsets = Object.entries(summary.opsets || {}).map(([d, v]) => `${d} ${v}`).join(', ');
  box.appendChild(el('p', { class: 'muted small' },
    `${summary.nodes} nodes, ${summary.initializers} initializers (${formatBytes(summary.initializer_bytes)}); opset ${opsets}`));
}

function updateRunButton() {
  $('run').disabled = !(state.ready && state.model && !state.busy);
  $('run').textContent = state.busy ? 'Working…' : 'Simplify';
}

// A drop may hold files and folders: folders are walked (webkitGetAsEntry), paths kept.
async function entriesFromDrop(dt) {
  const out = [];
  const items = dt.items ? Array.from(dt.items) : [];
  const roots = items.map((it) => (it.webkitGetAsEntry ? it.webkitGetAsEntry() : null));
  if (roots.length && roots.every((r) => r)) {
    const walk = async (entry, prefix) => {
      if (entry.isFile) {
        const file = await new Promise((res, rej) => entry.file(res, rej));
        out.push({ file, path: prefix + entry.name });
      } else if (entry.isDirectory) {
        const reader = entry.createReader();
        for (;;) {
          const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
          if (!batch.length) break;
          for (const child of batch) await walk(child, prefix + entry.name + '/');
        }
      }
    };
    for (const r of roots) await walk(r, '');
  } else {
    for (const f of Array.from(dt.files || [])) out.push({ file: f, path: f.name });
  }
  return out;
}

// ---------------------------------------------------------------- options

// Words of a command line: spaces separate, double or single quotes group.
function shellWords(text) {
  const words = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let m;
  while ((m = re.exec(text)) !== null) words.push(m[1] !== undefined ? m[1] : m[2] !== undefined ? m[2] : m[3]);
  return words;
}

function addOption(options, name, value) {
  if (!(name in options)) options[name] = value;
  else if (Array.isArray(options[name])) options[name].push(value);
  else options[name] = [options[name], value];
}

// "--skip a,b --max-rounds 5 --verify --input-shapes x:1,3 y:1" -> {skip: "a,b", "max-rounds": "5",
// verify: true, "input-shapes": "x:1,3 y:1"}: the words after a name, up to the next name, are
// its value (joined by spaces, as the command line joins a multi-word option's words); none: a flag.
function parseOptionText(text) {
  const options = {};
  const words = shellWords(text);
  for (let i = 0; i < words.length;) {
    const w = words[i];
    if (!w.startsWith('--') || w === '--') throw usageError(`other options: '${w}' is not an option (options start with --)`);
    let name = w.slice(2);
    let value;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
      i++;
    } else {
      const vals = [];
      for (i++; i < words.length && !words[i].startsWith('--'); i++) vals.push(words[i]);
      value = vals.length ? vals.join(' ') : true;
    }
    addOption(options, name, value);
  }
  return options;
}

function usageError(message) {
  const e = new Error(message);
  e.exitCode = 2;
  return e;
}

function readOptions() {
  const options = {};
  for (const name of ['dim', 'input-shape']) {
    for (const w of shellWords($('opt-' + name).value)) addOption(options, name, w);
  }
  const opset = $('opt-opset').value.trim();
  if (opset) options.opset = Number(opset);
  if ($('opt-dtype').value) options.dtype = $('opt-dtype').value;
  if ($('opt-target').value) options.target = $('opt-target').value;
  if (!$('opt-verify').checked) options['no-verify'] = true;
  const extra = parseOptionText($('opt-extra').value);
  for (const [k, v] of Object.entries(extra)) {
    for (const one of Array.isArray(v) ? v : [v]) addOption(options, k, one);
  }
  return options;
}

// ---------------------------------------------------------------- running

async function run() {
  if (!state.model || state.busy || !state.ready) return;
  let options;
  try {
    options = readOptions();
  } catch (e) {
    showError(e.message, e.exitCode);
    return;
  }
  clearOutput();
  state.busy = true;
  state.started = performance.now();
  const id = ++state.jobId;
  updateRunButton();
  setStatus('Reading the files…');
  $('progress-row').hidden = false;
  $('progress-text').textContent = '';
  $('progress').removeAttribute('value');
  const files = {};
  const buffers = [];
  let bytes;
  try {
    bytes = new Uint8Array(await state.model.file.arrayBuffer());
    buffers.push(bytes.buffer);
    for (const [name, file] of Object.entries(dataFiles())) {
      files[name] = new Uint8Array(await file.arrayBuffer());
      buffers.push(files[name].buffer);
    }
  } catch (e) {
    if (id !== state.jobId) return;
    // a file that went away or cannot be read since it was picked (the CLI's exit code 3)
    finishJob();
    showError(`${state.model.path}: cannot read: ${(e && e.message) || e}`, 3);
    return;
  }
  if (id !== state.jobId) return;   // cancelled while the files were read
  setStatus(`Simplifying ${state.model.path}…`);
  const name = state.model.path.slice(state.model.path.lastIndexOf('/') + 1);
  state.worker.postMessage({ id, cmd: 'simplify', bytes, options, files, name }, buffers);
}

function finishJob() {
  state.busy = false;
  $('progress-row').hidden = true;
  updateRunButton();
}

function cancel() {
  if (!state.busy) return;
  state.jobId++;   // whatever the cancelled job still sends or starts is dropped
  state.worker.terminate();
  finishJob();
  setStatus('Cancelled. Restarting onnxtrim…');
  startWorker();
}

// ---------------------------------------------------------------- output

function clearOutput() {
  for (const u of state.urls) URL.revokeObjectURL(u);
  state.urls = [];
  $('error').hidden = true;
  $('result').hidden = true;
  $('placeholder').hidden = false;
  for (const id of ['downloads', 'summary', 'verdict', 'check', 'histogram', 'fusions', 'warnings', 'details']) {
    $(id).textContent = '';
  }
}

function showError(message, exitCode) {
  clearOutput();
  $('error-message').textContent = message;
  $('error-code').textContent = String(exitCode);
  $('error').hidden = false;
  $('placeholder').hidden = true;
  setStatus('Failed.');
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}

function formatBytes(n) {
  if (typeof n !== 'number') return '';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${n} B` : `${v.toFixed(2)} ${units[i]}`;
}

function formatNumber(x) {
  if (typeof x !== 'number') return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a >= 1e-3 && a < 1e5 ? String(Number(x.toPrecision(4))) : x.toExponential(3);
}

function change(before, after) {
  if (typeof before !== 'number' || typeof after !== 'number') return '';
  const d = after - before;
  if (d === 0) return '=';
  const pct = before ? ` (${d > 0 ? '+' : ''}${((100 * d) / before).toFixed(1)}%)` : '';
  return `${d > 0 ? '+' : ''}${d}${pct}`;
}

function stemOf(path) {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.replace(/\.onnx$/i, '');
}

function download(name, bytes, id) {
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  state.urls.push(url);
  return el('a', { href: url, download: name, id, class: 'download' }, `Download ${name}`,
            el('span', { class: 'muted' }, ` ${formatBytes(bytes.byteLength)}`));
}

function showResult(msg) {
  const r = msg.report || {};
  const before = r.before || {};
  const after = r.after || {};
  const v = r.verification || {};
  setStatus(`Done in ${msg.seconds.toFixed(2)} s.`);

  // downloads: the model and each external-data file it references, under the names it uses
  const dl = $('downloads');
  const modelName = `${stemOf(state.model.path)}.simplified.onnx`;
  dl.appendChild(download(modelName, msg.model, 'download-model'));
  Object.entries(msg.files || {}).forEach(([name, bytes], i) => {
    dl.appendChild(download(name, bytes, `download-file-${i}`));
  });
  if (Object.keys(msg.files || {}).length) {
    dl.appendChild(el('p', { class: 'muted small' },
      'Keep the data file(s) beside the model, under these names: the model refers to them by name.'));
  }

  // summary
  const rows = [
    ['nodes', before.nodes, after.nodes, (x) => String(x)],
    ['initializers', before.initializers, after.initializers, (x) => String(x)],
    ['initializer bytes', before.initializer_bytes, after.initializer_bytes, formatBytes],
    ['file size', before.file_bytes, after.file_bytes, formatBytes],
  ];
  const sum = el('table', { class: 'summary', id: 'summary-table' },
    el('thead', {}, el('tr', {}, el('th', {}, ''), el('th', {}, 'before'), el('th', {}, 'after'), el('th', {}, 'change'))));
  const sb = el('tbody');
  for (const [label, b, a, fmt] of rows) {
    const key = label.replace(/ /g, '-');
    sb.appendChild(el('tr', { class: a !== b ? 'changed' : '' }, el('th', {}, label),
      el('td', { id: `sum-${key}-before` }, b === undefined ? '' : fmt(b)),
      el('td', { id: `sum-${key}-after` }, a === undefined ? '' : fmt(a)),
      el('td', {}, change(b, a))));
  }
  sum.appendChild(sb);
  $('summary').appendChild(sum);

  // verdict of the check
  const verdict = $('verdict');
  if (v.ran) {
    const allOk = v.ok && (v.outputs || []).every((o) => o.ok || o.comparable === false);
    verdict.appendChild(el('p', { class: allOk ? 'verdict ok' : 'verdict bad', id: 'verdict-text', 'data-ok': String(!!v.ok) },
      allOk ? `Check passed: the result computes what the original computes (${v.samples} random sample${v.samples === 1 ? '' : 's'}, ` +
              `|result - original| <= ${v.atol} + ${v.rtol} * scale).`
            : 'Check failed.'));
  } else {
    verdict.appendChild(el('p', { class: 'verdict skipped', id: 'verdict-text', 'data-ok': 'skipped' },
      `Check skipped: ${v.skipped || 'not run'}.`));
  }

  // the check's table
  const check = $('check');
  if (v.ran && (v.outputs || []).length) {
    const t = el('table', { id: 'check-table' }, el('thead', {}, el('tr', {},
      el('th', {}, 'output'), el('th', {}, 'max abs'), el('th', {}, 'max rel'), el('th', {}, 'result'))));
    const tb = el('tbody');
    for (const o of v.outputs) {
      const res = o.comparable === false ? `not comparable${o.why ? ': ' + o.why : ''}` : o.ok ? 'ok' : `differs${o.why ? ': ' + o.why : ''}`;
      tb.appendChild(el('tr', { class: o.ok ? '' : 'bad' }, el('td', {}, el('code', {}, o.name)),
        el('td', { class: 'num' }, formatNumber(o.max_abs)), el('td', { class: 'num' }, formatNumber(o.max_rel)),
        el('td', {}, res)));
    }
    t.appendChild(tb);
    check.appendChild(t);
    const dims = Object.entries(v.dims || {}).map(([k, x]) => `${k}=${x}`).join(', ');
    if (dims) check.appendChild(el('p', { class: 'muted small' }, `dims: ${dims}` + (v.sizes ? ` (${v.sizes})` : '')));
  } else {
    check.appendChild(el('p', { class: 'muted' }, v.ran ? 'no outputs compared' : 'not run'));
  }

  // op histogram, before vs after
  const hb = before.op_histogram || {};
  const ha = after.op_histogram || {};
  const ops = Array.from(new Set([...Object.keys(hb), ...Object.keys(ha)])).sort();
  const ht = el('table', { id: 'histogram-table' }, el('thead', {}, el('tr', {},
    el('th', {}, 'op'), el('th', {}, 'before'), el('th', {}, 'after'), el('th', {}, ''))));
  const htb = el('tbody');
  const max = Math.max(1, ...ops.map((op) => Math.max(hb[op] || 0, ha[op] || 0)));
  for (const op of ops) {
    const b = hb[op] || 0;
    const a = ha[op] || 0;
    const bar = el('span', { class: 'bars' },
      el('span', { class: 'bar before', style: `width:${(100 * b) / max}%` }),
      el('span', { class: 'bar after', style: `width:${(100 * a) / max}%` }));
    htb.appendChild(el('tr', { class: a !== b ? 'changed' : '' }, el('td', {}, op),
      el('td', { class: 'num' }, b || '·'), el('td', { class: 'num' }, a || '·'), el('td', { class: 'barcell' }, bar)));
  }
  ht.appendChild(htb);
  $('histogram').appendChild(ht);

  // fusions
  if ((r.fusions || []).length) {
    const ul = el('ul', { id: 'fusions-list' });
    for (const f of r.fusions) {
      ul.appendChild(el('li', {}, el('strong', {}, f.op), ` (opset ${f.opset}): ${f.fused} fused by `, el('code', {}, f.pass),
        f.would_fuse ? `, ${f.would_fuse} more at a newer opset` : '', f.runtimes ? ` — runs in ${f.runtimes}` : ''));
    }
    $('fusions').appendChild(el('h3', {}, 'Fused into standard ops'));
    $('fusions').appendChild(ul);
  }

  // warnings
  if ((r.warnings || []).length) {
    const ul = el('ul', { id: 'warnings-list', class: 'warnings' });
    for (const w of r.warnings) ul.appendChild(el('li', {}, w));
    $('warnings').appendChild(el('h3', {}, 'Warnings'));
    $('warnings').appendChild(ul);
  }

  // details: opset conversion, surgery, stages, passes
  const det = $('details');
  const parts = [];
  if (r.opset) {
    parts.push(el('p', {}, `Opset ${r.opset.from} → ${r.opset.to}: ${r.opset.nodes_converted} nodes converted, ` +
      `${r.opset.nodes_rewritten} rewritten, ${r.opset.nodes_expanded} expanded.`));
  }
  if (r.dtype) parts.push(el('p', {}, `Precision: ${JSON.stringify(r.dtype)}`));
  for (const s of r.surgery || []) parts.push(el('p', {}, `Surgery: ${typeof s === 'string' ? s : JSON.stringify(s)}`));
  if ((r.stages || []).length) {
    parts.push(el('p', {}, 'Time: ' + r.stages.map((s) => `${s.name} ${(s.seconds * 1000).toFixed(1)} ms`).join(', ') +
      ` (${r.rounds} round${r.rounds === 1 ? '' : 's'}${r.converged === false ? ', not converged' : ''}).`));
  }
  const changed = (r.passes || []).filter((p) => p.changes > 0);
  if (changed.length) {
    const t = el('table', { id: 'passes-table' }, el('thead', {}, el('tr', {},
      el('th', {}, 'pass'), el('th', {}, 'changes'), el('th', {}, 'nodes removed'), el('th', {}, 'ms'))));
    const tb = el('tbody');
    for (const p of changed) {
      tb.appendChild(el('tr', {}, el('td', {}, el('code', {}, p.name)), el('td', { class: 'num' }, p.changes),
        el('td', { class: 'num' }, p.nodes_removed), el('td', { class: 'num' }, (p.seconds * 1000).toFixed(2))));
    }
    t.appendChild(tb);
    parts.push(el('p', { class: 'muted small' }, 'Passes that changed something:'), t);
  }
  const json = el('pre', { class: 'json' }, JSON.stringify(r, null, 2));
  parts.push(el('details', {}, el('summary', {}, 'The whole report (JSON, as --json writes it)'), json));
  const d = el('details', { open: '' }, el('summary', {}, 'Details'), ...parts);
  det.appendChild(d);

  $('placeholder').hidden = true;
  $('result').hidden = false;
}

// ---------------------------------------------------------------- wiring

function wire() {
  $('model-input').addEventListener('change', (ev) => {
    const f = ev.target.files[0];
    if (f) setFiles([{ file: f, path: f.name }], false);
  });
  $('data-input').addEventListener('change', (ev) => {
    state.data = Array.from(ev.target.files).map((f) => ({ file: f, path: f.name }));
    renderChosen();
  });
  $('folder-input').addEventListener('change', (ev) => {
    setFiles(Array.from(ev.target.files).map((f) => ({ file: f, path: relPath(f) })), true);
  });
  $('chosen-models').addEventListener('change', (ev) => {
    chooseModel(state.models.find((m) => m.path === ev.target.value) || null);
  });
  const zone = $('drop-zone');
  for (const t of ['dragenter', 'dragover']) {
    zone.addEventListener(t, (ev) => { ev.preventDefault(); zone.classList.add('over'); });
  }
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', async (ev) => {
    ev.preventDefault();
    zone.classList.remove('over');
    setFiles(await entriesFromDrop(ev.dataTransfer), true);
  });
  // a file dropped beside the zone must not replace the page
  window.addEventListener('dragover', (ev) => ev.preventDefault());
  window.addEventListener('drop', (ev) => ev.preventDefault());
  $('options').addEventListener('submit', (ev) => { ev.preventDefault(); run(); });
  const cancelButton = el('button', { type: 'button', id: 'cancel' }, 'Cancel');
  cancelButton.addEventListener('click', cancel);
  $('progress-row').appendChild(cancelButton);
}

wire();
startWorker();

// Offline once loaded: the service worker keeps a copy of the site's files.
if ('serviceWorker' in navigator && /^https?:$/.test(location.protocol)) {
  navigator.serviceWorker.register('sw.js').catch(() => { /* the page works without it */ });
}
