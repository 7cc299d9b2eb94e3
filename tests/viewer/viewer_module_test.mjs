// The viewer as a module (docs/viewer.md "The viewer as a module", CTest Viewer.Module): a page of
// its own, served by a small static server from a folder that is not the root (/app/deep/, as the
// static web app may), imports createViewer from ./viewer.js and shows .glb files `meshport
// convert` wrote, one after the other. After each show(): the counts are exactly the shown
// model's (`meshport info --json`), the first frame drew its triangles only, the panel was rebuilt
// for it (the animation picker holds its clips only, its levels, its morph sliders, its title and
// summary). A bad .glb rejects and shows the error; a show() overtaken by another drops its model;
// clear() empties the canvas and the panel, and leaves the page's own part of the panel. Only the
// page's folder, three.js and the models are requested.
// Usage: node viewer_module_test.mjs MESHPORT WEB_DIR SOURCE_DIR WORK_DIR. Fails (never skips)
// when Chromium or playwright-core is missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { browserKit, checker } from './common.mjs';

const [meshport, webDir, sourceDir, work] = process.argv.slice(2).map((a) => path.resolve(a));
if (!work) throw new Error('usage: viewer_module_test.mjs MESHPORT WEB_DIR SOURCE_DIR WORK_DIR');
const { chromium, chromiumPath } = browserKit(webDir);

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const failed = checker();
const { check } = failed;
const run = (...args) => execFileSync(meshport, args, { cwd: work, encoding: 'utf8' });

// ---- the models: the example tentacle (skinned, animation "wave"), the test turret (two PIE
// levels, a connector, animation "turret") and the ModeDef bar (three vibration modes, no animation).
const sources = {
  tentacle: path.join(sourceDir, 'examples', 'tentacle.iqe'),
  turret: path.join(sourceDir, 'tests', 'data', 'cli', 'turret.pie'),
  bar: path.join(sourceDir, 'tests', 'data', 'modedef', 'bar.model'),
};
const models = {};
for (const [name, file] of Object.entries(sources)) {
  run('convert', '-q', file, '-o', `${name}.glb`);
  const summary = JSON.parse(run('info', '--json', `${name}.glb`));
  models[name] = { info: { title: `${name}.glb`, team_colour: false, summary }, expected: summary };
}

