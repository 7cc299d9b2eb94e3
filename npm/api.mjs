// meshport's JavaScript API (npm package "meshport"): the CLI's commands over bytes in memory, in
// Node.js 18+ and browsers. Each call writes its input files into the WebAssembly module's
// in-memory file system, runs the command exactly as `meshport` would in a folder holding them,
// and returns what it wrote there, what it printed and its exit status. The module
// (dist/meshport_api.mjs, built from wasm/api.cpp) loads once, on the first call.
import createMeshportModule from './dist/meshport_api.mjs';

// Each call runs in a folder of its own (/job1, /job2, ...): the library keeps what it learnt of a
// folder's files (texture search) for the process, which is the module's whole life here.
let jobs = 0;
let loaded = null;
let loadedModule = null;  // the module `loaded` resolved to
const lost = new WeakSet();  // modules that trapped
let formatTable = null;

function isNode() {
  return typeof process !== 'undefined' && process.versions != null && process.versions.node != null;
}

// The module, loaded once. In Node.js the .wasm is read from beside this file (Node's fetch
// cannot read a file path); browsers fetch it from beside dist/meshport_api.mjs.
async function load() {
  if (!loaded) {
    loaded = (async () => {
      const options = {};
      if (isNode()) {
        const { readFile } = await import('node:fs/promises');
        options.wasmBinary = await readFile(new URL('./dist/meshport_api.wasm', import.meta.url));
      }
      loadedModule = await createMeshportModule(options);
      return loadedModule;
    })();
  }
  return loaded;
}

/** An error of a command: `status` is the CLI's exit status, `stderr` what it printed. */
export class MeshportError extends Error {
  constructor(message, status, stderr, stdout) {
    super(message);
    this.name = 'MeshportError';
    this.status = status;
    this.stderr = stderr;
    this.stdout = stdout;
    this.diagnostics = lines(stderr);
  }
}

function lines(text) {
  return text.split('\n').filter((l) => l.length > 0);
}

function toBytes(data, what) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (typeof data === 'string') return new TextEncoder().encode(data);
  throw new TypeError(`${what}: expected a Uint8Array, ArrayBuffer or string`);
}

// A relative path inside the job folder: no absolute paths, no "..".
function checkedPath(path) {
  if (typeof path !== 'string' || path === '' || path.startsWith('/') || path.split(/[\\/]/).includes('..'))
    throw new TypeError(`file name "${path}": give a relative path without ".."`);
  return path;
}

function removeTree(FS, path) {
  for (const name of FS.readdir(path)) {
    if (name === '.' || name === '..') continue;
    const p = `${path}/${name}`;
    if (FS.isDir(FS.stat(p).mode)) {
      removeTree(FS, p);
      FS.rmdir(p);
    } else {
      FS.unlink(p);
    }
  }
}

function listTree(FS, path, prefix, out) {
  for (const name of FS.readdir(path)) {
    if (name === '.' || name === '..') continue;
    const p = `${path}/${name}`;
    if (FS.isDir(FS.stat(p).mode)) listTree(FS, p, `${prefix}${name}/`, out);
    else out.push(`${prefix}${name}`);
  }
  return out;
}

function writeFile(FS, job, relative, bytes) {
  const parts = checkedPath(relative).split(/[\\/]/);
  let dir = job;
  for (const part of parts.slice(0, -1)) {
    dir += `/${part}`;
    if (!FS.analyzePath(dir).exists) FS.mkdir(dir);
  }
  FS.writeFile(`${job}/${parts.join('/')}`, bytes);
}

