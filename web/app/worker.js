// The web app's Web Worker: meshport's WebAssembly module runs here, never on the page's thread.
// It keeps the dropped tree in one workspace (npm/api.mjs) and runs the CLI's commands in it with
// the paths the user sees; what a command writes goes to .meshport/<job>/ (convert: beside its
// input, runBeside) and is taken out of the workspace as soon as it was read, so the workspace
// holds only the user's files.
//
// Messages from the page: {id, op, ...}; answers: {id, ok: true, result} or {id, ok: false,
// error: {message, stderr, status, moduleLost}}; progress: {type: 'progress', text}.
import { workspace, formats } from './meshport/api.mjs';
import { zipSync } from './vendor/fflate.js';

let ws = null;  // the workspace, once made
let making = null;  // its promise
const tree = new Map();  // path -> Blob: what the page gave, to write again into a new module

function space() {
  if (!making) {
    making = (async () => {
      const w = await workspace();
      for (const [path, blob] of tree) w.write(path, new Uint8Array(await blob.arrayBuffer()));
      ws = w;
      return w;
    })();
    making.catch(() => { making = null; });
  }
  return making;
}
// The module loads as soon as the worker starts, not at the first command.
space().catch(() => {});

function progress(text) { postMessage({ type: 'progress', text }); }

// Every file under `dir` (a folder of the workspace) leaves it: {relative path: bytes}.
function take(files, dir) {
  const out = {};
  for (const [path, bytes] of Object.entries(files)) {
    if (path.startsWith(`${dir}/`)) out[path.slice(dir.length + 1)] = bytes;
  }
  for (const path of ws.list()) if (path.startsWith(`${dir}/`)) ws.remove(path);
  return out;
}

// Runs one command: {status, stdout, stderr, files (what it wrote under `dir`)}. A trap of the module
// (out of memory, abort) loses the workspace: the next command gets a new one with the tree written
// again, and the page is told.
async function run(args, dir = '.meshport/out') {
  const w = await space();
  // The output folder exists, as the CLI needs (an empty folder stays when its files are taken).
  w.write(`${dir}/.keep`, new Uint8Array(0));
  w.remove(`${dir}/.keep`);
  const r = await runIn(w, args);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, files: take(r.files, dir) };
}

// ws.run(args); a trap of the module drops the workspace (the next command makes a new one with
// the tree written again) and rejects with a message that says so.
async function runIn(w, args) {
  try {
    return await w.run(args);
  } catch (e) {
    if (e && e.moduleLost) {
      ws = null;
      making = null;
      const lost = new Error(`meshport stopped while running "meshport ${args.join(' ')}" (${e.stderr || e.message}): ` +
        'it was restarted and the files written into it again; the command gave no result');
      lost.moduleLost = true;
      throw lost;
    }
    throw e;
  }
}

// Runs one command whose outputs go into `dir`, a folder of the dropped tree (convert writes its
// output beside its input, as the CLI does there: an OBJ's .mtl, a .gltf's .bin and copied pages
// then name their files as a user who unpacks the download beside the model needs). Returns what
// the command wrote, {path relative to dir: bytes}; afterwards the tree is as it was: a dropped
// file the command wrote over gets its bytes back, every other file written leaves the workspace.
async function runBeside(args, dir) {
  const w = await space();
  const r = await runIn(w, args);
  const prefix = dir ? `${dir}/` : '';
  const files = {};
  for (const [path, bytes] of Object.entries(r.files)) {
    if (path.startsWith(prefix)) files[path.slice(prefix.length)] = bytes;
    if (tree.has(path)) w.write(path, new Uint8Array(await tree.get(path).arrayBuffer()));
    else w.remove(path);
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, files };
}

// Batch in parts (--shard k/N): one call of the module cannot report while it runs, so each part
// is a call and the page hears after each. The parts' reports are merged into one report.json:
// the items of all, the summary's counts summed.
async function batch({ to, options, parts }) {
  const reports = [];
  const files = {};
  let stderr = '';
  let done = 0;
  for (let k = 0; k < parts; ++k) {
    const args = ['batch', '.', '-o', '.meshport/batch', '--to', to, '--report', '.meshport/batch-report.json',
      '--progress', 'lines', '--jobs', '1', ...(parts > 1 ? ['--shard', `${k}/${parts}`] : []), ...options];
    const r = await run(args, '.meshport');
    stderr += r.stderr;
    const report = r.files['batch-report.json'];
    if (!report) {
      const e = new Error(r.stderr.trim() || `batch failed (exit status ${r.status})`);
      e.stderr = r.stderr;
      e.status = r.status;
      throw e;
    }
    const parsed = JSON.parse(new TextDecoder().decode(report));
    reports.push(parsed);
    for (const [path, bytes] of Object.entries(r.files)) {
      // .meshport-batch: the batch's record of its options (for up-to-date checks), not an output.
      if (path.startsWith('batch/') && !path.endsWith('.meshport-batch')) files[path.slice('batch/'.length)] = bytes;
    }
    done += parsed.items.length;
    const last = r.stderr.trim().split('\n').pop() || '';
    progress(`batch to ${to}: part ${k + 1}/${parts}, ${done} files done — ${last}`);
  }
  const report = { ...reports[0], shard: { count: 1, index: 0 } };
  report.items = reports.flatMap((r) => r.items).sort((a, b) => (a.input < b.input ? -1 : a.input > b.input ? 1 : 0));
  const summary = {};
  for (const r of reports) {
    for (const [key, value] of Object.entries(r.summary)) {
      if (typeof value === 'number') summary[key] = Math.round(((summary[key] || 0) + value) * 1000) / 1000;
      else if (typeof value === 'boolean') summary[key] = Boolean(summary[key]) || value;
      else summary[key] = value;
    }
  }
  report.summary = summary;
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const zip = zipSync({ ...files, 'report.json': new TextEncoder().encode(text) });
  return { zip, report, stderr, outputs: Object.keys(files).length };
}

const ops = {
  async formats() { return formats(); },
  async write({ files }) {
    const w = await space();
    for (const { path, blob } of files) {
      tree.set(path, blob);
      w.write(path, new Uint8Array(await blob.arrayBuffer()));
    }
    return w.list();
  },
  async clear() {
    const w = await space();
    for (const path of w.list()) w.remove(path);
    tree.clear();
    return [];
  },
  async list() { return (await space()).list(); },
  async read({ path }) { return (await space()).read(path); },
  async run({ args, dir }) { return run(args, dir); },
  async runBeside({ args, dir }) { return runBeside(args, dir); },
  batch,
  async zip({ files }) { return zipSync(files); },
};

// One command at a time, in the order asked.
let queue = Promise.resolve();
self.onmessage = (event) => {
  const { id, op, ...rest } = event.data;
  queue = queue.then(async () => {
    try {
      const result = await ops[op](rest);
      postMessage({ id, ok: true, result });
    } catch (e) {
      postMessage({ id, ok: false, error: {
        message: String(e && e.message || e), stderr: e && e.stderr || '', status: e && e.status,
        moduleLost: Boolean(e && e.moduleLost) } });
    }
  });
};