// ---- the static site: the page and the viewer in /app/deep/, three.js in /three/, models in /models/.
const three = path.join(webDir, 'node_modules', 'three');
const page = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="viewer.css">
<style>html, body { margin: 0; height: 100%; } body { display: flex; } #view { flex: 1; }</style>
<script type="importmap">
{ "imports": { "three": "/three/three.module.js", "three/addons/": "/three/addons/" } }
</script></head>
<body><div id="view"></div><aside id="panel"><p id="footer">the page's own footer</p></aside>
<script type="module">
import { createViewer } from './viewer.js';
window.viewer = createViewer({ view: document.getElementById('view'), panel: document.getElementById('panel'), thumbnail: false });
</script></body></html>`;
const routes = new Map([
  ['/app/deep/index.html', ['text/html', Buffer.from(page)]],
  ['/app/deep/viewer.js', ['text/javascript', path.join(webDir, 'viewer.js')]],
  ['/app/deep/viewer.css', ['text/css', path.join(webDir, 'viewer.css')]],
  ['/three/three.module.js', ['text/javascript', path.join(three, 'build', 'three.module.min.js')]],
  ['/three/addons/controls/OrbitControls.js', ['text/javascript', path.join(three, 'examples/jsm/controls/OrbitControls.js')]],
  ['/three/addons/loaders/GLTFLoader.js', ['text/javascript', path.join(three, 'examples/jsm/loaders/GLTFLoader.js')]],
  ['/three/addons/utils/BufferGeometryUtils.js', ['text/javascript', path.join(three, 'examples/jsm/utils/BufferGeometryUtils.js')]],
  ...Object.keys(models).map((n) => [`/models/${n}.glb`, ['model/gltf-binary', path.join(work, `${n}.glb`)]]),
]);
const missing = [];
const server = http.createServer((req, res) => {
  const route = routes.get(new URL(req.url, 'http://x').pathname);
  if (!route) {
    missing.push(req.url);
    res.writeHead(404).end();
    return;
  }
  const [type, body] = route;
  res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(Buffer.isBuffer(body) ? body : fs.readFileSync(body));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const tab = await browser.newPage({ viewport: { width: 800, height: 450 } });
const pageErrors = [];
tab.on('pageerror', (e) => pageErrors.push(String(e)));

// What the page shows: the viewer's counts and the panel's content.
const state = () => tab.evaluate(() => {
  const $ = (id) => document.getElementById(id);
  const texts = (selector) => [...document.querySelectorAll(selector)].map((e) => e.textContent.trim());
  return {
    counts: window.viewer.api.counts,
    title: $('title').textContent,
    clips: texts('#animation option'),
    animationShown: !$('animation-box').classList.contains('mp-hidden'),
    levels: texts('#levels label'),
    morphs: texts('#morphs label'),
    summaryRows: $('summary').rows.length,
    json: $('json').textContent,
    connectorsShown: !$('connectors-row').classList.contains('mp-hidden'),
    skeletonShown: !$('skeleton-row').classList.contains('mp-hidden'),
    status: document.querySelector('.mp-status').textContent,
    footer: $('footer') ? $('footer').textContent : null,
    panelBodies: document.querySelectorAll('#panel .mp-panel-body').length,
    canvases: document.querySelectorAll('#view canvas').length,
    materials: window.viewer.api.materials().length,
  };
});
// Shows a model (as an ArrayBuffer or a Uint8Array): the first frame's figures.
const show = (name, asView) => tab.evaluate(async ({ name, info, asView }) => {
  const bytes = await (await fetch(`/models/${name}.glb`)).arrayBuffer();
  return window.viewer.show({ glb: asView ? new Uint8Array(bytes) : bytes, info });
}, { name, info: models[name].info, asView });
// The scalar entries of a summary (the panel's table rows).
const scalarRows = (s) => Object.values(s).filter((v) => v !== null && (typeof v !== 'object' || Array.isArray(v))).length;
// Triangles of a connector marker (SphereGeometry(r, 12, 8): 12 x 7 x 2).
const markerTriangles = 168;

// The shown model is exactly `name`'s.
async function checkShown(name, frame) {
  const e = models[name].expected;
  const s = await state();
  const c = s.counts;
  const morphs = e.meshes.reduce((n, m) => n + (m.morph_targets || 0), 0);
  check(c && c.meshes === e.meshes.length, `${name}: ${c && c.meshes} meshes, info says ${e.meshes.length}`);
  check(c && c.triangles === e.triangles, `${name}: ${c && c.triangles} triangles, info says ${e.triangles}`);
  check(c && c.animations === e.animations.length, `${name}: ${c && c.animations} animations, info says ${e.animations.length}`);
  check(c && c.attachments === e.attachments.length, `${name}: ${c && c.attachments} attachments, info says ${e.attachments.length}`);
  check(c && c.morphTargets === morphs, `${name}: ${c && c.morphTargets} morph targets, info says ${morphs}`);
  // three.js may make a material per mesh of one glTF material (the turret's skinned level): at
  // least the model's, nothing left of the last one.
  check(s.materials >= e.materials.length && s.materials <= e.meshes.length,
        `${name}: materials() lists ${s.materials}, info says ${e.materials.length} for ${e.meshes.length} meshes`);
  // The first frame: this model's triangles and one marker per connector, nothing of the last one.
  const triangles = e.triangles + markerTriangles * e.attachments.length;
  check(frame.triangles === triangles, `${name}: the first frame drew ${frame.triangles} triangles, ${triangles} expected`);
  check(s.title === `${name}.glb`, `${name}: title '${s.title}'`);
  const clips = e.animations.map((a) => a.name);
  check(JSON.stringify(s.clips) === JSON.stringify(clips), `${name}: animation picker ${JSON.stringify(s.clips)}, ${JSON.stringify(clips)} expected`);
  check(s.animationShown === clips.length > 0, `${name}: animation box shown: ${s.animationShown}`);
  check(s.summaryRows === scalarRows(e), `${name}: ${s.summaryRows} summary rows, ${scalarRows(e)} expected`);
  check(s.json === JSON.stringify(e, null, 1), `${name}: the info --json text is not the model's`);
  check(s.connectorsShown === e.attachments.length > 0, `${name}: connectors toggle shown: ${s.connectorsShown}`);
  check(s.skeletonShown === e.joints > 0, `${name}: skeleton toggle shown: ${s.skeletonShown}`);
  check(s.status === '', `${name}: status '${s.status}'`);
  check(s.footer === "the page's own footer" && s.panelBodies === 1 && s.canvases === 1,
        `${name}: page footer ${s.footer}, ${s.panelBodies} panels, ${s.canvases} canvases`);
  return s;
}