// Runs `meshport ...args` with the module's current folder `dir`: {status, stdout, stderr}. A
// trap of the module (out of memory past what --max-memory foresaw, an abort) leaves it unusable:
// it is dropped, the next call loads a fresh one, and this call rejects with a MeshportError whose
// `moduleLost` is true (what was written into workspaces is gone with it).
function runHere(M, dir, args) {
  const FS = M.FS;
  FS.chdir(dir);
  const argv = ['meshport', ...args.map(String)];
  const alloc = (s) => {
    const size = M.lengthBytesUTF8(s) + 1;
    const p = M._malloc(size);
    M.stringToUTF8(s, p, size);
    return p;
  };
  const pointers = argv.map(alloc);
  const table = M._malloc(4 * (argv.length + 1));
  pointers.forEach((p, i) => M.setValue(table + 4 * i, p, 'i32'));
  M.setValue(table + 4 * argv.length, 0, 'i32');
  const outPath = '/tmp/meshport.stdout', errPath = '/tmp/meshport.stderr';
  const outP = alloc(outPath), errP = alloc(errPath);
  let status;
  try {
    status = M._meshport_api_run(argv.length, table, outP, errP);
  } catch (e) {
    if (loaded && loadedModule === M) loaded = null;
    lost.add(M);
    const error = new MeshportError(`meshport stopped (${e && e.message || e}): the module was reloaded; run the ` +
                                    'command again (in a new workspace)', 134, String(e && e.message || e), '');
    error.moduleLost = true;
    throw error;
  }
  for (const p of [...pointers, table, outP, errP]) M._free(p);
  const decoder = new TextDecoder();
  const stdout = decoder.decode(FS.readFile(outPath));
  const stderr = decoder.decode(FS.readFile(errPath));
  FS.chdir('/');
  return { status, stdout, stderr };
}

/**
 * Runs `meshport ...args` in a folder holding `files` ({relative path: bytes}) and the (empty)
 * `folders`; resolves to {status, stdout, stderr, files}, `files` being every file the command
 * wrote or changed there.
 * The low-level call the others use; any command and option of the CLI works (`meshport --help`).
 */
export async function run(args, files = {}, folders = []) {
  const M = await load();
  const FS = M.FS;
  jobs += 1;
  const JOB = `/job${jobs}`;
  FS.mkdir(JOB);
  const given = new Map();
  for (const folder of folders) {
    writeFile(FS, JOB, `${folder}/.keep`, new Uint8Array(0));
    given.set(`${folder}/.keep`, new Uint8Array(0));
  }
  for (const [name, data] of Object.entries(files)) {
    const bytes = toBytes(data, `file "${name}"`);
    writeFile(FS, JOB, name, bytes);
    given.set(checkedPath(name).replace(/\\/g, '/'), bytes);
  }
  // What the command writes is told from what it was given by content and by time: the given
  // files are dated 0, so a file written again with the same bytes (a texture copied over
  // itself) is found too.
  for (const name of given.keys()) FS.utime(`${JOB}/${name}`, 0, 0);
  const { status, stdout, stderr } = runHere(M, JOB, args);
  const written = {};
  for (const name of listTree(FS, JOB, '', [])) {
    const bytes = FS.readFile(`${JOB}/${name}`);
    const before = given.get(name);
    const touched = FS.stat(`${JOB}/${name}`).mtime.getTime() !== 0;
    if (!before || touched || before.length !== bytes.length || !before.every((b, i) => b === bytes[i]))
      written[name] = bytes;
  }
  removeTree(FS, JOB);
  FS.rmdir(JOB);
  return { status, stdout, stderr, files: written };
}

/**
 * A folder kept across commands: write a tree of files once (a dropped mod folder), then run
 * many commands over it without copying it again.
 *   ws.write(path, bytes), ws.remove(path), ws.list() -> [path], ws.read(path) -> Uint8Array
 *   ws.run(args) -> {status, stdout, stderr, files}: `files` is what that command wrote or
 *     rewrote in the folder ({path: bytes}; what was there before and was not written again is
 *     left out)
 *   ws.dispose() removes the folder.
 * Paths are relative, without "..". A command that traps the module (see runHere) rejects with
 * `moduleLost`; the workspace is then gone: make a new one.
 */
