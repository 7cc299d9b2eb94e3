// The npm package (scripts/pack-npm.sh): packed from the WebAssembly build, installed from its
// tarball into an empty folder with no registry (npm install --offline), then `npx meshport`
// converts a model there as the Linux CLI does and the installed API imports and converts. Its
// package.json carries the project's version and the licences of what is compiled in.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { runNative, source, tempDir, wasmDir } from './common.mjs';

const work = tempDir('npm');
// No registry: an address nothing listens on, and a cache of its own that starts empty.
const npmEnv = { ...process.env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_cache: path.join(work, 'cache'),
  npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
// The wasm build folder is where pack-npm.sh finds the Debian source packages' licences.
const pack = spawnSync(path.join(source, 'scripts/pack-npm.sh'), [wasmDir, path.join(work, 'dist')], { encoding: 'utf8' });
const version = fs.readFileSync(path.join(source, 'CMakeLists.txt'), 'utf8').match(/project\(meshport VERSION ([0-9.]+)/)[1];

test('pack: one tarball named by the project version, its last line naming it', () => {
  assert.equal(pack.status, 0, pack.stderr);
  const last = pack.stdout.trim().split('\n').pop();
  assert.equal(last, `npm package: ${path.join(work, 'dist')}/meshport-${version}.tgz`);
  assert.ok(fs.statSync(path.join(work, 'dist', `meshport-${version}.tgz`)).size > 100000);
});

test('npm install --offline from the tarball, then npx meshport convert: the Linux CLI\'s bytes', () => {
  const app = path.join(work, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), '{"name": "app", "version": "1.0.0", "private": true}\n');
  const tgz = path.join(work, 'dist', `meshport-${version}.tgz`);
  const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tgz], { cwd: app, env: npmEnv, encoding: 'utf8' });
  assert.equal(install.status, 0, install.stderr);
  const pkg = JSON.parse(fs.readFileSync(path.join(app, 'node_modules/meshport/package.json'), 'utf8'));
  assert.equal(pkg.version, version);
  assert.deepEqual(pkg.dependencies ?? {}, {});
  for (const f of ['LICENSE', 'third-party-licenses/draco-LICENSE.txt', 'third-party-licenses/emscripten.txt',
    'third-party-licenses/fmt.txt', 'third-party-licenses/meshoptimizer.txt', 'third-party-licenses/eigen.txt'])
    assert.ok(fs.existsSync(path.join(app, 'node_modules/meshport', f)), `${f} is not in the package`);

  fs.copyFileSync(path.join(source, 'tests/data/cli/turret.pie'), path.join(app, 'in.pie'));
  const npx = spawnSync('npx', ['--offline', 'meshport', 'convert', 'in.pie', '-o', 'out.glb'], { cwd: app, env: npmEnv, encoding: 'utf8' });
  assert.equal(npx.status, 0, npx.stderr);
  const n = runNative(['convert', 'in.pie', '-o', 'native.glb'], app);
  assert.equal(n.status, 0);
  assert.ok(Buffer.compare(fs.readFileSync(path.join(app, 'out.glb')), fs.readFileSync(path.join(app, 'native.glb'))) === 0,
    'npx meshport convert wrote other bytes than the Linux CLI');
  assert.equal(npx.stderr.replaceAll('out.glb', 'native.glb'), n.stderr.toString());
  // An error's exit status reaches the shell.
  const bad = spawnSync('npx', ['--offline', 'meshport', 'info', 'missing.pie'], { cwd: app, env: npmEnv, encoding: 'utf8' });
  const nb = runNative(['info', 'missing.pie'], app);
  assert.equal(bad.status, nb.status);
  assert.notEqual(bad.status, 0);
  assert.equal(bad.stderr, nb.stderr.toString());
  assert.equal(fs.existsSync(path.join(app, 'missing.glb')), false);

  // The installed package's API, imported by name from that folder.
  const script = `
    import { convert, info } from 'meshport';
    import { readFile, writeFile } from 'node:fs/promises';
    const r = await convert(await readFile('in.pie'), { name: 'in.pie', to: 'glb' });
    await writeFile('api.glb', r.data);
    console.log(JSON.stringify({ files: Object.keys(r.files), meshes: (await info(r.data, 'api.glb')).meshes.length }));`;
  fs.writeFileSync(path.join(app, 'use.mjs'), script);
  const use = spawnSync(process.execPath, ['use.mjs'], { cwd: app, encoding: 'utf8' });
  assert.equal(use.status, 0, use.stderr);
  const printed = JSON.parse(use.stdout);
  assert.deepEqual(printed.files, ['in.glb']);
  const ni = JSON.parse(runNative(['info', '--json', 'native.glb'], app).stdout.toString());
  assert.equal(printed.meshes, ni.meshes.length);
  assert.ok(Buffer.compare(fs.readFileSync(path.join(app, 'api.glb')), fs.readFileSync(path.join(app, 'native.glb'))) === 0);
});
