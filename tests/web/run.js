// onnxtrim in the browser, end to end: serves the site that scripts/web.sh writes on 127.0.0.1,
// drives Debian's chromium headless with puppeteer-core, and compares what the page and the JS
// API give with what the native CLI writes for the same model and options.
//
//   node tests/web/run.js SITE_DIR CLI [--models DIR] [--work DIR]
//
//   SITE_DIR  build-web/site (index.html, app.js, worker.js, onnxtrim.js, onnxtrim-core.*)
//   CLI       the native build/onnxtrim
//
// Environment:
//   UPDATE_SCREENSHOT=1     also write docs/web-page.png (the page with a report, 1280x900);
//                           =FILE.png writes FILE.png instead
//   ONNXTRIM_WEB_MODELS     more models (paths, separated by ':') to simplify through the page
//                           (default options) and time against the CLI, e.g. bench/models/swin_t.onnx
//   CHROMIUM                the browser (default /usr/bin/chromium)
//
// Fails on: bytes that differ from the CLI's, a report that disagrees with the CLI's, any request
// for a host other than 127.0.0.1, an uncaught page error or a console error.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const crypto = require('crypto');
const { spawnSync } = require('child_process');
const puppeteer = require('puppeteer-core');

const REPO = path.resolve(__dirname, '..', '..');

// ------------------------------------------------------------------ arguments

function parseArgs(argv) {
  const a = { models: path.join(REPO, 'tests', 'models'), work: null, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--models') a.models = argv[++i];
    else if (argv[i] === '--work') a.work = argv[++i];
    else a.rest.push(argv[i]);
  }
  if (a.rest.length !== 2) {
    console.error('usage: node tests/web/run.js SITE_DIR CLI [--models DIR] [--work DIR]');
    process.exit(2);
  }
  a.site = path.resolve(a.rest[0]);
  a.cli = path.resolve(a.rest[1]);
  return a;
}

const args = parseArgs(process.argv.slice(2));
const work = args.work ? path.resolve(args.work) : fs.mkdtempSync(path.join(os.tmpdir(), 'onnxtrim-web-'));
fs.mkdirSync(work, { recursive: true });

// ------------------------------------------------------------------ results

let passed = 0;
let failed = 0;
const failures = [];

function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`  ok    ${name}`);
  } else {
    failed++;
    failures.push(name);
    console.log(`  FAIL  ${name}${detail ? ': ' + detail : ''}`);
  }
  return ok;
}

function sha256(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

// ------------------------------------------------------------------ the native CLI

// The CLI's arguments for an options object of the JS API: the same long names; true is a flag,
// an array repeats the option.
function cliArgs(options) {
  const out = [];
  for (const [k, v] of Object.entries(options || {})) {
    for (const one of Array.isArray(v) ? v : [v]) {
      if (one === true) out.push('--' + k);
      else if (one === false) continue;
      else out.push('--' + k, String(one));
    }
  }
  return out;
}

// Runs `CLI IN OUT options --json J` in IN's folder, IN named by its file name as the page names
// it (so that messages match); returns {code, stderr, out, report, seconds}.
function runCli(input, outPath, options) {
  outPath = path.resolve(outPath);
  const json = outPath + '.report.json';
  for (const f of [outPath, json]) fs.rmSync(f, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(args.cli, [path.basename(input), outPath, ...cliArgs(options), '--json', json, '--quiet'],
                      { encoding: 'utf8', cwd: path.dirname(path.resolve(input)) });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const res = { code: r.status, stderr: (r.stderr || '').trim(), seconds };
  if (r.status === 0) {
    res.out = fs.readFileSync(outPath);
    res.report = JSON.parse(fs.readFileSync(json, 'utf8'));
  }
  return res;
}

// The CLI's error message (runCli names the model by its file name, as the page does), without
// the "onnxtrim: error: " the CLI puts before it.
function cliMessage(stderr) {
  const line = stderr.split('\n').filter((l) => l.startsWith('onnxtrim: error: ')).pop() || stderr;
  return line.replace(/^onnxtrim: error: /, '');
}

// ------------------------------------------------------------------ the static server

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.onnx': 'application/octet-stream',
  '.data': 'application/octet-stream', '.bin': 'application/octet-stream',
};

// Test-only routes beside the site: /__test/NAME serves a fixture (read by the page), POST
// /__result/KEY receives bytes the page made (compared here), /__api_worker.js is a Worker that
// calls the API (it sits in the site's folder, so onnxtrim.js resolves its files as in a page).
const served = new Map();      // "/__test/NAME" -> absolute path
const received = new Map();    // KEY -> Buffer
const requestLog = [];
let serverOffline = false;     // when set, the site's files are refused (the connection is cut)

const API_WORKER = `'use strict';
importScripts('onnxtrim.js');
onmessage = async (ev) => {
  const { bytes, options, files, key } = ev.data;
  try {
    await onnxtrim.ready;
    const progress = [];
    const t0 = performance.now();
    const r = await onnxtrim.simplify(bytes, options, { files, onProgress: (i) => progress.push(i) });
    const seconds = (performance.now() - t0) / 1000;
    await fetch('/__result/' + key, { method: 'POST', body: r.model });
    const names = Object.keys(r.files || {});
    for (const n of names) await fetch('/__result/' + key + '/' + encodeURIComponent(n), { method: 'POST', body: r.files[n] });
    postMessage({ ok: true, report: r.report, files: names, progress: progress.length, seconds });
  } catch (e) {
    postMessage({ ok: false, message: e.message, exitCode: e.exitCode });
  }
};
`;

function startServer(siteDir) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const p = decodeURIComponent(url.pathname);
    requestLog.push(`${req.method} ${p}`);
    if (serverOffline && !p.startsWith('/__')) {
      req.socket.destroy();
      return;
    }
    if (req.method === 'POST' && p.startsWith('/__result/')) {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.set(p.slice('/__result/'.length), Buffer.concat(chunks));
        res.writeHead(204);
        res.end();
      });
      return;
    }
    let file;
    let type;
    if (p === '/__api_worker.js') {
      res.writeHead(200, { 'Content-Type': MIME['.js'], 'Cache-Control': 'no-store' });
      res.end(API_WORKER);
      return;
    } else if (served.has(p)) {
      file = served.get(p);
      type = MIME['.onnx'];
    } else {
      const rel = p.endsWith('/') ? p + 'index.html' : p;
      file = path.join(siteDir, path.normalize(rel).replace(/^(\.\.[/\\])+/, ''));
      if (!file.startsWith(siteDir + path.sep)) file = null;
      type = MIME[path.extname(file || '')] || 'application/octet-stream';
    }
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': fs.statSync(file).size, 'Cache-Control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function serve(file) {
  const key = `/__test/${served.size}-${path.basename(file)}`;
  served.set(key, path.resolve(file));
  return key;
}

