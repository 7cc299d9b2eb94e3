// What the WebAssembly tests share (tests/wasm/run.sh starts them with node --test): the two CLIs,
// the test models of every format, and comparisons of output folders.
//   MESHPORT_NATIVE   this build's CLI (the Linux one)
//   MESHPORT_WASM_DIR the WebAssembly build (scripts/build-wasm.sh): meshport.js, meshport_api.mjs
//   MESHPORT_SOURCE   the repository
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export { gridIqe, readTree } from './files.mjs';

export const native = process.env.MESHPORT_NATIVE;
export const wasmDir = process.env.MESHPORT_WASM_DIR;
export const source = process.env.MESHPORT_SOURCE;
for (const [k, v] of Object.entries({ MESHPORT_NATIVE: native, MESHPORT_WASM_DIR: wasmDir, MESHPORT_SOURCE: source }))
  if (!v) throw new Error(`${k} is not set (tests/wasm/run.sh sets it)`);

export function tempDir(tag) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `meshport-wasm-${tag}-`));
}

function result(r) {
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// `meshport ARGS` of the Linux build, in `cwd`; stdout and stderr as Buffers.
export function runNative(args, cwd) {
  return result(spawnSync(native, args, { cwd, maxBuffer: 1 << 28 }));
}

// The same with the WebAssembly CLI under this Node.js.
export function runWasm(args, cwd) {
  return result(spawnSync(process.execPath, [path.join(wasmDir, 'meshport.js'), ...args], { cwd, maxBuffer: 1 << 28 }));
}

// The repo's test models of every format (tests/windows_wine.sh's), copied into DIR/in, and the
// formats the repo keeps no file of converted by the Linux build. Returns the inputs' paths
// relative to DIR.
export function prepareInputs(dir) {
  const inDir = path.join(dir, 'in');
  fs.mkdirSync(inDir, { recursive: true });
  const copies = ['examples/tentacle.iqe', 'examples/tentacle_skin0.png', 'examples/tentacle_skin1.tga',
    'tests/data/cli/turret.pie', 'tests/data/cli/walk.iqe', 'tests/data/iqe/all-commands.iqe',
    'tests/data/obj/scene.obj', 'tests/data/obj/scene.mtl', 'tests/data/qmsh/cube.qmsh.tmp',
    'tests/data/modedef/full.model'];
  for (const f of copies) fs.copyFileSync(path.join(source, f), path.join(inDir, path.basename(f)));
  for (const [from, to] of [['tentacle.iqe', 'tentacle_bin.iqm'], ['turret.pie', 'turret_bin.glb'],
    ['cube.qmsh.tmp', 'cube_bin.qmsh']]) {
    const r = runNative(['convert', `in/${from}`, '-o', `in/${to}`, '-q'], dir);
    assert.equal(r.status, 0, `native convert ${from}: ${r.stderr}`);
  }
  return ['tentacle.iqe', 'tentacle_bin.iqm', 'turret.pie', 'turret_bin.glb', 'walk.iqe', 'all-commands.iqe',
    'scene.obj', 'cube.qmsh.tmp', 'cube_bin.qmsh', 'full.model'].map((f) => `in/${f}`);
}

export const outputFormats = ['glb', 'gltf', 'iqe', 'iqm', 'obj', 'pie', 'qmsh.tmp', 'qmsh', 'model'];


// The two trees hold the same files with the same bytes.
export function assertSameTree(actual, expected, what) {
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${what}: the files written differ`);
  for (const [name, bytes] of Object.entries(expected))
    assert.ok(Buffer.compare(Buffer.from(actual[name]), bytes) === 0, `${what}: ${name} differs`);
}