export async function workspace() {
  const M = await load();
  const FS = M.FS;
  jobs += 1;
  const dir = `/work${jobs}`;
  FS.mkdir(dir);
  let disposed = false;
  const usable = () => {
    if (disposed) throw new Error('this workspace was disposed');
    if (lost.has(M)) {
      const e = new MeshportError('the module stopped and was reloaded: this workspace is gone (make a new one)', 134, '', '');
      e.moduleLost = true;
      throw e;
    }
  };
  return {
    write(path, data) {
      usable();
      const name = checkedPath(path).replace(/\\/g, '/');
      writeFile(FS, dir, name, toBytes(data, `file "${name}"`));
      FS.utime(`${dir}/${name}`, 0, 0);
    },
    remove(path) {
      usable();
      FS.unlink(`${dir}/${checkedPath(path)}`);
    },
    read(path) {
      usable();
      return FS.readFile(`${dir}/${checkedPath(path)}`);
    },
    list() {
      usable();
      return listTree(FS, dir, '', []);
    },
    async run(args) {
      usable();
      const { status, stdout, stderr } = runHere(M, dir, args);
      // Files the command wrote carry its time; they are dated 0 again once reported.
      const files = {};
      for (const name of listTree(FS, dir, '', [])) {
        const path = `${dir}/${name}`;
        if (FS.stat(path).mtime.getTime() === 0) continue;
        files[name] = FS.readFile(path);
        FS.utime(path, 0, 0);
      }
      return { status, stdout, stderr, files };
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      if (lost.has(M)) return;
      removeTree(FS, dir);
      FS.rmdir(dir);
    },
  };
}

// The CLI's options from an object: {flipYz: true, scale: 2, lods: [0.5, 0.25]} ->
// --flip-yz --scale 2 --lods 0.5 --lods 0.25; false, null and undefined are left out.
function optionArgs(options, skip) {
  const args = [];
  for (const [key, value] of Object.entries(options)) {
    if (skip.includes(key) || value === false || value === null || value === undefined) continue;
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (value === true) args.push(flag);
    else if (Array.isArray(value)) for (const v of value) args.push(flag, String(v));
    else args.push(flag, String(value));
  }
  return args;
}

function failed(result, what) {
  const text = result.stderr.trim() || `${what} failed (exit status ${result.status})`;
  return new MeshportError(text, result.status, result.stderr, result.stdout);
}

/** The format table of `meshport formats --json`. */
export async function formats() {
  if (!formatTable) {
    const r = await run(['formats', '--json']);
    if (r.status !== 0) throw failed(r, 'formats');
    formatTable = JSON.parse(r.stdout);
  }
  return formatTable;
}

// A file name for bytes of `format` (a format name or an extension), or `name` when given.
async function nameFor(name, format, fallback) {
  if (name) return checkedPath(name);
  if (!format) throw new TypeError(`give the ${fallback} file's name (its extension names the format) or its format`);
  const key = String(format).replace(/^\./, '').toLowerCase();
  for (const f of await formats()) {
    const exts = f.extensions.map((e) => e.toLowerCase());
    if (f.name.toLowerCase() === key || exts.includes(`.${key}`)) return `${fallback}${exts[0]}`;
  }
  return `${fallback}.${key}`;
}

/**
 * Converts a model: `meshport convert NAME -o OUTPUT [options]`.
 * options: name (the input's file name; its extension gives the format) or from; to (a format name
 * or extension) or output (the output's file name); files ({relative path: bytes}: side files
 * beside the input, such as .bin, .mtl, textures, texpages/page-7.png); inputs (names among
 * `files` converted after the first: animations to attach); any other `meshport convert` option
 * by its long name in camelCase (true for a flag).
 * Resolves to {data: the output file's bytes, files: {name: bytes} of every file written (the
 * output, a .gltf's .bin, an .obj's .mtl, copied textures, levels of detail), diagnostics: the
 * warnings printed, one string each}; rejects with a MeshportError (message: what the CLI printed).
 */