// ------------------------------------------------------------------ the browser

const violations = [];     // requests for another host
const pageErrors = [];     // uncaught errors and console errors

function allowedUrl(u) {
  const url = new URL(u);
  if (['data:', 'blob:', 'about:', 'chrome-extension:', 'devtools:'].includes(url.protocol)) return true;
  return url.hostname === '127.0.0.1';
}

async function watchTarget(target) {
  // Workers and the service worker make their own requests: every target is watched.
  const type = target.type();
  if (!['page', 'worker', 'service_worker', 'shared_worker', 'other'].includes(type)) return;
  try {
    const session = await target.createCDPSession();
    await session.send('Network.enable');
    session.on('Network.requestWillBeSent', (e) => {
      if (!allowedUrl(e.request.url)) violations.push(`${type}: ${e.request.url}`);
    });
    session.on('Runtime.exceptionThrown', (e) => {
      pageErrors.push(`${type}: ${e.exceptionDetails.exception ? e.exceptionDetails.exception.description : e.exceptionDetails.text}`);
    });
    await session.send('Runtime.enable').catch(() => {});
  } catch (e) {
    // a target that closed before we attached
  }
}

async function newPage(browser, origin) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (allowedUrl(req.url())) req.continue();
    else {
      violations.push(`page: ${req.url()}`);
      req.abort('blockedbyclient');
    }
  });
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(`console.error: ${m.text()}`);
  });
  await page.goto(origin + '/index.html', { waitUntil: 'load' });
  return page;
}

async function waitReady(page) {
  await page.waitForFunction(() => document.getElementById('version').textContent.length > 0 ||
                                    !document.getElementById('error').hidden, { timeout: 120000 });
  const err = await page.$eval('#error', (e) => (e.hidden ? '' : e.textContent));
  if (err) throw new Error('the page did not start: ' + err.trim());
}

// ------------------------------------------------------------------ the cases

// Fixtures simplified through the API (page and Worker) and the page: model, options.
const API_CASES = [
  ['resnet_small.onnx', {}],
  ['bert_tiny.onnx', { opset: 23 }],
  ['gpt2_tiny.onnx', { dtype: 'fp16' }],
  ['vit_tiny.onnx', { dim: 'batch=1' }],
  ['swin_static_tiny.onnx', { target: 'coreml' }],
  ['fusions_tiny.onnx', { 'no-verify': true }],
  ['if_nest_tiny.onnx', {}],
  ['llama_tiny.onnx', {}],
];

function modelPath(name) { return path.isAbsolute(name) ? name : path.join(args.models, name); }

