/* onnxtrim in JavaScript: globalThis.onnxtrim, in a page (<script src="onnxtrim.js">), a Worker
 * (importScripts("onnxtrim.js")) and Node (require("./build-web/site/onnxtrim.js")).
 *
 *   await onnxtrim.ready;
 *   const {model, report, files} = await onnxtrim.simplify(bytes, {dim: "batch=1", "no-verify": true});
 *
 * Every call writes the model (and extra.files, its external data) into emscripten's in-memory
 * file system and runs the C API there (include/onnxtrim/onnxtrim.h): the entry the CLI uses,
 * with the CLI's options table, so the bytes are the CLI's. docs/web.md describes the API.
 * Loads onnxtrim-core.js and onnxtrim-core.wasm from its own folder; nothing from elsewhere.
 * (scripts/web.sh writes this file with the version filled in.) */
(function (root) {
  "use strict";
  const VERSION = "@PROJECT_VERSION@";
  const isNode = typeof process === "object" && process.versions != null && process.versions.node != null &&
    typeof window === "undefined" && typeof importScripts !== "function";
  const isWorker = !isNode && typeof importScripts === "function";

  // The folder this file was loaded from (the core files are beside it).
  function baseUrl() {
    if (typeof root.onnxtrimBase === "string") return root.onnxtrimBase.replace(/\/?$/, "/");
    if (isNode) return __dirname + "/";
    if (typeof document !== "undefined" && document.currentScript && document.currentScript.src)
      return document.currentScript.src.replace(/[^/]*([?#].*)?$/, "");
    if (root.location && root.location.href) return root.location.href.replace(/[^/]*([?#].*)?$/, "");
    return "./";
  }
  const base = baseUrl();

  function loadFactory() {
    if (isNode) return Promise.resolve(require(base + "onnxtrim-core.js"));
    if (isWorker) {
      importScripts(base + "onnxtrim-core.js");
      return Promise.resolve(root.createOnnxtrimCore);
    }
    return new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = base + "onnxtrim-core.js";
      s.onload = () => resolve(root.createOnnxtrimCore);
      s.onerror = () => reject(new Error("onnxtrim: cannot load " + s.src));
      document.head.appendChild(s);
    });
  }

  let core = null;
  let progressFn = 0;
  let onProgress = null;  // the running call's callback
  let jobs = 0;

  const ready = loadFactory().then((factory) => {
    const settings = {locateFile: (p) => base + p, print: () => {}, printErr: () => {}};
    if (isNode) settings.wasmBinary = require("fs").readFileSync(base + "onnxtrim-core.wasm");
    return factory(settings);
  }).then((m) => {
    core = m;
    progressFn = core.addFunction((stage, done, total) => {
      if (!onProgress) return;
      const s = core.UTF8ToString(stage);
      const r = /^round (\d+): (.*)$/.exec(s);
      const info = r ? {round: Number(r[1]), pass: r[2]} : {round: 0, pass: s};
      info.stage = s;
      info.done = done;
      info.total = total;
      try {
        onProgress(info);
      } catch (e) { /* a failing callback does not stop the run */ }
    }, "viddi");
  });

  // ---- C strings and out-pointers
  function cstr(s) {
    const n = core.lengthBytesUTF8(s) + 1;
    const p = core._malloc(n);
    core.stringToUTF8(s, p, n);
    return p;
  }
  function withOut(count, f) {
    const p = core._malloc(4 * count);
    for (let i = 0; i < count; ++i) core.setValue(p + 4 * i, 0, "i32");
    try {
      return f((i) => p + 4 * i);
    } finally {
      core._free(p);
    }
  }
  function takeString(pp) {
    const p = core.getValue(pp, "i32");
    if (!p) return null;
    const s = core.UTF8ToString(p);
    core._onnxtrim_free(p);
    return s;
  }
  function fail(message, exitCode, extra) {
    const e = new Error(message);
    e.exitCode = exitCode;
    if (extra) Object.assign(e, extra);
    return e;
  }

  // ---- the in-memory file system: one folder per call, removed after it
  function mkdirs(FS, path) {
    let cur = "";
    for (const part of path.split("/").filter((x) => x)) {
      cur += "/" + part;
      try {
        FS.mkdir(cur);
      } catch (e) { /* exists */ }
    }
  }
  function rmTree(FS, path) {
    let st;
    try {
      st = FS.stat(path);
    } catch (e) {
      return;
    }
    if (FS.isDir(st.mode)) {
      for (const n of FS.readdir(path)) if (n !== "." && n !== "..") rmTree(FS, path + "/" + n);
      FS.rmdir(path);
    } else {
      FS.unlink(path);
    }
  }
  function listFiles(FS, dir, prefix, out) {
    for (const n of FS.readdir(dir)) {
      if (n === "." || n === "..") continue;
      const p = dir + "/" + n;
      if (FS.isDir(FS.stat(p).mode)) listFiles(FS, p, prefix + n + "/", out);
      else out[prefix + n] = FS.readFile(p);
    }
    return out;
  }
  // A relative path inside the job's folder: no absolute paths, no "..".
  function checkName(name, what) {
    if (typeof name !== "string" || name === "" || name.startsWith("/") || name.split(/[\\/]/).includes(".."))
      throw fail(what + ": '" + name + "' must be a relative path inside the model's folder", 2);
    return name;
  }
  function toBytes(x, what) {
    if (x instanceof Uint8Array) return x;
    if (x instanceof ArrayBuffer) return new Uint8Array(x);
    if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    throw fail(what + " must be a Uint8Array or an ArrayBuffer", 2);
  }

  // Runs f(job folder) with the model files written to job/in and job/in as the working folder.
  function inJob(models, extra, f) {
    const FS = core.FS;
    const job = "/jobs/" + ++jobs;
    mkdirs(FS, job + "/in");
    mkdirs(FS, job + "/out");
    try {
      const files = (extra && extra.files) || {};
      for (const name of Object.keys(files)) {
        checkName(name, "extra.files");
        const p = job + "/in/" + name;
        mkdirs(FS, p.slice(0, p.lastIndexOf("/")));
        FS.writeFile(p, toBytes(files[name], "extra.files['" + name + "']"));
      }
      for (const [name, bytes] of models) FS.writeFile(job + "/in/" + checkName(name, "model name"), toBytes(bytes, "the model"));
      FS.chdir(job + "/in");
      return f(job);
    } finally {
      FS.chdir("/");
      rmTree(FS, job);
    }
  }

  // Options: the CLI's long names as keys; true for a flag, an array for a repeated option.
  function makeOptions(options) {
    const o = core._onnxtrim_options_new();
    try {
      for (const key of Object.keys(options || {})) {
        const v = options[key];
        if (v === undefined || v === null) continue;
        const values = Array.isArray(v) ? v : [v];
        for (const x of values) {
          let s;
          if (x === true) s = "";
          else if (x === false) s = "false";
          else if (typeof x === "number" || typeof x === "string" || typeof x === "bigint") s = String(x);
          else throw fail("--" + key + ": takes a string, a number, true/false or an array of them", 2);
          const name = cstr(key), value = cstr(s);
          try {
            withOut(1, (out) => {
              const rc = core._onnxtrim_options_try_set(o, name, value, out(0));
              const msg = takeString(out(0));
              if (rc !== 0) throw fail(msg || "--" + key + ": bad value", rc);
            });
          } finally {
            core._free(name);
            core._free(value);
          }
        }
      }
      return o;
    } catch (e) {
      core._onnxtrim_options_free(o);
      throw e;
    }
  }

  function call(extra, f) {
    return ready.then(() => {
      onProgress = extra && typeof extra.onProgress === "function" ? extra.onProgress : null;
      try {
        return f();
      } finally {
        onProgress = null;
      }
    });
  }

  function simplify(bytes, options, extra) {
    return call(extra, () => {
      const name = (extra && extra.name) || "model.onnx";
      const o = makeOptions(options);
      try {
        core._onnxtrim_options_set_progress(o, progressFn, 0);
        return inJob([[name, bytes]], extra, (job) => {
          const inPath = cstr(name), outPath = cstr(job + "/out/" + name);
          try {
            return withOut(2, (out) => {
              const rc = core._onnxtrim_simplify_file(inPath, outPath, o, out(0), out(1));
              const reportText = takeString(out(0));
              const msg = takeString(out(1));
              const report = reportText ? JSON.parse(reportText) : null;
              if (rc !== 0) throw fail(msg || "onnxtrim failed", rc, report ? {report} : undefined);
              const files = listFiles(core.FS, job + "/out", "", {});
              const model = files[name];
              delete files[name];
              return {model, report, files};
            });
          } finally {
            core._free(inPath);
            core._free(outPath);
          }
        });
      } finally {
        core._onnxtrim_options_free(o);
      }
    });
  }

  function inspect(bytes, extra) {
    return call(extra, () => {
      const name = (extra && extra.name) || "model.onnx";
      return inJob([[name, bytes]], extra, () => {
        const p = cstr(name);
        try {
          return withOut(2, (out) => {
            const rc = core._onnxtrim_inspect_file(p, out(0), out(1));
            const js = takeString(out(0));
            const msg = takeString(out(1));
            if (rc !== 0) throw fail(msg || "onnxtrim inspect failed", rc);
            return JSON.parse(js);
          });
        } finally {
          core._free(p);
        }
      });
    });
  }

  // Resolves with the check's JSON, also when the outputs differ (then .ok is false); rejects
  // when the check cannot run (the CLI's message and exit code).
  function verify(a, b, options, extra) {
    return call(extra, () => {
      const names = (extra && extra.names) || ["a.onnx", "b.onnx"];
      const o = makeOptions(options);
      try {
        return inJob([[names[0], a], [names[1], b]], extra, () => {
          const pa = cstr(names[0]), pb = cstr(names[1]);
          try {
            return withOut(2, (out) => {
              const rc = core._onnxtrim_verify_files(pa, pb, o, out(0), out(1));
              const js = takeString(out(0));
              const msg = takeString(out(1));
              if (js && (rc === 0 || rc === 1)) return JSON.parse(js);
              throw fail(msg || "onnxtrim verify failed", rc);
            });
          } finally {
            core._free(pa);
            core._free(pb);
          }
        });
      } finally {
        core._onnxtrim_options_free(o);
      }
    });
  }

  const api = {ready: ready.then(() => undefined), version: VERSION, simplify, inspect, verify};
  root.onnxtrim = api;
  if (isNode && typeof module === "object" && module.exports) module.exports = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
