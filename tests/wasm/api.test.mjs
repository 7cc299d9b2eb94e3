// The JavaScript API (npm/api.mjs over the API module meshport_api.mjs) against the Linux CLI:
// convert of every test model to every format gives the files the CLI writes, byte for byte, and
// its warnings; info, validate and diff give the objects of the CLI's --json output; side files
// go in and come out through `files`; a bad file rejects with the CLI's message and status.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { assertSameTree, outputFormats, prepareInputs, readTree, runNative, source, tempDir, wasmDir } from './common.mjs';

// api.mjs imports ./dist/meshport_api.mjs: the package's layout, staged here from the build.
const stage = tempDir('api-stage');
fs.mkdirSync(path.join(stage, 'dist'));
fs.copyFileSync(path.join(source, 'npm/api.mjs'), path.join(stage, 'api.mjs'));
fs.writeFileSync(path.join(stage, 'package.json'), '{"type": "module"}\n');
for (const f of ['meshport_api.mjs', 'meshport_api.wasm']) fs.copyFileSync(path.join(wasmDir, f), path.join(stage, 'dist', f));
const api = await import(pathToFileURL(path.join(stage, 'api.mjs')).href);

const work = tempDir('api');
const inputs = prepareInputs(work);

// The files beside an input (what a conversion may read): the whole input folder.
function sideFiles(except) {
  const files = {};
  for (const [name, bytes] of Object.entries(readTree(path.join(work, 'in')))) if (name !== except) files[name] = bytes;
  return files;
}

