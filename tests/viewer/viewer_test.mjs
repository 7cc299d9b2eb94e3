// The viewer in a real browser (docs/viewer.md "Tests"): playwright-core drives Debian's Chromium
// (headless, WebGL through SwiftShader) over `meshport view` for models of every format, checks
// the scene graph against `meshport info --json`, plays an animation and a morph target and checks
// that the picture changes, compares screenshots of one model read from different formats, checks
// that the server stops after the page is closed, and that `meshport thumbnail` draws something.
// Usage: node viewer_test.mjs MESHPORT WEB_DIR SOURCE_DIR WORK_DIR. Fails (never skips) when
// Chromium or playwright-core is missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { browserKit, checker, difference, open, pixels, view as viewModel } from './common.mjs';

const [meshport, webDir, sourceDir, work] = process.argv.slice(2);
if (!work) throw new Error('usage: viewer_test.mjs MESHPORT WEB_DIR SOURCE_DIR WORK_DIR');
const { chromium, chromiumPath } = browserKit(webDir);  // `make web-deps` installs playwright-core

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const failed = checker();
const { check } = failed;
const run = (...args) => execFileSync(meshport, args, { cwd: work, encoding: 'utf8' });
const info = (...files) => JSON.parse(run('info', '--json', ...files));

// ---- the models: every format meshport writes, from the example and the tests' own files --------
const tentacle = path.join(sourceDir, 'examples', 'tentacle.iqe');
const turret = path.join(sourceDir, 'tests', 'data', 'cli', 'turret.pie');
const bar = path.join(sourceDir, 'tests', 'data', 'modedef', 'bar.model');
const models = [tentacle];
for (const ext of ['iqm', 'glb', 'gltf', 'obj', 'pie', 'qmsh.tmp', 'qmsh', 'model']) {
  run('convert', '-q', tentacle, '-o', `tentacle.${ext}`);
  models.push(path.join(work, `tentacle.${ext}`));
}
run('convert', '-q', turret, '-o', 'turret.glb');
run('convert', '-q', bar, '-o', 'bar.glb');
models.push(turret, path.join(work, 'turret.glb'), bar, path.join(work, 'bar.glb'));

const view = (files, extra = []) => viewModel(meshport, work, files, extra);

// Fraction of pixels that differ from the corner pixel (the background).
function coverage(a) {
  const x = Buffer.from(a.rgba, 'base64');
  let n = 0;
  for (let i = 0; i < x.length; i += 4)
    if (Math.abs(x[i] - x[0]) + Math.abs(x[i + 1] - x[1]) + Math.abs(x[i + 2] - x[2]) > 30) n++;
  return n / (x.length / 4);
}

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await browser.newPage({ viewport: { width: 800, height: 450 } });
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));

