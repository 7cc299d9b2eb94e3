// The web app (docs/web-app.md): meshport in a static page. The page keeps the dropped files and the
// UI; worker.js runs the CLI's commands on them in a WebAssembly module. window.meshportApp exposes
// the state to the browser tests.
import { createViewer } from './viewer.js';
import { droppedFiles, pickedFiles, cleanPath, renderTree, formatOf } from './tree.js';
import { initCheck, showSource } from './check.js';
import { initConvert } from './convert.js';
import { initAssemble } from './assemble.js';

// Reads are limited to this many bytes of model (the CLI's --max-memory): a wasm32 module grows to
// at most 2 GiB (the build's maximum memory), and the input, its model and the output share it.
export const MAX_MEMORY = '1G';
// A dropped file larger than this is refused: the tab holds it twice (the module's in-memory file
// system, and the read's buffer inside the module's at most 2 GiB) next to the model built from it.
const MAX_FILE = 512 * 1024 * 1024;

const $ = (id) => document.getElementById(id);

// ---- the worker -----------------------------------------------------------------------------
let worker = null;
let calls = new Map();
let nextId = 0;
let pending = 0;

function startWorker() {
  // The first one was started by boot.js, before this module's imports had loaded.
  worker = window.meshportBootWorker || new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  window.meshportBootWorker = null;
  worker.onmessage = (event) => {
    const message = event.data;
    if (message.type === 'progress') { status(message.text); return; }
    const call = calls.get(message.id);
    if (!call) return;
    calls.delete(message.id);
    if (message.ok) call.resolve(message.result);
    else call.reject(Object.assign(new Error(message.error.message), message.error));
  };
  worker.onerror = (event) => {
    // A worker that failed to load (a missing file): every waiting call fails with it.
    const error = new Error(`the worker failed: ${event.message || 'could not load meshport'}`);
    for (const call of calls.values()) call.reject(error);
    calls.clear();
  };
}

function setBusy(delta) {
  pending += delta;
  app.busy = pending > 0;
  document.body.classList.toggle('busy', app.busy);
  $('cancel').classList.toggle('hidden', !app.busy);
}

/** Calls the worker: op and its arguments; resolves to its result. */
function call(op, args = {}, transfer = []) {
  const id = ++nextId;
  setBusy(1);
  return new Promise((resolve, reject) => {
    calls.set(id, { resolve, reject });
    worker.postMessage({ id, op, ...args }, transfer);
  }).finally(() => setBusy(-1));
}

/** Runs `meshport ...args` in the workspace: {status, stdout, stderr, files (written under dir)}. */
function run(args, dir = '.meshport/out') { return call('run', { args, dir }); }

// Cancel: the module cannot be interrupted, so the worker is ended and a new one gets the files.
async function cancel() {
  worker.terminate();
  const error = Object.assign(new Error('cancelled'), { cancelled: true });
  for (const c of calls.values()) c.reject(error);
  calls.clear();
  startWorker();
  status('cancelled; restarting meshport…');
  await call('write', { files: [...files].map(([path, blob]) => ({ path, blob })) });
  status('cancelled');
}

// ---- status, errors, downloads --------------------------------------------------------------
let statusTimer = null;
function status(text, busyLabel = false) {
  clearInterval(statusTimer);
  const el = $('status');
  el.textContent = text;
  if (busyLabel) {
    // A busy indicator with the seconds spent, for commands that report nothing while they run.
    const start = performance.now();
    statusTimer = setInterval(() => {
      if (!app.busy) { clearInterval(statusTimer); return; }
      el.textContent = `${text} ${((performance.now() - start) / 1000).toFixed(0)} s`;
    }, 500);
  }
}

// The error bar: the text verbatim; a line "FILE:LINE:COL: ..." of a dropped file opens it there.
function showError(text) {
  app.lastError = text;
  const el = $('error');
  el.textContent = '';
  text.split('\n').forEach((line, i) => {
    if (i > 0) el.append('\n');
    const m = /^(.+?):(\d+):(\d+): /.exec(line);
    if (m && files.has(m[1])) {
      const span = document.createElement('span');
      span.className = 'link';
      span.dataset.file = m[1];
      span.dataset.line = m[2];
      span.dataset.col = m[3];
      span.title = 'show the line';
      span.textContent = line;
      el.append(span);
    } else el.append(line);
  });
  el.classList.toggle('hidden', !text);
}

function clearError() {
  app.lastError = null;
  $('error').textContent = '';
  $('error').classList.add('hidden');
}

/**
 * A failed action: the CLI's message verbatim (its stderr), else the error's message (a module that
 * trapped: what happened, and that it was restarted with the files).
 */
function failed(e, what) {
  if (e && e.cancelled) return;
  const text = (e && !e.moduleLost && e.stderr && e.stderr.trim()) || (e && e.message) || String(e);
  showError(text);
  status(`${what} failed`);
}