// What the page's report must share with the CLI's (times and check numbers aside: the wasm
// evaluator's sums may round otherwise; its verdict must not differ).
function reportDiffs(web, cli) {
  const diffs = [];
  const same = (what, a, b) => {
    const ja = JSON.stringify(a);
    const jb = JSON.stringify(b);
    if (ja !== jb) diffs.push(`${what}: page ${ja} vs CLI ${jb}`);
  };
  for (const side of ['before', 'after']) {
    for (const k of ['nodes', 'initializers', 'initializer_bytes', 'op_histogram', 'file_bytes']) {
      same(`${side}.${k}`, web[side] && web[side][k], cli[side] && cli[side][k]);
    }
  }
  same('rounds', web.rounds, cli.rounds);
  same('converged', web.converged, cli.converged);
  same('fusions', web.fusions, cli.fusions);
  same('opset', web.opset, cli.opset);
  same('passes (changes)', (web.passes || []).map((p) => [p.name, p.changes, p.nodes_removed]),
       (cli.passes || []).map((p) => [p.name, p.changes, p.nodes_removed]));
  const wv = web.verification || {};
  const cv = cli.verification || {};
  same('verification.ran', wv.ran, cv.ran);
  same('verification.ok', wv.ok, cv.ok);
  same('verification.dims', wv.dims, cv.dims);
  same('verification outputs', (wv.outputs || []).map((o) => [o.name, o.ok, o.comparable]),
       (cv.outputs || []).map((o) => [o.name, o.ok, o.comparable]));
  same('warnings', web.warnings, cli.warnings);
  return diffs;
}

async function simplifyInPage(page, file, options, key) {
  const url = serve(file);
  const name = path.basename(file);
  return page.evaluate(async (url, options, key, name) => {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    await onnxtrim.ready;
    const t0 = performance.now();
    try {
      let progress = 0;
      const r = await onnxtrim.simplify(bytes, options, { name, onProgress: () => progress++ });
      const seconds = (performance.now() - t0) / 1000;
      await fetch('/__result/' + key, { method: 'POST', body: r.model });
      return { ok: true, report: r.report, files: Object.keys(r.files || {}), progress, seconds };
    } catch (e) {
      return { ok: false, message: e.message, exitCode: e.exitCode, isError: e instanceof Error };
    }
  }, url, options, key, name);
}

async function simplifyInWorker(page, file, options, key) {
  const url = serve(file);
  return page.evaluate(async (url, options, key) => {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const w = new Worker('/__api_worker.js');
    const r = await new Promise((resolve, reject) => {
      w.onmessage = (ev) => resolve(ev.data);
      w.onerror = (ev) => reject(new Error('worker: ' + ev.message));
      w.postMessage({ bytes, options, files: {}, key });
    });
    w.terminate();
    return r;
  }, url, options, key);
}

async function apiCases(page) {
  console.log('\nJS API in the page and in a Worker, against the CLI:');
  const version = await page.evaluate(async () => { await onnxtrim.ready; return onnxtrim.version; });
  const cliVersion = spawnSync(args.cli, ['--version'], { encoding: 'utf8' }).stdout.trim();
  check(`onnxtrim.version (${version}) is the CLI's (${cliVersion})`, cliVersion.includes(version), `${version} vs ${cliVersion}`);
  const timings = [];
  for (const [name, options] of API_CASES) {
    const file = modelPath(name);
    const label = `${path.basename(file)} ${JSON.stringify(options)}`;
    const cli = runCli(file, path.join(work, path.basename(file, '.onnx') + '.cli.onnx'), options);
    if (!check(`${label}: the CLI succeeds`, cli.code === 0, cli.stderr)) continue;
    const key = `page-${timings.length}`;
    const web = await simplifyInPage(page, file, options, key);
    if (!check(`${label}: page API succeeds`, web.ok, web.message)) continue;
    const bytes = received.get(key);
    check(`${label}: page API bytes equal the CLI's (${bytes.length} B, sha256 ${sha256(bytes)})`,
          Buffer.compare(bytes, cli.out) === 0,
          `page ${bytes.length} B ${sha256(bytes)} vs CLI ${cli.out.length} B ${sha256(cli.out)}`);
    if (Buffer.compare(bytes, cli.out) !== 0) fs.writeFileSync(path.join(work, path.basename(file, '.onnx') + '.web.onnx'), bytes);
    const diffs = reportDiffs(web.report, cli.report);
    check(`${label}: report agrees with the CLI's (nodes ${web.report.before.nodes} -> ${web.report.after.nodes}, ` +
          `check ${web.report.verification.ran ? (web.report.verification.ok ? 'ok' : 'FAILED') : 'skipped'})`,
          diffs.length === 0, diffs.join('; '));
    check(`${label}: progress reported`, web.progress > 0, `${web.progress} calls`);
    const wkey = `worker-${timings.length}`;
    const wr = await simplifyInWorker(page, file, options, wkey);
    if (check(`${label}: Worker API succeeds`, wr.ok, wr.message)) {
      const wbytes = received.get(wkey);
      check(`${label}: Worker API bytes equal the CLI's`, Buffer.compare(wbytes, cli.out) === 0,
            `worker ${wbytes.length} B ${sha256(wbytes)} vs CLI ${cli.out.length} B ${sha256(cli.out)}`);
      check(`${label}: Worker report agrees with the CLI's`, reportDiffs(wr.report, cli.report).length === 0,
            reportDiffs(wr.report, cli.report).join('; '));
    }
    timings.push({ model: path.basename(file), options, bytes: fs.statSync(file).size, cli: cli.seconds,
                   page: web.seconds, worker: wr.ok ? wr.seconds : NaN,
                   check: (web.report.stages || []).find((s) => s.name === 'check') });
  }

  // inspect and verify answer too, and an invalid model rejects with the CLI's message and code.
  const fixture = modelPath('resnet_small.onnx');
  const url = serve(fixture);
  const iv = await page.evaluate(async (url) => {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const info = await onnxtrim.inspect(bytes);
    const r = await onnxtrim.simplify(bytes, {});
    const v = await onnxtrim.verify(bytes, r.model, {});
    return { info, v };
  }, url);
  check('inspect() answers with an object', iv.info && typeof iv.info === 'object', JSON.stringify(iv.info).slice(0, 200));
  check('verify(original, simplified) passes', iv.v && (iv.v.ok === true || (iv.v.verification && iv.v.verification.ok === true)),
        JSON.stringify(iv.v).slice(0, 300));

  const bad = path.join(work, 'not_a_model.onnx');
  fs.writeFileSync(bad, 'this is not a protobuf\n');
  const cliBad = runCli(bad, path.join(work, 'not_a_model.out.onnx'), {});
  const webBad = await simplifyInPage(page, bad, {}, 'bad');
  check(`invalid model: the API rejects with an Error and the CLI's exit code (${cliBad.code})`,
        !webBad.ok && webBad.isError && webBad.exitCode === cliBad.code, JSON.stringify(webBad));
  const want = cliMessage(cliBad.stderr);
  check(`invalid model: the API's message is the CLI's ("${want}")`, !webBad.ok && webBad.message === want,
        `"${webBad.message}"`);
  const webUsage = await simplifyInPage(page, fixture, { 'no-such-option': true }, 'usage');
  const cliUsage = spawnSync(args.cli, [fixture, path.join(work, 'u.onnx'), '--no-such-option'], { encoding: 'utf8' });
  check(`unknown option: exit code ${cliUsage.status} as the CLI's`, !webUsage.ok && webUsage.exitCode === cliUsage.status,
        JSON.stringify(webUsage));
  return { timings, version };
}