test('convert: every test model to every format, the CLI\'s files and warnings', async () => {
  let compared = 0, multi = 0;
  for (const input of inputs) {
    const name = path.basename(input);
    const base = name.replace(/\..*$/, '');
    const bytes = fs.readFileSync(path.join(work, input));
    for (const to of outputFormats) {
      // The CLI in a folder holding the input and its side files, writing into out/.
      const dir = path.join(work, `native-${base}-${to}`);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.cpSync(path.join(work, 'in'), dir, { recursive: true });
      fs.mkdirSync(path.join(dir, 'out'));
      const n = runNative(['convert', name, '-o', `out/${base}.${to}`], dir);
      const expected = readTree(path.join(dir, 'out'));
      let r;
      try {
        r = await api.convert(bytes, { name, output: `out/${base}.${to}`, files: sideFiles(name) });
      } catch (e) {
        assert.ok(e instanceof api.MeshportError, `${name} -> .${to}: ${e}`);
        assert.notEqual(n.status, 0, `${name} -> .${to}: the API failed (${e.message}), the CLI did not`);
        assert.equal(e.status, n.status, `${name} -> .${to}: exit status`);
        assert.equal(e.stderr, n.stderr.toString(), `${name} -> .${to}: message`);
        continue;
      }
      assert.equal(n.status, 0, `${name} -> .${to}: the CLI failed (${n.stderr}), the API did not`);
      const got = {};
      for (const [f, b] of Object.entries(r.files)) got[f.replace(/^out\//, '')] = b;
      assertSameTree(got, expected, `${name} -> .${to}`);
      assert.ok(Buffer.compare(Buffer.from(r.data), expected[`${base}.${to}`]) === 0, `${name} -> .${to}: data`);
      assert.deepEqual(r.diagnostics, n.stderr.toString().split('\n').filter((l) => l), `${name} -> .${to}: warnings`);
      compared += 1;
      if (Object.keys(expected).length > 1) multi += 1;
    }
  }
  assert.ok(compared >= 70, `only ${compared} conversions compared`);
  assert.ok(multi >= 10, `only ${multi} conversions with side files`);
});

test('convert by format names: the output named after the input, the round trip back', async () => {
  const pie = fs.readFileSync(path.join(work, 'in/turret.pie'));
  const glb = await api.convert(pie, { from: 'pie', to: 'glb' });
  assert.deepEqual(Object.keys(glb.files), ['model.glb']);
  // The CLI's model.pie -> model.glb (the file's name is in the .glb).
  fs.mkdirSync(path.join(work, 'named'), { recursive: true });
  fs.writeFileSync(path.join(work, 'named/model.pie'), pie);
  const n = runNative(['convert', 'named/model.pie', '-o', 'named/model.glb'], work);
  assert.equal(n.status, 0);
  assert.ok(Buffer.compare(Buffer.from(glb.data), fs.readFileSync(path.join(work, 'named/model.glb'))) === 0);
  const turret = await api.convert(pie, { name: 'turret.pie', to: 'glb' });
  assert.ok(runNative(['convert', 'in/turret.pie', '-o', 'native.glb'], work).status === 0);
  assert.ok(Buffer.compare(Buffer.from(turret.data), fs.readFileSync(path.join(work, 'native.glb'))) === 0);
  const back = await api.convert(turret.data, { name: 'turret.glb', to: '.pie' });
  assert.deepEqual(Object.keys(back.files), ['turret.pie']);
  const nb = runNative(['convert', 'native.glb', '-o', 'native_back.pie'], work);
  assert.equal(nb.status, 0);
  assert.ok(Buffer.compare(Buffer.from(back.data), fs.readFileSync(path.join(work, 'native_back.pie'))) === 0);
  const d = await api.diff(pie, back.data, { nameA: 'turret.pie', nameB: 'back.pie' });
  assert.equal(d.same, true, JSON.stringify(d.differences));
  assert.equal(d.count, 0);
});

test('convert: CLI options by name, a .gltf with its .bin, side files in', async () => {
  const iqe = fs.readFileSync(path.join(work, 'in/tentacle.iqe'));
  const r = await api.convert(iqe, { name: 'tentacle.iqe', to: 'gltf', scale: 2, files: sideFiles('tentacle.iqe') });
  fs.mkdirSync(path.join(work, 'out-opts'), { recursive: true });
  const n = runNative(['convert', 'in/tentacle.iqe', '-o', 'out-opts/tentacle.gltf', '--scale', '2'], work);
  assert.equal(n.status, 0, n.stderr.toString());
  assertSameTree(r.files, readTree(path.join(work, 'out-opts')), 'tentacle.iqe -> .gltf --scale 2');
  assert.ok(Object.keys(r.files).some((f) => f.endsWith('.bin')), `no .bin: ${Object.keys(r.files)}`);
  // Without its textures beside it, the conversion says so, as the CLI does.
  const alone = await api.convert(iqe, { name: 'tentacle.iqe', to: 'glb' });
  fs.mkdirSync(path.join(work, 'alone'), { recursive: true });
  fs.copyFileSync(path.join(work, 'in/tentacle.iqe'), path.join(work, 'alone/tentacle.iqe'));
  const na = runNative(['convert', 'tentacle.iqe', '-o', 'tentacle.glb'], path.join(work, 'alone'));
  assert.equal(na.status, 0);
  assert.deepEqual(alone.diagnostics, na.stderr.toString().split('\n').filter((l) => l));
  assert.ok(alone.diagnostics.length > 0, 'no warning about the missing textures');
  assert.ok(Buffer.compare(Buffer.from(alone.data), fs.readFileSync(path.join(work, 'alone/tentacle.glb'))) === 0);
});

test('info: the object of info --json', async () => {
  for (const input of ['in/turret.pie', 'in/tentacle.iqe', 'in/turret_bin.glb', 'in/full.model', 'in/scene.obj']) {
    const name = path.basename(input);
    const n = runNative(['info', '--json', name], path.join(work, 'in'));
    assert.equal(n.status, 0, n.stderr.toString());
    const got = await api.info(fs.readFileSync(path.join(work, input)), { name, files: sideFiles(name) });
    assert.deepEqual(got, JSON.parse(n.stdout.toString()), `info ${name}`);
  }
  const summary = await api.info(fs.readFileSync(path.join(work, 'in/turret.pie')), 'turret.pie');
  assert.equal(summary.format, 'pie');
  assert.ok(summary.vertices > 0);
});

test('validate: the report of validate --json', async () => {
  const dropTimes = (report) => JSON.parse(JSON.stringify(report, (k, v) => (/(^|_)ms$|seconds|elapsed/.test(k) ? undefined : v)));
  for (const [name, profile] of [['turret.pie', 'wz2100'], ['tentacle.iqe', null], ['full.model', null]]) {
    const args = ['validate', '--json', '--progress', 'none', name, ...(profile ? ['--profile', profile] : [])];
    const n = runNative(args, path.join(work, 'in'));
    assert.ok(n.status === 0 || n.status === 1, n.stderr.toString());
    const got = await api.validate(fs.readFileSync(path.join(work, 'in', name)), { name, ...(profile ? { profile } : {}), files: sideFiles(name) });
    assert.equal(got.status, n.status, `validate ${name}`);
    assert.equal(got.ok, n.status === 0);
    assert.deepEqual(dropTimes(got.report), dropTimes(JSON.parse(n.stdout.toString())), `validate ${name}`);
  }
});

test('diff: the object of diff --json, differences found', async () => {
  const a = fs.readFileSync(path.join(work, 'in/turret.pie'));
  const moved = a.toString().replace(/^POINTS (\d+)\n(\s*)([-\d.]+)/m, (m, count, space, x) => `POINTS ${count}\n${space}${Number(x) + 5}`);
  assert.notEqual(moved, a.toString(), 'the test did not change the model');
  fs.writeFileSync(path.join(work, 'in/moved.pie'), moved);
  const n = runNative(['diff', '--json', 'turret.pie', 'moved.pie'], path.join(work, 'in'));
  assert.equal(n.status, 1, n.stderr.toString());
  const d = await api.diff(a, moved, { nameA: 'turret.pie', nameB: 'moved.pie' });
  assert.deepEqual(d, JSON.parse(n.stdout.toString()));
  assert.equal(d.same, false);
  assert.ok(d.count > 0);
  // The same name twice: the two files are kept apart.
  const same = await api.diff(a, a, { nameA: 'x.pie', nameB: 'x.pie' });
  assert.equal(same.same, true);
});

test('errors: the CLI\'s message and exit status, nothing written', async () => {
  const bad = 'PIE 3\nTYPE 10200\nLEVELS 1\nLEVEL 1\nPOINTS 9999\n';
  fs.writeFileSync(path.join(work, 'in/bad.pie'), bad);
  const n = runNative(['convert', 'bad.pie', '-o', 'bad.glb'], path.join(work, 'in'));
  assert.equal(n.status, 1);
  assert.equal(fs.existsSync(path.join(work, 'in/bad.glb')), false);
  await assert.rejects(api.convert(bad, { name: 'bad.pie', to: 'glb' }), (e) => {
    assert.ok(e instanceof api.MeshportError);
    assert.equal(e.status, 1);
    assert.equal(e.message, n.stderr.toString().trim());
    return true;
  });
  const ni = runNative(['info', '--json', 'bad.pie'], path.join(work, 'in'));
  await assert.rejects(api.info(bad, 'bad.pie'), (e) => e.status === ni.status && e.stderr === ni.stderr.toString());
  await assert.rejects(api.diff(bad, bad, { nameA: 'bad.pie', nameB: 'b.pie' }), (e) => e.status === 2);
  await assert.rejects(api.convert(bad, { to: 'glb' }), /give the model file's name/);
  // The module is still usable after the failures.
  const ok = await api.info(fs.readFileSync(path.join(work, 'in/turret.pie')), 'turret.pie');
  assert.equal(ok.format, 'pie');
  const r = await api.run(['frobnicate']);
  assert.equal(r.status, runNative(['frobnicate'], work).status);
});

test('workspace: a tree written once, commands over it, view --export as the CLI writes it', async () => {
  const ws = await api.workspace();
  const tree = readTree(path.join(work, 'in'));
  for (const [name, bytes] of Object.entries(tree)) ws.write(`mod/${name}`, bytes);
  assert.deepEqual(ws.list().sort(), Object.keys(tree).map((n) => `mod/${n}`).sort());
  // The viewer's files for a model, and for a unit of parts: the native CLI's, byte for byte.
  for (const args of [['mod/turret.pie'], ['mod/tentacle.iqe'], ['mod/turret.pie', 'mod/turret.pie', 'mod/turret.pie']]) {
    const r = await ws.run(['view', ...args, '--export', 'page']);
    const dir = tempDir('ws-native');
    fs.cpSync(path.join(work, 'in'), path.join(dir, 'mod'), { recursive: true });
    const n = runNative(['view', ...args, '--export', 'page'], dir);
    assert.equal(r.status, n.status, `view ${args}: ${r.stderr}`);
    assert.equal(r.stderr, n.stderr.toString(), `view ${args}: messages`);
    assert.deepEqual(Object.keys(r.files).sort(), ['page/info.json', 'page/model.glb'], `view ${args}`);
    assertSameTree({ 'info.json': r.files['page/info.json'], 'model.glb': r.files['page/model.glb'] },
                   readTree(path.join(dir, 'page')), `view ${args}`);
  }
  // A command reports only what it wrote: the next one, nothing of the last's.
  const info = await ws.run(['info', '--json', 'mod/turret.pie']);
  assert.equal(info.status, 0);
  assert.deepEqual(info.files, {});
  assert.equal(JSON.parse(info.stdout).format, 'pie');
  // The same file written again with the same bytes is reported again.
  const again = await ws.run(['view', 'mod/turret.pie', '--export', 'page']);
  assert.deepEqual(Object.keys(again.files).sort(), ['page/info.json', 'page/model.glb']);
  assert.ok(Buffer.compare(Buffer.from(ws.read('mod/turret.pie')), tree['turret.pie']) === 0);
  ws.remove('mod/turret.pie');
  assert.ok(!ws.list().includes('mod/turret.pie'));
  ws.dispose();
  assert.throws(() => ws.list(), /disposed/);
  assert.throws(() => ws.write('../x', 'y'), /disposed/);
  const other = await api.workspace();
  assert.throws(() => other.write('../x', 'y'), /without "\.\."/);
  other.dispose();
});
