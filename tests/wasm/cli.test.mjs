// The WebAssembly CLI (meshport.js under Node.js, real files through NODERAWFS) against the Linux
// build: the test models of every format converted to every format give the same files byte for
// byte (side files too), the same messages and exit codes; `info --json` the same text; the error
// paths (a missing file, a bad file, a truncated file, an unknown command, a mismatched
// extension) the same messages and exit codes, and no output file. Then the steps that run on
// threads in the Linux build (the IQM writer's adjacency, frame bounds, tangents, levels of
// detail, a batch with --jobs 3), which run on one thread here, on inputs large enough to use
// them: the same bytes. So do normals generated from the faces (corner angles by core/angle.h,
// not the C library) and the modes solve (Eigen kept scalar natively, as here).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { assertSameTree, gridIqe, outputFormats, prepareInputs, readTree, runNative, runWasm, tempDir } from './common.mjs';

const work = tempDir('cli');
const inputs = prepareInputs(work);

// Runs ARGS (OUT standing for the run's output folder) with both CLIs; returns both results
// after checking that status, messages (with the folder's name replaced) and outputs agree.
// With `anyOrder`, the messages are compared as a set of lines: a batch on several threads
// reports each file when it finishes, in whatever order the threads finish them.
function runBoth(args, { anyOrder = false } = {}) {
  const outN = path.join(work, 'out-native'), outW = path.join(work, 'out-wasm');
  for (const d of [outN, outW]) {
    fs.rmSync(d, { recursive: true, force: true });
    fs.mkdirSync(d);
  }
  const n = runNative(args.map((a) => a.replace('OUT', 'out-native')), work);
  const w = runWasm(args.map((a) => a.replace('OUT', 'out-wasm')), work);
  const what = `meshport ${args.join(' ')}`;
  // A batch's summary line ends with its time and rate, which differ from run to run.
  const timeless = (text) => {
    const t = text.replace(/ in [0-9.]+ s \([0-9.]+ files\/s\)/g, ' in T');
    return anyOrder ? t.split('\n').sort().join('\n') : t;
  };
  assert.equal(w.status, n.status, `${what}: exit status (native stderr: ${n.stderr})`);
  assert.equal(timeless(w.stderr.toString().replaceAll('out-wasm', 'OUT')),
    timeless(n.stderr.toString().replaceAll('out-native', 'OUT')), `${what}: messages`);
  assert.equal(w.stdout.toString().replaceAll('out-wasm', 'OUT'), n.stdout.toString().replaceAll('out-native', 'OUT'),
    `${what}: standard output`);
  const treeN = readTree(outN), treeW = readTree(outW);
  assertSameTree(treeW, treeN, what);
  return { native: n, wasm: w, files: treeN };
}

test('every test model converted to every format: the same files, messages and exit codes', () => {
  let converted = 0, files = 0;
  for (const input of inputs) {
    const base = path.basename(input).replace(/\..*$/, '');
    for (const to of outputFormats) {
      const r = runBoth(['convert', input, '-o', `OUT/${base}.${to}`]);
      if (r.native.status === 0) converted += 1;
      files += Object.keys(r.files).length;
    }
  }
  // Most conversions succeed (a few targets refuse a model: a .model of a skinned mesh, say);
  // .gltf and .obj outputs write side files.
  assert.ok(converted >= 70, `only ${converted} of ${inputs.length * outputFormats.length} conversions written`);
  assert.ok(files > converted, `${files} files for ${converted} conversions: no side files compared`);
});

test('info --json and formats --json print the same text', () => {
  for (const input of ['in/turret.pie', 'in/tentacle.iqe', 'in/turret_bin.glb', 'in/full.model']) {
    const r = runBoth(['info', '--json', input]);
    assert.equal(r.native.status, 0);
    assert.ok(JSON.parse(r.wasm.stdout.toString()).vertices > 0, `info --json ${input}: no vertices`);
  }
  const f = runBoth(['formats', '--json']);
  assert.ok(JSON.parse(f.wasm.stdout.toString()).some((x) => x.name === 'pie'));
});