try {
  await tab.goto(`${origin}/app/deep/index.html`);
  await tab.waitForFunction(() => window.viewer, null, { timeout: 60000 });
  {
    const s = await state();
    check(s.counts === null && s.title === '' && s.clips.length === 0 && s.summaryRows === 0 && s.panelBodies === 1,
          `before any model: ${JSON.stringify(s)}`);
  }

  // The tentacle (an ArrayBuffer), then the turret (a Uint8Array) replacing it, then the bar.
  await checkShown('tentacle', await show('tentacle', false));
  const turret = await checkShown('turret', await show('turret', true));
  check(JSON.stringify(turret.levels) === '["level 1","level 2"]', `turret: levels ${JSON.stringify(turret.levels)}`);
  check(turret.morphs.length === 0, `turret: morph sliders ${JSON.stringify(turret.morphs)}`);
  const bar = await checkShown('bar', await show('bar', false));
  check(bar.morphs.length === 3, `bar: ${bar.morphs.length} mode sliders (${bar.morphs})`);
  // The meshes by the model's own names (not three.js's object names, which drop '.' and '/').
  check(JSON.stringify(bar.levels) === JSON.stringify(models.bar.expected.meshes.map((m) => m.name)),
        `bar: meshes listed as ${JSON.stringify(bar.levels)}`);
  // The hooks act on the model shown last: the bar's first mode slider moves its picture.
  const moved = await tab.evaluate(() => {
    const before = window.viewer.api.pixels().rgba;
    window.viewer.api.setMorph(0, 0, 1.5);
    return window.viewer.api.pixels().rgba !== before;
  });
  check(moved, 'bar: setMorph does not change the picture');

  // A bad .glb: the promise rejects, the status line says why, nothing is left shown.
  const bad = await tab.evaluate(() => window.viewer.show({ glb: new Uint8Array([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0, 9, 0, 0, 0]), info: { title: 'bad' } })
    .then(() => 'resolved', (e) => String(e)));
  {
    const s = await state();
    check(bad !== 'resolved', 'a bad .glb was shown');
    check(s.status === `error: ${bad}`, `bad .glb: status '${s.status}', rejected with '${bad}'`);
    check(s.counts === null && s.title === '' && s.materials === 0, `bad .glb: left ${JSON.stringify(s.counts)}, title '${s.title}'`);
  }

  // Two shows at once: the first, overtaken, rejects (AbortError); the second is shown.
  const race = await tab.evaluate(async ({ a, b }) => {
    const get = async (n) => (await fetch(`/models/${n}.glb`)).arrayBuffer();
    const [ta, tb] = await Promise.all([get('tentacle'), get('turret')]);
    const first = window.viewer.show({ glb: ta, info: a }).then(() => 'resolved', (e) => e.name);
    const second = await window.viewer.show({ glb: tb, info: b });
    return { first: await first, second };
  }, { a: models.tentacle.info, b: models.turret.info });
  check(race.first === 'AbortError', `an overtaken show() gave ${race.first}`);
  await checkShown('turret', race.second);

  // clear(): no model, an empty panel (the page's footer kept), a canvas of the background only.
  const cleared = await tab.evaluate(() => {
    window.viewer.clear();
    const p = window.viewer.api.pixels();
    const x = atob(p.rgba);
    let other = 0;
    for (let i = 0; i < x.length; i += 4)
      if (x.charCodeAt(i) !== 0x30 || x.charCodeAt(i + 1) !== 0x31 || x.charCodeAt(i + 2) !== 0x34) other++;
    return { other, pixels: x.length / 4 };
  });
  {
    const s = await state();
    check(s.counts === null && s.title === '' && s.clips.length === 0 && s.levels.length === 0 && s.morphs.length === 0 &&
          s.summaryRows === 0 && s.json === '' && s.materials === 0 && !s.animationShown && !s.connectorsShown,
          `clear() left ${JSON.stringify(s)}`);
    check(s.footer === "the page's own footer" && s.panelBodies === 1, 'clear() removed the page\'s part of the panel');
    check(cleared.pixels > 0 && cleared.other === 0, `clear(): ${cleared.other} of ${cleared.pixels} pixels are not the background`);
  }
  check(missing.length === 0, `requests outside the site: ${missing.join(', ')}`);
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`);
} catch (e) {
  check(false, e.stack || e);
} finally {
  await browser.close();
  server.close();
}
if (failed.failures) {
  console.error(`${failed.failures} failure(s); files in ${work}`);
  process.exit(1);
}
console.log('viewer module: three models shown in turn, a bad .glb, an overtaken show() and clear() checked');
