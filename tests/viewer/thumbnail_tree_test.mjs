// `meshport thumbnail` over a tree under load (CTest Viewer.ThumbnailTree, docs/viewer.md
// "Thumbnails"): 20 models of tests/data and examples/ in a tree, drawn 5 times with --force
// while a busy loop takes a core: every run exits 0 with 20 PNGs of the model drawn, mirroring
// the tree (0 empty pictures). Then: a run without --force skips them all (up to date); a model
// that cannot be drawn is named, the others are drawn, the exit status is 1; a page given too
// little time names its model; --sheet writes the grid; Ctrl-C finishes the picture being drawn,
// exits 130 and leaves neither Chromium nor its profile.
//
// Usage: node thumbnail_tree_test.mjs MESHPORT SOURCE_DIR WORK_DIR
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const [meshport, source, work] = process.argv.slice(2).map((a) => path.resolve(a));
const chromium = process.env.MESHPORT_CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromium)) throw new Error(`${chromium} is missing: install Debian's chromium (scripts/install-deps.sh)`);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

let failures = 0;
const check = (ok, message) => { if (!ok) { failures++; console.error(`FAIL: ${message}`); } };

// An 8-bit RGBA or RGB PNG (what Chromium and stb_image_write give): width, height and the
// number of pixels with alpha > 0.
function readPng(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 1, 4) !== 'PNG') throw new Error(`${file}: not a PNG`);
  let pos = 8, width = 0, height = 0, type = 0;
  const idat = [];
  while (pos < b.length) {
    const len = b.readUInt32BE(pos), kind = b.toString('latin1', pos + 4, pos + 8), data = b.subarray(pos + 8, pos + 8 + len);
    if (kind === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4); type = data[9];
      if (data[8] !== 8 || (type !== 6 && type !== 2) || data[12] !== 0) throw new Error(`${file}: not 8-bit RGB(A)`);
    }
    if (kind === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const bpp = type === 6 ? 4 : 3, stride = width * bpp, raw = zlib.inflateSync(Buffer.concat(idat));
  const px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? px[y * stride + x - bpp] : 0, up = y ? px[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y ? px[(y - 1) * stride + x - bpp] : 0;
      const p = a + up - c, pa = Math.abs(p - a), pb = Math.abs(p - up), pc = Math.abs(p - c);
      const pred = [0, a, up, (a + up) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? up : c][f];
      px[y * stride + x] = (line[x] + pred) & 255;
    }
  }
  let drawn = 0;
  for (let i = 0; i < width * height; i++) if (type === 2 || px[i * 4 + 3] > 0) drawn++;
  return { width, height, drawn };
}

// The tree: 20 models in folders (PIE, IQE, OBJ, QMSH, ModeDef).
const data = path.join(source, 'tests', 'data');
const models = [
  ...['feat-anim-groups', 'feat-anim', 'feat-normals', 'feat-pie2', 'feat-pie4', 'feat-shadow'].map((n) => [`pie/feat/${n}.pie`, `pie/${n}.pie`]),
  ...['warn-duplicate-texture', 'warn-empty-level', 'warn-frame-sequence', 'warn-materials', 'warn-normals-count',
      'warn-shaders', 'warn-shadowpoints-only', 'warn-unknown-after-last'].map((n) => [`pie/warn/${n}.pie`, `pie/${n}.pie`]),
  ['units/turret.pie', 'cli/turret.pie'], ['units/skinned.iqe', 'cli/skinned.iqe'], ['other/scene.obj', 'obj/scene.obj'],
  ['other/scene.mtl', 'obj/scene.mtl'], ['other/cube.qmsh.tmp', 'qmsh/cube.qmsh.tmp'], ['other/full.model', 'modedef/full.model'],
];
const tree = path.join(work, 'models');
for (const [to, from] of models) {
  fs.mkdirSync(path.dirname(path.join(tree, to)), { recursive: true });
  fs.copyFileSync(path.join(data, from), path.join(tree, to));
}
fs.copyFileSync(path.join(source, 'examples', 'tentacle.iqe'), path.join(tree, 'tentacle.iqe'));
const pngs = models.filter(([to]) => !to.endsWith('.mtl'))
  .map(([to]) => to.replace(/\.(pie|iqe|obj|qmsh\.tmp|model)$/, '.png')).concat(['tentacle.png']);
check(pngs.length === 20, `${pngs.length} models in the tree, not 20`);

const run = (args) => spawnSync(meshport, ['thumbnail', ...args, '--chromium', chromium, '--progress', 'none'],
                                { cwd: work, encoding: 'utf8', timeout: 120000 });