test('error paths: the same message and exit status, no output file', () => {
  fs.writeFileSync(path.join(work, 'in/bad.pie'), 'PIE 3\nTYPE 10200\nLEVELS 1\nLEVEL 1\nPOINTS 9999\n');
  const cases = [
    [['convert', 'in/missing.pie', '-o', 'OUT/x.glb'], 1],
    [['convert', 'in/scene.mtl', '--from', 'obj', '-o', 'OUT/x.glb'], 1],
    [['convert', 'in/bad.pie', '-o', 'OUT/x.glb'], 1],
    [['frobnicate'], 2],
    [['convert', 'in/turret.pie', '-o', 'OUT/x.glb', '--to', 'iqm'], 1],
    [['info', 'in/bad.pie'], 1],
  ];
  for (const [args, status] of cases) {
    const r = runBoth(args);
    assert.equal(r.wasm.status, status, `meshport ${args.join(' ')}: exit status`);
    assert.ok(r.wasm.stderr.length > 0, `meshport ${args.join(' ')}: no message`);
    assert.deepEqual(Object.keys(r.files), [], `meshport ${args.join(' ')}: an output was written`);
  }
  // A message naming the problem, not an abort of the WebAssembly runtime.
  const bad = runWasm(['convert', 'in/bad.pie', '-o', 'out-wasm/x.glb'], work);
  assert.match(bad.stderr.toString(), /^in\/bad\.pie:\d+/);
});


test('large inputs through the threaded steps: the same bytes on one thread', () => {
  fs.mkdirSync(path.join(work, 'big/tree'), { recursive: true });
  fs.writeFileSync(path.join(work, 'big/grid.iqe'), gridIqe(200, { normals: true }));  // 80000 triangles with normals
  for (let i = 0; i < 3; i += 1) fs.copyFileSync(path.join(work, 'in/turret.pie'), path.join(work, `big/tree/t${i}.pie`));
  const iqm = runBoth(['convert', 'big/grid.iqe', '-o', 'OUT/grid.iqm']);  // adjacency, frame bounds
  assert.equal(iqm.native.status, 0, iqm.native.stderr.toString());
  const glb = runBoth(['convert', 'big/grid.iqe', '-o', 'OUT/grid.glb', '--lods', '0.5,0.25']);  // tangents, LODs
  assert.equal(glb.native.status, 0, glb.native.stderr.toString());
  assert.ok(Object.keys(glb.files).length === 3, `LOD files: ${Object.keys(glb.files)}`);
  const batch = runBoth(['batch', 'big/tree', '-o', 'OUT', '--to', 'glb', '--jobs', '3', '--progress', 'none'], { anyOrder: true });
  assert.equal(batch.native.status, 0, batch.native.stderr.toString());
  assert.equal(Object.keys(batch.files).filter((f) => f.endsWith('.glb')).length, 3, Object.keys(batch.files).join(' '));
});

test('normals generated from faces and the modes solve: the same bytes', () => {
  fs.mkdirSync(path.join(work, 'big'), { recursive: true });
  // Normals generated from the faces, each corner weighed by its angle (core/angle.h computes it
  // with + - * / only, not the C library's atan2f, whose last bit differs between musl and glibc;
  // 7,200 triangles: before, some of their normals differed in the last bit).
  fs.writeFileSync(path.join(work, 'big/flat.iqe'), gridIqe(60));
  const flat = runBoth(['convert', 'big/flat.iqe', '-o', 'OUT/flat.glb']);
  assert.equal(flat.native.status, 0, flat.native.stderr.toString());
  // The modes solve (two halves on two threads natively, one here): Eigen's loops are scalar in
  // both builds (src/physics/fem.cpp), so the sums round alike.
  const modes = runBoth(['modes', 'in/cube.qmsh.tmp', '-o', 'OUT/modes.model', '--count', '4', '--resolution', '6', '-q']);
  assert.equal(modes.native.status, 0, modes.native.stderr.toString());
  assert.ok(Object.keys(modes.files).includes('modes.model'), Object.keys(modes.files).join(' '));
});