// ------------------------------------------------------------------ the page

async function setOptions(page, o) {
  const fill = async (sel, v) => {
    await page.$eval(sel, (e) => { e.value = ''; });
    if (v !== undefined && v !== '') await page.type(sel, String(v));
  };
  await fill('#opt-dim', o.dim);
  await fill('#opt-input-shape', o['input-shape']);
  await fill('#opt-opset', o.opset);
  await page.select('#opt-dtype', o.dtype || '');
  await page.select('#opt-target', o.target || '');
  const verify = await page.$eval('#opt-verify', (e) => e.checked);
  if (verify === !!o['no-verify']) await page.click('#opt-verify');
  await fill('#opt-extra', o.extra);
}

// Runs the page: picks the files, sets the options, clicks Simplify, waits for the result or
// the error. Returns what the page shows.
async function runPage(page, modelFile, dataFiles, options, how = 'input') {
  if (how === 'drop') {
    // files dropped together on the drop zone (a DataTransfer made in the page)
    const urls = [modelFile, ...dataFiles].map((f) => [serve(f), path.basename(f)]);
    await page.evaluate(async (urls) => {
      const dt = new DataTransfer();
      for (const [url, name] of urls) {
        const blob = await (await fetch(url)).blob();
        dt.items.add(new File([blob], name));
      }
      const zone = document.getElementById('drop-zone');
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, urls);
    await page.waitForFunction((name) => document.getElementById('chosen-model').textContent === name, { timeout: 30000 },
                               path.basename(modelFile));
  } else if (how === 'folder') {
    // the model's folder picked whole (webkitdirectory): the page finds the .onnx in it
    const input = await page.$('#folder-input');
    await input.uploadFile(path.dirname(modelFile));
    await page.waitForFunction((name) => document.getElementById('chosen-model').textContent.endsWith('/' + name),
                               { timeout: 30000 }, path.basename(modelFile));
  } else {
    const input = await page.$('#model-input');
    await input.uploadFile(modelFile);
    const dataInput = await page.$('#data-input');
    if (dataFiles.length) await dataInput.uploadFile(...dataFiles);
  }
  await setOptions(page, options);
  await page.waitForFunction(() => !document.getElementById('run').disabled, { timeout: 60000 });
  const t0 = Date.now();
  await page.click('#run');
  // the page stays responsive while the Worker works: the main thread answers at once
  const probe = Date.now();
  await page.evaluate(() => 1);
  const responsive = Date.now() - probe;
  await page.waitForFunction(() => !document.getElementById('result').hidden || !document.getElementById('error').hidden,
                             { timeout: 600000 });
  const seconds = (Date.now() - t0) / 1000;
  const shown = await page.evaluate(() => {
    const text = (id) => { const e = document.getElementById(id); return e ? e.textContent.trim() : null; };
    return {
      error: document.getElementById('error').hidden ? null : text('error-message'),
      errorCode: text('error-code'),
      nodesBefore: text('sum-nodes-before'),
      nodesAfter: text('sum-nodes-after'),
      verdict: document.getElementById('verdict-text') ? document.getElementById('verdict-text').getAttribute('data-ok') : null,
      verdictText: text('verdict-text'),
      checkRows: Array.from(document.querySelectorAll('#check-table tbody tr')).map((tr) =>
        Array.from(tr.children).map((td) => td.textContent.trim())),
      histogram: Array.from(document.querySelectorAll('#histogram-table tbody tr')).map((tr) =>
        Array.from(tr.children).slice(0, 3).map((td) => td.textContent.trim())),
      downloads: Array.from(document.querySelectorAll('a.download')).map((a) => ({ id: a.id, name: a.getAttribute('download') })),
    };
  });
  return { ...shown, seconds, responsive };
}

// Clicks a download link and returns the file Chromium saved.
async function download(page, cdp, dir, selector, name) {
  const file = path.join(dir, name);
  fs.rmSync(file, { force: true });
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('download timed out: ' + name)), 120000);
    const onProgress = (e) => {
      if (e.state === 'completed' || e.state === 'canceled') {
        clearTimeout(timer);
        cdp.off('Browser.downloadProgress', onProgress);
        if (e.state === 'completed') resolve();
        else reject(new Error('download canceled: ' + name));
      }
    };
    cdp.on('Browser.downloadProgress', onProgress);
  });
  await page.click(selector);
  await done;
  return fs.readFileSync(file);
}