/** Offers bytes as a download named `name`. */
function download(name, bytes, type = 'application/octet-stream') {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// ---- files ----------------------------------------------------------------------------------
const files = new Map();  // path -> File, what the user dropped (the worker holds their bytes)
let formats = [];
let selected = null;

function models() { return [...files.keys()].filter((p) => formatOf(p, formats)).sort(); }

const listeners = [];
function filesChanged() {
  renderTree($('tree'), files, formats, selected);
  $('file-count').textContent = files.size ? `(${files.size})` : '';
  for (const f of listeners) f();
}

// Adds dropped or picked files (a list, or a promise of one): the page is busy from the drop on.
async function addFiles(pending) {
  setBusy(1);
  try {
    await addFilesNow(await pending);
  } catch (e) {
    failed(e, 'reading the files');
  } finally {
    setBusy(-1);
  }
}

async function addFilesNow(list) {
  clearError();
  const accepted = [];
  const refused = [];
  const large = [];
  for (const { path, file } of list) {
    const clean = cleanPath(path);
    if (!clean) refused.push(path);
    else if (file.size > MAX_FILE) large.push(`${clean} (${(file.size / 1048576).toFixed(0)} MiB)`);
    else accepted.push({ path: clean, blob: file });
  }
  const notAdded = () => {
    const lines = [];
    if (refused.length) lines.push(`not added (paths outside the tree): ${refused.join(', ')}`);
    if (large.length) lines.push(`not added (over ${MAX_FILE / 1048576} MiB, more than the page can hold with its model): ${large.join(', ')}`);
    if (lines.length) showError(lines.join('\n'));
  };
  if (accepted.length === 0) {
    notAdded();
    return;
  }
  await app.ready;
  status(`reading ${accepted.length} files…`, true);
  try {
    await call('write', { files: accepted });
  } catch (e) {
    failed(e, 'reading the files');
    return;
  }
  for (const { path, blob } of accepted) files.set(path, blob);
  filesChanged();
  const count = accepted.filter((f) => formatOf(f.path, formats)).length;
  status(`${files.size} files, ${models().length} models`);
  notAdded();
  // One model dropped alone (or a few): show it straight away, unless files were refused (the
  // message stays).
  if (!selected && count >= 1 && !refused.length && !large.length) {
    const first = accepted.find((f) => formatOf(f.path, formats));
    if (count === 1 || accepted.length <= 8) select(first.path);
  }
}

async function clearFiles() {
  await call('clear');
  files.clear();
  selected = null;
  viewer.clear();
  $('info').innerHTML = '<p class="muted">Select a model.</p>';
  $('warnings').classList.add('hidden');
  clearError();
  filesChanged();
  status('ready');
}

// ---- viewer and info ------------------------------------------------------------------------
const viewer = createViewer({ view: $('view'), panel: $('panel') });

function hexToRgb(hex) {
  const h = hex.replace(/^#/, '');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)).join(',');
}

/**
 * Shows `view --export` of `parts` (a model, or a unit's parts) in the viewer; `extra`: more view
 * options (--vtol). Resolves to the info.json object.
 */
async function showView(parts, extra = []) {
  // Busy until the viewer has drawn the model, not only until the command is done.
  setBusy(1);
  try {
    return await exportAndShow(parts, extra);
  } finally {
    setBusy(-1);
  }
}

async function exportAndShow(parts, extra) {
  const args = ['view', ...parts, ...extra, '--max-memory', MAX_MEMORY, '--export', '.meshport/view'];
  const r = await run(args, '.meshport/view');
  if (r.status !== 0 || !r.files['model.glb']) throw Object.assign(new Error(`view failed (exit status ${r.status})`), r);
  const info = JSON.parse(new TextDecoder().decode(r.files['info.json']));
  const recolour = async (hex) => {
    const again = await run([...args, '--team-colour', hexToRgb(hex)], '.meshport/view');
    if (again.status !== 0) throw Object.assign(new Error('view --team-colour failed'), again);
    return again.files['model.glb'];
  };
  $('view-hint')?.remove();
  await viewer.show({ glb: r.files['model.glb'], info, recolour });
  showWarnings(r.stderr);
  return info;
}

function showWarnings(stderr) {
  const el = $('warnings');
  el.textContent = stderr.trim();
  el.classList.toggle('hidden', !stderr.trim());
}

function cell(row, text, tag = 'td') {
  const td = document.createElement(tag);
  td.textContent = text;
  row.appendChild(td);
}

// A readable table of `info --json`: the top-level numbers and short values, then the CLI's JSON text.
function fillInfo(path, json, text) {
  const box = $('info');
  box.textContent = '';
  const table = document.createElement('table');
  table.className = 'info-table';
  const add = (key, value) => {
    const tr = document.createElement('tr');
    cell(tr, key, 'th');
    cell(tr, value);
    table.appendChild(tr);
  };
  add('file', path);
  for (const [key, value] of Object.entries(json)) {
    if (value === null || typeof value !== 'object') add(key, String(value));
    else if (Array.isArray(value)) {
      const names = value.map((v) => (v && typeof v === 'object' ? v.name : v)).filter((v) => v !== undefined && v !== null);
      add(key, `${value.length}${names.length ? `: ${names.slice(0, 6).join(', ')}${names.length > 6 ? ', …' : ''}` : ''}`);
    } else {
      const short = (v) => (typeof v === 'number' ? String(Number(v.toPrecision(5))) : String(v));
      const flat = Object.entries(value).filter(([, v]) => v === null || typeof v !== 'object' ||
        (Array.isArray(v) && v.length <= 4 && v.every((x) => typeof x !== 'object')));
      add(key, flat.map(([k, v]) => `${k} ${Array.isArray(v) ? `[${v.map(short).join(', ')}]` : short(v)}`).join(', ') || '…');
    }
  }
  box.appendChild(table);
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = 'info --json';
  const pre = document.createElement('pre');
  pre.id = 'info-json';
  pre.textContent = text;
  details.append(summary, pre);
  box.appendChild(details);
}

/** Selects a model: the viewer shows it, #info gets its summary. */
async function select(path) {
  selected = path;
  for (const li of $('tree').querySelectorAll('li.selected')) li.classList.remove('selected');
  $('tree').querySelector(`li[data-path="${CSS.escape(path)}"]`)?.classList.add('selected');
  clearError();
  $('view-hint')?.remove();
  for (const f of listeners) f();
  status(`opening ${path}…`, true);
  const started = performance.now();
  try {
    // The picture first, then the summary.
    await showView([path]);
    if (selected !== path) return;
    const r = await run(['info', '--json', '--max-memory', MAX_MEMORY, path]);
    if (selected !== path) return;
    if (r.status !== 0) throw Object.assign(new Error(`info failed (exit status ${r.status})`), r);
    fillInfo(path, JSON.parse(r.stdout), r.stdout.trimEnd());
    if (selected === path) status(`${path} (${((performance.now() - started) / 1000).toFixed(2)} s)`);
  } catch (e) {
    // Another model was selected meanwhile (its show() overtook this one): nothing to say.
    if (selected !== path || (e && e.name === 'AbortError')) return;
    $('info').innerHTML = '<p class="muted">No summary: the model could not be read.</p>';
    viewer.clear();
    failed(e, `opening ${path}`);
  }
}

// ---- the page's state for tests -------------------------------------------------------------
const app = {
  ready: null,
  busy: false,
  get viewer() { return viewer.api; },
  files() { return [...files.keys()].sort(); },
  lastError: null,
};
window.meshportApp = app;

startWorker();
app.ready = call('formats').then((table) => {
  formats = table;
  status('ready: drop models, textures or a mod folder');
  listeners.forEach((f) => f());
  return true;
}, (e) => {
  failed(e, 'loading meshport');
  throw e;
});
app.ready.catch(() => {});

const ctx = {
  call, run, status, showError, clearError, failed, download, showView, fillInfo, MAX_MEMORY,
  models, files: () => files, formats: () => formats, selected: () => selected,
  onFilesChanged: (f) => listeners.push(f), viewer,
};
initCheck(ctx);
initConvert(ctx);
initAssemble(ctx);

// ---- events ---------------------------------------------------------------------------------
$('tree').addEventListener('click', (event) => {
  const li = event.target.closest('li.model[data-path]');
  if (li) select(li.dataset.path);
});
$('tree').addEventListener('keydown', (event) => {
  const li = event.target.closest('li.model[data-path]');
  if (li && (event.key === 'Enter' || event.key === ' ')) { event.preventDefault(); select(li.dataset.path); }
});
$('pick-files').addEventListener('change', (e) => { addFiles(pickedFiles(e.target)); e.target.value = ''; });
$('pick-folder').addEventListener('change', (e) => { addFiles(pickedFiles(e.target)); e.target.value = ''; });
$('clear').addEventListener('click', () => clearFiles());
$('error').addEventListener('click', (event) => {
  const link = event.target.closest('.link[data-file]');
  if (link) showSource(ctx, link.dataset.file, Number(link.dataset.line), Number(link.dataset.col));
});
$('cancel').addEventListener('click', () => cancel());

// Drops anywhere on the page.
window.addEventListener('dragover', (event) => {
  event.preventDefault();
  event.dataTransfer.dropEffect = 'copy';
  document.body.classList.add('dragging');
});
window.addEventListener('dragleave', (event) => {
  if (!event.relatedTarget) document.body.classList.remove('dragging');
});
window.addEventListener('drop', (event) => {
  event.preventDefault();
  document.body.classList.remove('dragging');
  addFiles(droppedFiles(event.dataTransfer));
});

// Offline use: the service worker caches the site on the first visit (not on file:// pages). It is
// registered once the module is loaded and the page idle, so that its download of every file does
// not slow the first picture down.
function registerServiceWorker() {
  if (app.busy) { setTimeout(registerServiceWorker, 500); return; }
  navigator.serviceWorker.register('./sw.js').catch(() => {});
}
if ('serviceWorker' in navigator && location.protocol !== 'file:') {
  app.ready.then(() => setTimeout(registerServiceWorker, 500), () => {});
}