const pictures = {};
try {
  // Every format: the scene graph three.js built matches `info --json`.
  for (const file of models) {
    const name = path.basename(file);
    const server = view([file]);
    const counts = await open(page, await server.url);
    const expected = info(file);
    const morphs = expected.meshes.reduce((n, m) => n + (m.morph_targets || 0), 0);
    check(counts.meshes === expected.meshes.length, `${name}: ${counts.meshes} meshes shown, info says ${expected.meshes.length}`);
    check(counts.triangles === expected.triangles, `${name}: ${counts.triangles} triangles shown, info says ${expected.triangles}`);
    check(counts.animations === expected.animations.length, `${name}: ${counts.animations} animations, info says ${expected.animations.length}`);
    check(counts.attachments === expected.attachments.length, `${name}: ${counts.attachments} connectors/attachments, info says ${expected.attachments.length}`);
    check(counts.morphTargets === morphs, `${name}: ${counts.morphTargets} morph targets, info says ${morphs}`);
    if (counts.skinnedMeshes) check(counts.bones === expected.joints, `${name}: ${counts.bones} bones, info says ${expected.joints} joints`);
    const summary = await page.evaluate(() => window.meshport.info.summary);
    check(summary.meshes.length === expected.meshes.length && summary.format === expected.format,
          `${name}: the page's summary is not info's`);
    await page.evaluate(() => { window.meshport.pause(); window.meshport.setTime(0); });
    pictures[name] = await pixels(page);
    check(coverage(pictures[name]) > 0.005, `${name}: nothing drawn (coverage ${coverage(pictures[name])})`);
    await page.screenshot({ path: path.join(work, `${name}.png`) });

    if (name === 'tentacle.iqe' || name === 'turret.pie') {
      // Play: the picture changes between the start and the middle of the animation.
      const duration = await page.evaluate(() => Number(document.getElementById('scrub').max));
      await page.evaluate((t) => window.meshport.setTime(t), duration / 2);
      const middle = await pixels(page);
      check(difference(pictures[name], middle) > 0.002, `${name}: the animation does not change the picture`);
      await page.screenshot({ path: path.join(work, `${name}-animated.png`) });
      // ... and real playback (requestAnimationFrame) moves the time. Polled rather than read once
      // after a fixed wait: a looping clip as short as the turret's (0.3 s) can wrap round to a time
      // the scrub bar (step 0.001) shows as where it started, and a loaded machine draws late.
      const before = await page.evaluate(() => document.getElementById('scrub').value);
      await page.evaluate(() => { document.getElementById('play').click(); });
      const moved = await page.waitForFunction((v) => document.getElementById('scrub').value !== v, before,
                                               { timeout: 20000 }).then(() => true, () => false);
      check(moved, `${name}: playing does not advance the animation`);
      // Wireframe changes the picture.
      await page.evaluate(() => { window.meshport.pause(); window.meshport.setTime(0); window.meshport.setWireframe(true); });
      check(difference(pictures[name], await pixels(page)) > 0.002, `${name}: wireframe does not change the picture`);
      await page.evaluate(() => window.meshport.setWireframe(false));
    }
    // A still picture draws no frames: none while nothing moves (paused above), one per change.
    const still = await page.evaluate(async () => {
      const before = window.meshport.frames;
      await new Promise((r) => setTimeout(r, 400));
      const idle = window.meshport.frames - before;
      window.meshport.setTime(0);
      return { idle, change: window.meshport.frames - before - idle };
    });
    check(still.idle === 0 && still.change === 1, `${name}: ${still.idle} frames drawn while still, ${still.change} for one change`);

    if (name === 'bar.model') {
      // One slider per vibration mode (shared by the model's meshes); moving one moves the model.
      const sliders = await page.evaluate(() => [...document.querySelectorAll('#morphs label')].map((l) => l.textContent.trim()));
      check(sliders.length === 3, `${name}: ${sliders.length} mode sliders (${sliders})`);
      await page.evaluate(() => {
        const slider = document.querySelector('#morphs input');
        slider.value = '1.5';
        slider.dispatchEvent(new Event('input'));
      });
      check(difference(pictures[name], await pixels(page)) > 0.002, `${name}: a morph target does not change the picture`);
    }
    if (name === 'turret.pie') {
      const levels = await page.evaluate(() => [...document.querySelectorAll('#levels label')].map((l) => l.textContent.trim()));
      check(levels.join(',') === 'level 1,level 2', `turret.pie: levels listed as ${levels}`);
    }
    server.proc.kill('SIGTERM');
    await server.exited;
  }

  // One model read from different formats: the same picture, within a tolerance.
  const same = [['tentacle.iqe', 'tentacle.glb'], ['tentacle.iqe', 'tentacle.iqm'], ['tentacle.iqe', 'tentacle.gltf'],
                ['tentacle.iqe', 'tentacle.qmsh'], ['turret.pie', 'turret.glb'], ['bar.model', 'bar.glb']];
  for (const [a, b] of same) {
    const d = difference(pictures[a], pictures[b]);
    check(d < 0.01, `${a} and ${b} look different: ${(d * 100).toFixed(2)}% of the pixels`);
  }
  check(difference(pictures['tentacle.iqe'], pictures['turret.pie']) > 0.05, 'two different models look the same');

  // A unit from parts: the turret as body, propulsion and weapon; `assemble` gives the same model.
  run('assemble', '-q', turret, turret, turret, '-o', 'unit.glb');
  const unitInfo = info(path.join(work, 'unit.glb'));
  const unit = view([turret, turret, turret]);
  const unitCounts = await open(page, await unit.url);
  check(unitCounts.meshes === 6 && unitInfo.meshes.length === 6, `assembled unit: ${unitCounts.meshes} meshes shown, unit.glb has ${unitInfo.meshes.length}`);
  check(unitCounts.attachments === unitInfo.attachments.length, 'assembled unit: connectors differ from unit.glb');
  const unitLevels = await page.evaluate(() => [...document.querySelectorAll('#levels label')].map((l) => l.textContent.trim()));
  check(unitLevels.join(',') === 'level 1,level 2,level 1 (part 2),level 2 (part 2),level 1 (part 3),level 2 (part 3)',
        `assembled unit: levels listed as ${unitLevels}`);
  await page.screenshot({ path: path.join(work, 'unit.png') });
  unit.proc.kill('SIGTERM');
  await unit.exited;

  // The server stops by itself a while after its page is closed.
  const idle = view([tentacle], ['--idle', '2']);
  const idlePage = await browser.newPage();
  await open(idlePage, await idle.url);
  await idlePage.close();
  const started = Date.now();
  const stop = await Promise.race([idle.exited, new Promise((r) => setTimeout(() => r(null), 20000))]);
  check(stop && stop.code === 0 && /stopped \(idle\)/.test(stop.stderr), `view did not stop after its page closed: ${JSON.stringify(stop)}`);
  check(Date.now() - started < 15000, 'view took too long to stop');
  if (!stop) idle.proc.kill('SIGKILL');

  // Thumbnails through the same page: PNGs with the model drawn on a transparent background.
  run('thumbnail', '-q', tentacle, turret, '-o', 'thumbs', '--size', '128', '--chromium', chromiumPath);
  for (const png of ['tentacle.png', 'turret.png']) {
    const file = path.join(work, 'thumbs', png);
    check(fs.existsSync(file) && fs.statSync(file).size > 100, `thumbnail ${png} missing`);
    if (!fs.existsSync(file)) continue;
    const data = fs.readFileSync(file).toString('base64');
    const drawn = await page.evaluate(async (b64) => {
      const blob = await (await fetch(`data:image/png;base64,${b64}`)).blob();
      const image = await createImageBitmap(blob);
      const canvas = new OffscreenCanvas(image.width, image.height);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(image, 0, 0);
      const px = ctx.getImageData(0, 0, image.width, image.height).data;
      let opaque = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) opaque++;
      return { width: image.width, height: image.height, fraction: opaque / (px.length / 4) };
    }, data);
    check(drawn.width === 128 && drawn.height === 128, `thumbnail ${png} is ${drawn.width}x${drawn.height}`);
    check(drawn.fraction > 0.01 && drawn.fraction < 0.95, `thumbnail ${png}: ${drawn.fraction} of the pixels drawn`);
  }
  check(consoleErrors.length === 0, `page errors: ${consoleErrors.join('; ')}`);
} catch (e) {
  check(false, e.stack || e);
} finally {
  await browser.close();
}
if (failed.failures) {
  console.error(`${failed.failures} failure(s); screenshots in ${work}`);
  process.exit(1);
}
console.log(`viewer: ${models.length} models, unit, idle stop and thumbnails checked; screenshots in ${work}`);