async function pageCases(browser, page) {
  console.log('\nThe page (file input, options, report, download):');
  const cdp = await browser.target().createCDPSession();
  const dlDir = path.join(work, 'downloads');
  fs.mkdirSync(dlDir, { recursive: true });
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dlDir, eventsEnabled: true });

  // 1. a fixture through the file input, with options set in the form
  // The form's --target list is the CLI's target table, in its order (none first).
  const cliTargets = spawnSync(args.cli, [modelPath('resnet_small.onnx'), path.join(work, 't.onnx'), '--target', '?'],
                               { encoding: 'utf8' }).stderr.match(/known: ([^)]*)\)/);
  const pageTargets = await page.$$eval('#opt-target option', (os) => os.map((o) => o.value));
  check(`the form's targets are the CLI's (${pageTargets.slice(1).join(', ')})`,
        cliTargets && JSON.stringify(pageTargets) === JSON.stringify(['', ...cliTargets[1].split(', ')]),
        `page ${JSON.stringify(pageTargets)} vs CLI ${cliTargets && cliTargets[1]}`);

  const cases = [
    ['resnet_small.onnx', {}],
    ['bert_tiny.onnx', { opset: 23, dim: 'batch=1' }],
    ['groupnorm_unet_tiny.onnx', { target: 'tensorrt', opset: 21 }],
  ];
  let screenshotDone = false;
  for (const [name, options] of cases) {
    const file = modelPath(name);
    const label = `page: ${name} ${JSON.stringify(options)}`;
    const cli = runCli(file, path.join(work, path.basename(file, '.onnx') + '.cli.onnx'), options);
    const shown = await runPage(page, file, [], options);
    if (!check(`${label}: a report is shown (${shown.seconds.toFixed(2)} s)`, !shown.error, shown.error)) continue;
    check(`${label}: the main thread stays responsive (${shown.responsive} ms)`, shown.responsive < 1000);
    check(`${label}: node counts shown ${shown.nodesBefore} -> ${shown.nodesAfter} are the CLI's`,
          shown.nodesBefore === String(cli.report.before.nodes) && shown.nodesAfter === String(cli.report.after.nodes),
          `CLI ${cli.report.before.nodes} -> ${cli.report.after.nodes}`);
    check(`${label}: the check's verdict shown is passed`, shown.verdict === 'true' && cli.report.verification.ok === true,
          shown.verdictText);
    const outs = cli.report.verification.outputs.map((o) => o.name);
    check(`${label}: the check's table lists the CLI's outputs (${outs.join(', ')}) as ok`,
          JSON.stringify(shown.checkRows.map((r) => [r[0], r[3]])) === JSON.stringify(outs.map((o) => [o, 'ok'])),
          JSON.stringify(shown.checkRows));
    const hist = Object.keys({ ...cli.report.before.op_histogram, ...cli.report.after.op_histogram }).sort().map((op) =>
      [op, String(cli.report.before.op_histogram[op] || '·'), String(cli.report.after.op_histogram[op] || '·')]);
    check(`${label}: the op histogram shown is the CLI's (${hist.length} op types)`,
          JSON.stringify(shown.histogram) === JSON.stringify(hist), JSON.stringify(shown.histogram));
    const link = shown.downloads.find((d) => d.id === 'download-model');
    if (!check(`${label}: a download is offered (${link && link.name})`, !!link)) continue;
    const got = await download(page, cdp, dlDir, '#download-model', link.name);
    check(`${label}: the downloaded file (${got.length} B) is the CLI's output byte for byte`,
          Buffer.compare(got, cli.out) === 0, `download ${sha256(got)} vs CLI ${sha256(cli.out)}`);
    const shotEnv = process.env.UPDATE_SCREENSHOT || '';
    if (!screenshotDone && shotEnv && shotEnv !== '0' && name === 'bert_tiny.onnx') {
      const shot = shotEnv.endsWith('.png') ? path.resolve(shotEnv) : path.join(REPO, 'docs', 'web-page.png');
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1280, height: 900 } });
      console.log(`  wrote ${shot} (${fs.statSync(shot).size} B)`);
      screenshotDone = true;
    }
  }

  // 2. a model with external data, picked with its data file
  const extDir = path.join(work, 'external');
  fs.rmSync(extDir, { recursive: true, force: true });
  fs.mkdirSync(extDir);
  const extModel = path.join(extDir, 'resnet_ext.onnx');
  const py = spawnSync('/usr/bin/python3', ['-c', `
import onnx, sys
m = onnx.load(sys.argv[1])
onnx.save_model(m, sys.argv[2], save_as_external_data=True, all_tensors_to_one_file=True,
                location='resnet_ext.weights', size_threshold=1024)
`, modelPath('resnet_small.onnx'), extModel], { encoding: 'utf8' });
  if (check('external data: a model with its weights in resnet_ext.weights is made (python3 + onnx)',
            py.status === 0 && fs.existsSync(path.join(extDir, 'resnet_ext.weights')), py.stderr)) {
    const dataFile = path.join(extDir, 'resnet_ext.weights');
    const shown = await runPage(page, extModel, [dataFile], {});
    if (check('external data: the page shows a report', !shown.error, shown.error)) {
      check(`external data: the check passed (${shown.nodesBefore} -> ${shown.nodesAfter} nodes)`, shown.verdict === 'true',
            shown.verdictText);
      const modelLink = shown.downloads.find((d) => d.id === 'download-model');
      const dataLinks = shown.downloads.filter((d) => d.id !== 'download-model');
      check(`external data: the model and its data file(s) are offered (${shown.downloads.map((d) => d.name).join(', ')})`,
            !!modelLink && dataLinks.length >= 1);
      // The CLI writes OUT and OUT's data file beside it: OUT is named so that the data file's name
      // is the one the page offers (the name the model refers to).
      const dataName = dataLinks.length ? dataLinks[0].name : 'x.data';
      const outDir = path.join(work, 'external-cli');
      fs.rmSync(outDir, { recursive: true, force: true });
      fs.mkdirSync(outDir);
      const cliOut = path.join(outDir, dataName.replace(/\.data$/, ''));
      const cli = runCli(extModel, cliOut, {});
      check(`external data: the CLI succeeds`, cli.code === 0, cli.stderr);
      if (cli.code === 0 && modelLink) {
        const got = await download(page, cdp, dlDir, '#download-model', modelLink.name);
        check(`external data: the downloaded model (${got.length} B) is the CLI's byte for byte`,
              Buffer.compare(got, cli.out) === 0, `download ${sha256(got)} vs CLI ${sha256(cli.out)}`);
        const cliFiles = fs.readdirSync(outDir).filter((f) => f !== path.basename(cliOut) && !f.endsWith('.report.json')).sort();
        check(`external data: the page offers the data files the CLI writes (${cliFiles.join(', ')})`,
              JSON.stringify(dataLinks.map((d) => d.name).sort()) === JSON.stringify(cliFiles),
              JSON.stringify(dataLinks.map((d) => d.name)));
        for (const d of dataLinks) {
          const gotData = await download(page, cdp, dlDir, '#' + d.id, d.name);
          const cliData = path.join(outDir, d.name);
          check(`external data: ${d.name} (${gotData.length} B) is the CLI's byte for byte`,
                fs.existsSync(cliData) && Buffer.compare(gotData, fs.readFileSync(cliData)) === 0,
                fs.existsSync(cliData) ? `${sha256(gotData)} vs ${sha256(fs.readFileSync(cliData))}` : 'the CLI wrote no such file');
        }
      }
    }
    // the same model without its data file: the CLI's error, nothing to download
    await page.reload({ waitUntil: 'load' });
    await waitReady(page);
    const aloneDir = path.join(work, 'external-alone');
    fs.rmSync(aloneDir, { recursive: true, force: true });
    fs.mkdirSync(aloneDir);
    fs.copyFileSync(extModel, path.join(aloneDir, path.basename(extModel)));
    const cliMissing = runCli(path.join(aloneDir, path.basename(extModel)), path.join(work, 'ext_missing.onnx'), {});
    const shown2 = await runPage(page, extModel, [], {});
    const wantMissing = cliMessage(cliMissing.stderr);
    check(`external data missing: the page shows the CLI's error ("${wantMissing}", exit ${cliMissing.code})`,
          cliMissing.code !== 0 && !!shown2.error && shown2.errorCode === String(cliMissing.code) &&
          shown2.error === wantMissing, `page: "${shown2.error}" exit ${shown2.errorCode}`);
    check('external data missing: no download offered', shown2.downloads.length === 0);
  }

  // 2b. the same model and its data file dropped together on the page
  if (fs.existsSync(path.join(extDir, 'resnet_ext.weights'))) {
    await page.reload({ waitUntil: 'load' });
    await waitReady(page);
    const extCli = runCli(extModel, path.join(work, 'ext_drop.cli.onnx'), {});
    const shown = await runPage(page, extModel, [path.join(extDir, 'resnet_ext.weights')], {}, 'drop');
    check(`external data, dropped with its data file: a report (${shown.nodesBefore} -> ${shown.nodesAfter} nodes), check passed`,
          !shown.error && shown.verdict === 'true' && extCli.code === 0 &&
          shown.nodesAfter === String(extCli.report.after.nodes), shown.error || shown.verdictText);
    await page.reload({ waitUntil: 'load' });
    await waitReady(page);
    const shownF = await runPage(page, extModel, [], {}, 'folder');
    check(`external data, its folder picked: a report (${shownF.nodesBefore} -> ${shownF.nodesAfter} nodes), check passed`,
          !shownF.error && shownF.verdict === 'true' && extCli.code === 0 &&
          shownF.nodesAfter === String(extCli.report.after.nodes), shownF.error || shownF.verdictText);
  }

  // 2c. more models (ONNXTRIM_WEB_MODELS, e.g. bench/'s) through the page, with the default check
  const big = [];
  for (const m of (process.env.ONNXTRIM_WEB_MODELS || '').split(':').filter(Boolean)) {
    const file = path.resolve(m);
    const label = `page: ${path.basename(file)}`;
    await page.reload({ waitUntil: 'load' });
    await waitReady(page);
    const cli = runCli(file, path.join(work, path.basename(file, '.onnx') + '.cli.onnx'), {});
    if (!check(`${label}: the CLI succeeds (${cli.seconds.toFixed(2)} s)`, cli.code === 0, cli.stderr)) continue;
    const shown = await runPage(page, file, [], {});
    if (!check(`${label}: a report is shown (${shown.seconds.toFixed(2)} s)`, !shown.error, shown.error)) continue;
    const v = cli.report.verification;
    check(`${label}: the check's verdict is the CLI's (${v.ran ? (v.ok ? 'passed' : 'failed') : 'skipped'})`,
          shown.verdict === (v.ran ? String(v.ok) : 'skipped'), shown.verdictText);
    check(`${label}: node counts ${shown.nodesBefore} -> ${shown.nodesAfter} are the CLI's`,
          shown.nodesAfter === String(cli.report.after.nodes) && shown.nodesBefore === String(cli.report.before.nodes));
    const link = shown.downloads.find((d) => d.id === 'download-model');
    let same = false;
    if (link) {
      const got = await download(page, cdp, dlDir, '#download-model', link.name);
      same = Buffer.compare(got, cli.out) === 0;
      check(`${label}: the download (${got.length} B) is the CLI's output byte for byte`, same,
            `download ${sha256(got)} vs CLI ${sha256(cli.out)}`);
      fs.rmSync(path.join(dlDir, link.name), { force: true });
    }
    big.push({ model: path.basename(file), bytes: fs.statSync(file).size, cli: cli.seconds, page: shown.seconds,
               check: v.ran ? (shown.verdict === 'true' ? 'passed' : 'failed') : 'skipped', same });
  }

  // 2d. Cancel at once: no result, no error, and onnxtrim restarts ready for the next job (the
  // invalid model below runs after it)
  await page.reload({ waitUntil: 'load' });
  await waitReady(page);
  await (await page.$('#model-input')).uploadFile(modelPath('resnet_small.onnx'));
  await page.waitForFunction(() => !document.getElementById('run').disabled, { timeout: 60000 });
  const afterCancel = await page.evaluate(() => {
    document.getElementById('run').click();
    document.getElementById('cancel').click();
    return document.getElementById('status').textContent;
  });
  await page.waitForFunction(() => document.getElementById('status').textContent === 'Ready.', { timeout: 60000 });
  await new Promise((r) => setTimeout(r, 1500));
  const leftover = await page.evaluate(() => ({
    result: !document.getElementById('result').hidden, error: !document.getElementById('error').hidden,
    runDisabled: document.getElementById('run').disabled }));
  check(`cancel: the job is dropped ("${afterCancel}"), nothing shown after it, Simplify enabled again`,
        afterCancel.startsWith('Cancelled') && !leftover.result && !leftover.error && !leftover.runDisabled,
        JSON.stringify(leftover));

  // 3. an invalid model: the CLI's message, no download
  const bad = path.join(work, 'broken.onnx');
  fs.writeFileSync(bad, Buffer.from('not an onnx model at all, just text\n'));
  const cliBad = runCli(bad, path.join(work, 'broken.out.onnx'), {});
  const want = cliMessage(cliBad.stderr);
  const shown = await runPage(page, bad, [], {});
  check(`invalid model: the page shows the CLI's error ("${want}", exit ${cliBad.code})`,
        !!shown.error && shown.error.includes(want) && shown.errorCode === String(cliBad.code),
        `page: "${shown.error}" exit ${shown.errorCode}`);
  check('invalid model: no download offered', shown.downloads.length === 0, JSON.stringify(shown.downloads));
  check('invalid model: no report shown', shown.nodesAfter === null);
  const files = fs.readdirSync(dlDir);
  check(`downloads folder holds only what was clicked (${files.length} files)`, !files.some((f) => f.startsWith('broken')),
        files.join(', '));
  return big;
}