// A busy loop on one core for the whole test (the load the thumbnails must survive).
const busy = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
const started = Date.now();
try {
  for (let i = 1; i <= 5; i++) {
    const t0 = Date.now();
    const out = path.join(work, `out${i}`);
    const r = run([tree, '-o', out, '--size', '96', '--jobs', '2', '--force', '-q']);
    check(r.status === 0, `run ${i}: exit ${r.status} (${r.signal || ''}): ${r.stderr}`);
    check(/^20 models: \d+ drawn, \d+ warned, 0 failed, 0 skipped/m.test(r.stderr), `run ${i}: ${r.stderr}`);
    let empty = 0;
    for (const png of pngs) {
      const file = path.join(out, png);
      if (!fs.existsSync(file)) { check(false, `run ${i}: ${png} missing`); continue; }
      const p = readPng(file);
      check(p.width === 96 && p.height === 96, `run ${i}: ${png} is ${p.width}x${p.height}`);
      if (p.drawn === 0) empty++;
    }
    check(empty === 0, `run ${i}: ${empty} empty thumbnails`);
    console.log(`run ${i}: 20 models in ${((Date.now() - t0) / 1000).toFixed(1)} s (a core busy)`);
  }

  // Up to date: nothing drawn again, no PNG rewritten.
  const out1 = path.join(work, 'out1'), first = path.join(out1, pngs[0]);
  const mtime = fs.statSync(first).mtimeMs;
  const again = run([tree, '-o', out1, '--size', '96', '-q']);
  check(again.status === 0 && /^20 models: 0 drawn, 0 warned, 0 failed, 20 skipped/m.test(again.stderr),
        `second run: exit ${again.status}: ${again.stderr}`);
  check(fs.statSync(first).mtimeMs === mtime, `${first} was rewritten although up to date`);
  // Another size changes the stamp: everything is drawn again.
  const resized = run([tree, '-o', out1, '--size', '64', '-q']);
  check(resized.status === 0 && /^20 models: \d+ drawn, \d+ warned, 0 failed, 0 skipped/m.test(resized.stderr),
        `--size 64 over the same folder: ${resized.stderr}`);
  check(readPng(first).width === 64, `${first} not redrawn at 64 pixels`);

  // Failures: a model with nothing to draw and one that cannot be read, beside good ones.
  const bad = path.join(work, 'bad');
  fs.mkdirSync(bad);
  fs.copyFileSync(path.join(data, 'qmsh', 'minimal.qmsh.tmp'), path.join(bad, 'nothing.qmsh.tmp'));
  fs.copyFileSync(path.join(data, 'pie', 'err-no-level.pie'), path.join(bad, 'broken.pie'));
  fs.copyFileSync(path.join(data, 'cli', 'turret.pie'), path.join(bad, 'turret.pie'));
  const sheet = path.join(work, 'sheet.png');
  const f = run([bad, '-o', path.join(work, 'bad-out'), '--size', '64', '--sheet', sheet]);
  check(f.status === 1, `a failing model: exit ${f.status}`);
  check(/nothing\.qmsh\.tmp: error: the thumbnail is empty/.test(f.stderr), `the empty model is not named: ${f.stderr}`);
  check(/broken\.pie:\S* error: /.test(f.stderr), `the unreadable model is not named: ${f.stderr}`);
  check(/^3 models: 0 drawn, 1 warned, 2 failed, 0 skipped/m.test(f.stderr), `failing run: ${f.stderr}`);
  check(readPng(path.join(work, 'bad-out', 'turret.png')).drawn > 0, 'turret.png not drawn beside failing models');
  // The contact sheet: 3 cells in 2 columns and 2 rows of 64 + 16 pixels, opaque.
  const s = readPng(sheet);
  check(s.width === 128 && s.height === 160 && s.drawn === 128 * 160, `sheet ${s.width}x${s.height}, ${s.drawn} drawn`);

  // A page given too little time: an error naming the model, never a hang.
  const t = run([path.join(tree, 'tentacle.iqe'), '-o', path.join(work, 'slow'), '--timeout', '0.01']);
  check(t.status === 1 && /tentacle\.iqe: error: .*within 0\.01 s/.test(t.stderr), `--timeout 0.01: ${t.status} ${t.stderr}`);

  // Ctrl-C, sent to meshport's process group as a terminal sends it, once the first picture is
  // written: exit 130, the pictures written are whole, fewer than all, and neither Chromium nor
  // its profile (made under TMPDIR) is left.
  const tmp = path.join(work, 'tmp'), outc = path.join(work, 'interrupted');
  fs.mkdirSync(tmp);
  const child = spawn(meshport, ['thumbnail', tree, '-o', outc, '--size', '64', '--jobs', '1', '--chromium', chromium,
                                 '--progress', 'none'], { cwd: work, detached: true, env: { ...process.env, TMPDIR: tmp } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const written = () => (fs.existsSync(outc) ? fs.readdirSync(outc, { recursive: true }).filter((f) => f.endsWith('.png')) : []);
  const deadline = Date.now() + 60000;
  while (written().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  check(written().length > 0, `no picture written within 60 s: ${stderr}`);
  process.kill(-child.pid, 'SIGINT');
  const end = await exited;
  check(end.code === 130, `interrupted run: exit ${end.code} (${end.signal || ''}): ${stderr}`);
  check(/interrupted: finishing the pictures being drawn/.test(stderr), `no interrupt message: ${stderr}`);
  check(/^20 models: .* skipped in .*\(interrupted\)$/m.test(stderr), `no interrupted summary: ${stderr}`);
  const drawnBeforeStop = written();
  check(drawnBeforeStop.length < 20, `all 20 pictures drawn although interrupted after the first`);
  for (const f of drawnBeforeStop) check(readPng(path.join(outc, f)).drawn > 0, `${f} not whole after Ctrl-C`);
  check(fs.readdirSync(tmp).length === 0, `left in TMPDIR after Ctrl-C: ${fs.readdirSync(tmp).join(', ')}`);
  const left = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try { return fs.readFileSync(`/proc/${p}/cmdline`, 'latin1').includes(`--user-data-dir=${tmp}`); } catch { return false; }
  });
  check(left.length === 0, `Chromium processes left after Ctrl-C: ${left.join(' ')}`);
} finally {
  busy.kill('SIGKILL');
}
if (failures) {
  console.error(`${failures} failure(s); pictures in ${work}`);
  process.exit(1);
}
console.log(`thumbnail tree: 5 x 20 models drawn under load, 0 empty; up to date, failures, sheet and timeout checked ` +
            `in ${((Date.now() - started) / 1000).toFixed(0)} s; pictures in ${work}`);