export async function convert(input, options = {}) {
  const name = await nameFor(options.name, options.from, 'model');
  // The output: named after the input (tank.pie -> tank.glb; tank.out.pie for a .pie), beside it.
  let output = options.output ? checkedPath(options.output) : null;
  if (!output) {
    const base = name.replace(/\.[^\\/]*$/, '');
    output = await nameFor(null, options.to, base);
    if (output === name) output = await nameFor(null, options.to, `${base}.out`);
  }
  if (output === name) throw new TypeError(`the output "${output}" would overwrite the input: give another output name`);
  const files = { ...(options.files || {}), [name]: toBytes(input, 'input') };
  const rest = { ...options };
  if (rest.to) rest.to = String(rest.to).replace(/^\./, '');
  const args = ['convert', name, ...(options.inputs || []).map(checkedPath), '-o', output,
    ...optionArgs(rest, ['name', 'output', 'files', 'inputs'])];
  // The output's folder exists, as the CLI needs.
  const folder = output.replace(/\\/g, '/').replace(/\/?[^/]*$/, '');
  const r = await run(args, files, folder ? [folder] : []);
  if (r.status !== 0) throw failed(r, 'convert');
  const data = r.files[output.replace(/\\/g, '/')];
  return { data, files: r.files, diagnostics: lines(r.stderr) };
}

/**
 * `meshport info --json NAME`: the summary object (the same JSON the CLI prints). `nameOrOptions`:
 * the file's name, or {name | from, files, textures, scene, ...}.
 */
export async function info(input, nameOrOptions = {}) {
  const options = typeof nameOrOptions === 'string' ? { name: nameOrOptions } : nameOrOptions;
  const name = await nameFor(options.name, options.from, 'model');
  const files = { ...(options.files || {}), [name]: toBytes(input, 'input') };
  const r = await run(['info', '--json', name, ...optionArgs(options, ['name', 'files', 'json'])], files);
  if (r.status !== 0) throw failed(r, 'info');
  return JSON.parse(r.stdout);
}

/**
 * `meshport validate --json NAME [--profile P]`: resolves to {ok: exit status 0, status, report: the
 * JSON report the CLI prints (per file status and diagnostics, counts)}.
 */
export async function validate(input, nameOrOptions = {}) {
  const options = typeof nameOrOptions === 'string' ? { name: nameOrOptions } : nameOrOptions;
  const name = await nameFor(options.name, options.from, 'model');
  const files = { ...(options.files || {}), [name]: toBytes(input, 'input') };
  const r = await run(['validate', '--json', '--progress', 'none', name,
    ...optionArgs(options, ['name', 'files', 'json'])], files);
  if (r.status !== 0 && r.status !== 1) throw failed(r, 'validate');
  return { ok: r.status === 0, status: r.status, report: JSON.parse(r.stdout) };
}

/**
 * `meshport diff --json A B`: resolves to {same, count, differences: [{path, a, b, message}], notes}.
 * options: nameA | fromA, nameB | fromB, files (side files of both), tolerance, ...
 * Rejects with a MeshportError (status 2) when a model cannot be read.
 */
export async function diff(a, b, options = {}) {
  let nameA = await nameFor(options.nameA, options.fromA, 'a');
  let nameB = await nameFor(options.nameB, options.fromB, 'b');
  if (nameA === nameB) {
    nameA = `a/${nameA}`;
    nameB = `b/${nameB}`;
  }
  const files = { ...(options.files || {}), [nameA]: toBytes(a, 'a'), [nameB]: toBytes(b, 'b') };
  const r = await run(['diff', '--json', nameA, nameB, ...optionArgs(options, ['nameA', 'nameB', 'files', 'json'])],
    files);
  if (r.status === 2) throw failed(r, 'diff');
  return JSON.parse(r.stdout);
}