// Offline once loaded: the service worker's copy serves the site when the server is gone. A page
// without request interception (which would bypass the service worker).
async function offlineCase(browser, origin) {
  console.log('\nOffline, once loaded:');
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(`console.error: ${m.text()}`);
  });
  await page.goto(origin + '/index.html', { waitUntil: 'load' });
  await waitReady(page);
  const controlled = await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    return true;
  });
  check('the service worker is installed', controlled);
  await page.reload({ waitUntil: 'load' });
  await waitReady(page);
  serverOffline = true;
  try {
    await page.reload({ waitUntil: 'load' });
    await waitReady(page);
    check('with the server gone, the page reloads and onnxtrim starts', true);
    const file = modelPath('resnet_small.onnx');
    const cli = runCli(file, path.join(work, 'offline.cli.onnx'), {});
    const shown = await runPage(page, file, [], {});
    check(`offline: resnet_small simplified and checked (${shown.nodesBefore} -> ${shown.nodesAfter} nodes)`,
          !shown.error && shown.verdict === 'true' && shown.nodesAfter === String(cli.report.after.nodes),
          shown.error || shown.verdictText);
  } catch (e) {
    check('offline: the page works with the server gone', false, e.message);
  } finally {
    serverOffline = false;
    await page.close();
  }
}

