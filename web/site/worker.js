// onnxtrim's page runs every job here, off the page's thread, so that the page stays responsive
// while a model is simplified and checked. The page sends one job at a time:
//   {id, cmd: 'simplify', bytes, options, files, name}   -> progress messages, then done or error
//   {id, cmd: 'inspect', bytes, files, name}
// (name: the model's file name, which messages and the external-data file names follow, as the
// CLI's do for a model of that name)
// and receives {type: 'ready', version} once the module has loaded (or {type: 'fatal', message}).
'use strict';

let onnxtrimWorkerLoadError = null;
try {
  importScripts('onnxtrim.js');
} catch (e) {
  onnxtrimWorkerLoadError = e;
}

// The bytes handed back are moved, not copied, when they own their whole buffer (a result can be
// hundreds of MB); a view into memory that is not ours to give away is copied once.
function ownBytes(u8) {
  if (u8 && u8.byteOffset === 0 && u8.byteLength === u8.buffer.byteLength &&
      !(typeof SharedArrayBuffer !== 'undefined' && u8.buffer instanceof SharedArrayBuffer)) {
    return u8;
  }
  return u8.slice();
}

function post(message, buffers) {
  try {
    postMessage(message, buffers);
  } catch (e) {
    // A buffer that cannot be transferred (wasm memory): send copies instead.
    postMessage(message);
  }
}

if (onnxtrimWorkerLoadError || typeof onnxtrim === 'undefined') {
  postMessage({ type: 'fatal', message: 'could not load onnxtrim.js: ' +
    String((onnxtrimWorkerLoadError && onnxtrimWorkerLoadError.message) || 'globalThis.onnxtrim is missing') });
} else {
  onnxtrim.ready.then(
    () => postMessage({ type: 'ready', version: onnxtrim.version }),
    (e) => postMessage({ type: 'fatal', message: 'onnxtrim did not start: ' + String((e && e.message) || e) }));
}

onmessage = async (ev) => {
  const job = ev.data || {};
  const id = job.id;
  try {
    await onnxtrim.ready;
    if (job.cmd === 'simplify') {
      const started = performance.now();
      const result = await onnxtrim.simplify(job.bytes, job.options || {}, {
        files: job.files || {},
        name: job.name,
        onProgress: (info) => postMessage({ type: 'progress', id, info: {
          round: info.round, pass: info.pass, stage: info.stage, done: info.done, total: info.total } }),
      });
      const model = ownBytes(result.model);
      const files = {};
      const buffers = [model.buffer];
      for (const [name, bytes] of Object.entries(result.files || {})) {
        files[name] = ownBytes(bytes);
        buffers.push(files[name].buffer);
      }
      post({ type: 'done', id, model, files, report: result.report,
             seconds: (performance.now() - started) / 1000 }, buffers);
    } else if (job.cmd === 'inspect') {
      const summary = await onnxtrim.inspect(job.bytes, { files: job.files || {}, name: job.name });
      postMessage({ type: 'done', id, summary });
    } else {
      postMessage({ type: 'error', id, message: 'unknown job ' + String(job.cmd), exitCode: 70 });
    }
  } catch (e) {
    postMessage({ type: 'error', id, message: String((e && e.message) || e),
                  exitCode: e && typeof e.exitCode === 'number' ? e.exitCode : 70 });
  }
};
