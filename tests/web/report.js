#!/usr/bin/env node
// The --report FILE.html page in headless Chromium (ctest web.report): the native CLI writes the
// page and the JSON report of one run; Chromium loads the page from file:// and reads its
// elements, which must carry the JSON's numbers. Needs only the CLI and /usr/bin/chromium.
//   node tests/web/report.js CLI [MODEL] [CLI OPTIONS ...]
//   UPDATE_SCREENSHOT=1   also write docs/report.png (the top of the page, 1280x1000)
// Fails on: a table that disagrees with the JSON, a missing SVG, an in-page link without its
// target, any request but the page itself, any page error.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const puppeteer = require('puppeteer-core');

const repo = path.resolve(__dirname, '..', '..');
const [cli, modelArg, ...extra] = process.argv.slice(2);
if (!cli) {
  console.error('usage: node tests/web/report.js CLI [MODEL] [OPTIONS ...]');
  process.exit(2);
}
const model = modelArg || path.join(repo, 'tests', 'models', 'bert_tiny.onnx');

let passed = 0, failed = 0;
function check(what, ok, detail) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? ': ' + detail : ''}`);
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnxtrim-report-'));
  const page = path.join(dir, 'report.html'), json = path.join(dir, 'report.json');
  // Run from the model's folder: the page's title names the model, not this machine's folders.
  const run = spawnSync(path.resolve(cli), [path.basename(model), path.join(dir, 'out.onnx'), '--report', page,
                                            '--json', json, '-q', ...extra],
                        { encoding: 'utf8', cwd: path.dirname(path.resolve(model)) });
  check(`the CLI writes the report of ${path.basename(model)}`, run.status === 0, run.stderr);
  if (run.status !== 0) return;
  const j = JSON.parse(fs.readFileSync(json, 'utf8'));
  const pageUrl = 'file://' + page;

  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      ...(process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : []),
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--disable-default-apps', '--disable-domain-reliability',
    ],
  });
  const requests = [], errors = [];
  try {
    const tab = await browser.newPage();
    await tab.setViewport({ width: 1280, height: 1000 });
    await tab.setRequestInterception(true);
    tab.on('request', (req) => {
      requests.push(req.url());
      if (req.url() === pageUrl) req.continue();
      else req.abort('blockedbyclient');
    });
    tab.on('pageerror', (e) => errors.push(e.message));
    tab.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await tab.goto(pageUrl, { waitUntil: 'load' });

    const got = await tab.evaluate(() => {
      const rows = (id) => [...document.querySelectorAll(`#${id} tbody tr`)].map((tr) =>
        [...tr.children].map((c) => c.textContent));
      const summary = {};
      for (const tr of document.querySelectorAll('#summary tbody tr'))
        summary[tr.dataset.key] = [Number(tr.children[1].textContent), Number(tr.children[2].textContent)];
      const ops = {};
      for (const tr of document.querySelectorAll('#ops tbody tr'))
        ops[tr.dataset.op] = [Number(tr.children[1].textContent), Number(tr.children[2].textContent)];
      const svg = document.querySelector('#rounds svg');
      const line = svg && svg.querySelector('#nodes');
      const links = [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'));
      return {
        summary, ops,
        svgPoints: line ? line.getAttribute('points').trim().split(/\s+/).length : -1,
        svgBox: svg ? [svg.getBoundingClientRect().width, svg.getBoundingClientRect().height] : null,
        stages: rows('stages').map((r) => r[0]),
        passes: rows('passes').map((r) => [r[0], Number(r[1]), Number(r[2]), Number(r[3])]),
        check: rows('check').map((r) => [r[0], r[1]]),
        checkStatus: (document.getElementById('check-status') || {}).className,
        removed: rows('diff-removed').length,
        added: rows('diff-added').length,
        diffLinks: document.querySelectorAll('#diff-removed a, #diff-added a').length,
        rewrites: [...document.querySelectorAll('#diff-rewrites tbody tr')].map((tr) => tr.dataset.pass),
        rewriteLinks: [...document.querySelectorAll('#diff-rewrites a')].map((a) => a.getAttribute('href')),
        backLinks: document.querySelectorAll('#diff-removed a[href^="#rewrite-"], #diff-added a[href^="#rewrite-"]').length,
        links,
        unresolved: links.filter((h) => !h.startsWith('#') || !document.getElementById(h.slice(1))),
        scripts: document.querySelectorAll('script').length,
      };
    });

    const want = {};
    for (const k of ['nodes', 'top_level_nodes', 'initializers', 'initializer_bytes', 'file_bytes'])
      want[k] = [j.before[k], j.after[k]];
    check('before/after table = JSON before/after', JSON.stringify(got.summary) === JSON.stringify(want),
          `${JSON.stringify(got.summary)} vs ${JSON.stringify(want)}`);
    const ops = {};
    for (const op of new Set([...Object.keys(j.before.op_histogram), ...Object.keys(j.after.op_histogram)]))
      ops[op] = [j.before.op_histogram[op] || 0, j.after.op_histogram[op] || 0];
    const sorted = (o) => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
    check(`op histogram table = JSON histograms (${Object.keys(ops).length} ops)`, sorted(got.ops) === sorted(ops),
          `${sorted(got.ops)} vs ${sorted(ops)}`);
    check(`round chart: an inline SVG with one point per round (${j.round_stats.length})`,
          got.svgPoints === j.round_stats.length && got.svgBox && got.svgBox[0] > 0, JSON.stringify(got.svgBox));
    check('stages table = JSON profile', JSON.stringify(got.stages) === JSON.stringify(j.profile.map((s) => s.stage)),
          JSON.stringify(got.stages));
    const passes = j.passes.map((p) => [p.name, p.runs, p.changes, p.nodes_removed]);
    check(`passes table = JSON passes (${passes.length})`, JSON.stringify(got.passes) === JSON.stringify(passes),
          JSON.stringify(got.passes));
    const outs = j.verification.outputs.map((o) => o.name);
    check(`check table: ${outs.length} output(s) by name, ${j.verification.ok ? 'ok' : 'failed'}`,
          JSON.stringify(got.check.map((r) => r[0])) === JSON.stringify(outs) &&
          got.checkStatus === (j.verification.ok ? 'ok' : 'failed'), JSON.stringify(got.check));
    check(`graph diff: ${j.graph_diff.nodes_removed.length} removed, ${j.graph_diff.nodes_added.length} added rows`,
          got.removed === j.graph_diff.nodes_removed.length && got.added === j.graph_diff.nodes_added.length,
          `${got.removed}, ${got.added}`);
    check(`every link (${got.links.length}, ${got.diffLinks} in the diff) is in-page and finds its target`,
          got.unresolved.length === 0 && got.links.length > 0, got.unresolved.slice(0, 5).join(' '));
    check('no script in the page', got.scripts === 0);
    // Provenance: one row per recorded rewrite (the JSON's), its nodes linking to diff rows.
    const rw = j.graph_diff.rewrites || [];
    check(`rewrites table = JSON rewrites (${rw.length} pass runs)`,
          rw.length > 0 && JSON.stringify(got.rewrites) === JSON.stringify(rw.map((w) => w.pass)),
          `${JSON.stringify(got.rewrites).slice(0, 200)} vs ${rw.length}`);
    const toRemoved = got.rewriteLinks.filter((h) => h.startsWith('#removed-')).length;
    const toAdded = got.rewriteLinks.filter((h) => h.startsWith('#added-')).length;
    check(`rewrites link to removed (${toRemoved}) and added (${toAdded}) rows, rows back to rewrites (${got.backLinks})`,
          toRemoved > 0 && toAdded > 0 && got.backLinks > 0);
    // Follow one: a click on a rewrite's removed node targets that row of the removed table, and
    // the row's own link leads back to a rewrite of the same pass.
    if (toRemoved > 0) {
      await tab.click('#diff-rewrites a[href^="#removed-"]');
      const hop = await tab.evaluate(() => {
        const t = document.querySelector(':target');
        const back = t && t.querySelector('a[href^="#rewrite-"]');
        return { hash: location.hash, target: t ? t.id : null, table: t ? t.closest('table').id : null,
                 back: back ? back.getAttribute('href') : null };
      });
      check(`clicking a rewrite's node goes to its row (${hop.hash} -> ${hop.table})`,
            hop.target === hop.hash.slice(1) && hop.table === 'diff-removed', JSON.stringify(hop));
      if (hop.back) {
        await tab.click(`#${hop.target} a[href^="#rewrite-"]`);
        const back = await tab.evaluate(() => {
          const t = document.querySelector(':target');
          return { target: t ? t.id : null, table: t ? t.closest('table').id : null };
        });
        check(`and its row links back to the rewrite (${hop.back})`,
              back.target === hop.back.slice(1) && back.table === 'diff-rewrites', JSON.stringify(back));
      } else {
        check('the row links back to a rewrite', false, JSON.stringify(hop));
      }
    }

    const shotEnv = process.env.UPDATE_SCREENSHOT || '';
    if (shotEnv && shotEnv !== '0') {
      const shot = path.join(repo, 'docs', 'report.png');
      await tab.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1280, height: 1000 } });
      console.log(`wrote ${shot}`);
    }
  } finally {
    await browser.close();
  }
  check(`no request but the page itself (${requests.length})`, requests.every((u) => u === pageUrl), requests.join(' '));
  check('no page error', errors.length === 0, errors.join(' | '));
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => check('the run completes', false, e.stack || String(e))).finally(() => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
});