// ------------------------------------------------------------------ main

async function main() {
  for (const f of ['index.html', 'app.js', 'worker.js', 'onnxtrim.js']) {
    if (!fs.existsSync(path.join(args.site, f))) {
      console.error(`web test: ${path.join(args.site, f)} is missing: build the site first (scripts/web.sh)`);
      process.exit(1);
    }
  }
  const wasm = fs.readdirSync(args.site).filter((f) => f.endsWith('.wasm'));
  const server = await startServer(args.site);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: [
      ...(process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : []),
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--disable-default-apps', '--disable-domain-reliability', '--metrics-recording-only',
    ],
  });
  browser.on('targetcreated', watchTarget);
  let result = { timings: [] };
  try {
    console.log(`site ${args.site} at ${origin}; ${await browser.version()}; ` +
                wasm.map((w) => `${w} ${(fs.statSync(path.join(args.site, w)).size / 1048576).toFixed(2)} MiB`).join(', '));
    const page = await newPage(browser, origin);
    await waitReady(page);
    check('the page loads and its Worker starts onnxtrim', true);
    await page.addScriptTag({ url: origin + '/onnxtrim.js' });
    result = await apiCases(page);
    await page.reload({ waitUntil: 'load' });
    await waitReady(page);
    result.big = await pageCases(browser, page);
    await page.close();
    await offlineCase(browser, origin);
  } catch (e) {
    check('the run completes', false, e.stack || String(e));
  } finally {
    await browser.close();
    server.close();
  }

  check(`no request for a host other than 127.0.0.1 (${requestLog.length} requests served)`, violations.length === 0,
        violations.slice(0, 10).join(', '));
  check('no page error and no console error', pageErrors.length === 0, pageErrors.slice(0, 10).join(' | '));

  if (result.timings.length) {
    console.log('\nTime, Chromium (JS API in the page, in a Worker) against the native CLI (process wall time):');
    console.log('  model                         bytes     CLI s    page s  worker s   page/CLI');
    for (const t of result.timings) {
      console.log(`  ${(t.model + (Object.keys(t.options).length ? ' *' : '')).padEnd(26)} ${String(t.bytes).padStart(9)} ` +
                  `${t.cli.toFixed(3).padStart(8)} ${t.page.toFixed(3).padStart(9)} ${t.worker.toFixed(3).padStart(9)} ` +
                  `${(t.page / t.cli).toFixed(1).padStart(9)}x`);
    }
    const sum = (k) => result.timings.reduce((a, t) => a + t[k], 0);
    console.log(`  ${'total'.padEnd(26)} ${''.padStart(9)} ${sum('cli').toFixed(3).padStart(8)} ${sum('page').toFixed(3).padStart(9)} ` +
                `${sum('worker').toFixed(3).padStart(9)} ${(sum('page') / sum('cli')).toFixed(1).padStart(9)}x`);
    console.log('  (* with options; the CLI time includes its process start, the page time is the simplify() call)');
  }
  if ((result.big || []).length) {
    console.log('\nThrough the page (file input to report, the default check), against the native CLI:');
    console.log('  model                          MB     CLI s    page s   page/CLI  check    bytes');
    for (const t of result.big) {
      console.log(`  ${t.model.padEnd(26)} ${(t.bytes / 1e6).toFixed(1).padStart(7)} ${t.cli.toFixed(2).padStart(9)} ` +
                  `${t.page.toFixed(2).padStart(9)} ${(t.page / t.cli).toFixed(1).padStart(9)}x  ${t.check.padEnd(8)} ` +
                  `${t.same ? 'equal' : 'DIFFER'}`);
    }
  }
  if (failures.length) console.log('\nfailed:\n  ' + failures.join('\n  '));
  // the temporary folder goes when all passed (kept to look at otherwise, or when --work is given)
  if (!failed && !args.work) fs.rmSync(work, { recursive: true, force: true });
  else console.log(`files kept in ${work}`);
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e.stack || String(e));
  process.exit(1);
});
