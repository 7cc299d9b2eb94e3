// PIE alpha and team colour in a real browser (docs/pie.md "Alpha and blending", docs/viewer.md):
// a card whose page is half transparent shows only its opaque half in `meshport thumbnail` and in
// the viewer; additive and premultiplied pages get the game's blending; the team-colour picker
// recolours a TYPE 10200 model on the page from the mask embedded in the .glb (no request to the
// server) and gives the picture `convert --team-colour` bakes.
// Usage: node alpha_test.mjs MESHPORT WEB_DIR WORK_DIR. Fails (never skips) when Chromium or
// playwright-core is missing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { browserKit, checker, difference, open, pixels, view as viewModel } from './common.mjs';

const [meshport, webDir, work] = process.argv.slice(2);
if (!work) throw new Error('usage: alpha_test.mjs MESHPORT WEB_DIR WORK_DIR');
const { chromium, chromiumPath } = browserKit(webDir);

fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const failed = checker();
const { check } = failed;
const run = (...args) => execFileSync(meshport, args, { cwd: work, encoding: 'utf8' });

// ---- test files: PNG pages written here ---------------------------------------------------------
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
// An RGBA PNG of w x h pixels, colour(x, y) -> [r, g, b, a].
function png(w, h, colour) {
  const raw = Buffer.alloc((w * 4 + 1) * h);
  for (let y = 0; y < h; ++y)
    for (let x = 0; x < w; ++x) raw.set(colour(x, y), y * (w * 4 + 1) + 1 + x * 4);
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
                        chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
// A one-level PIE quad (100 x 100, facing +z) with the whole page on it.
const quad = (type, page) => `PIE 3\nTYPE ${type}\nTEXTURE 0 ${page} 0 0\nLEVELS 1\nLEVEL 1\nPOINTS 4\n` +
  '\t0 0 0\n\t100 0 0\n\t100 100 0\n\t0 100 0\nPOLYGONS 2\n' +
  '\t200 3 0 1 2 0 1 1 1 1 0\n\t200 3 0 2 3 0 1 1 0 0 0\n';

// The card: left half opaque green, right half transparent red.
fs.writeFileSync(path.join(work, 'card.png'), png(64, 64, (x) => (x < 32 ? [0, 200, 0, 255] : [255, 0, 0, 0])));
for (const [name, type] of [['card', '200'], ['glow', '202'], ['pre', '204']])
  fs.writeFileSync(path.join(work, `${name}.pie`), quad(type, 'card.png'));
// The hub: a grey page, its mask on the top half (alpha 255) only.
fs.writeFileSync(path.join(work, 'page-14-droid-hubs.png'), png(64, 64, () => [128, 128, 128, 255]));
fs.writeFileSync(path.join(work, 'page-14_tcmask.png'), png(64, 64, (x, y) => [255, 255, 255, y < 32 ? 255 : 0]));
fs.writeFileSync(path.join(work, 'hub.pie'), quad('10200', 'page-14-droid-hubs.png'));

// ---- helpers ---------------------------------------------------------------------------------------
const view = (files) => viewModel(meshport, work, files);

// Pixels by colour: clearly red (the transparent half), clearly green (the opaque half).
function tally(p) {
  const x = Buffer.from(p.rgba, 'base64');
  let red = 0, green = 0;
  for (let i = 0; i < x.length; i += 4) {
    if (x[i + 3] < 128) continue;
    if (x[i] > 120 && x[i + 1] < 80 && x[i + 2] < 80) red++;
    if (x[i + 1] > 100 && x[i] < 80 && x[i + 2] < 80) green++;
  }
  return { red, green };
}

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await browser.newPage({ viewport: { width: 640, height: 400 } });
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
try {
  // The card in the viewer: the opaque half only.
  {
    const server = view([path.join(work, 'card.pie')]);
    await open(page, await server.url);
    const t = tally(await pixels(page));
    check(t.green > 1000, `card.pie: the opaque half is not drawn (${t.green} green pixels)`);
    check(t.red === 0, `card.pie: the transparent half is drawn (${t.red} red pixels)`);
    const m = await page.evaluate(() => window.meshport.materials());
    check(m.length === 1 && m[0].alphaTest === 0.5 && m[0].blending === 'normal',
          `card.pie: material ${JSON.stringify(m)}, MASK 0.5 expected`);
    server.proc.kill();
  }
  // Additive and premultiplied pages: the game's blending.
  for (const [name, blending] of [['glow', 'additive'], ['pre', 'premultiplied']]) {
    const server = view([path.join(work, `${name}.pie`)]);
    await open(page, await server.url);
    const m = await page.evaluate(() => window.meshport.materials());
    check(m.length === 1 && m[0].blending === blending && m[0].transparent,
          `${name}.pie: material ${JSON.stringify(m)}, ${blending} blending expected`);
    server.proc.kill();
  }
  // The thumbnail (a transparent background): the card's transparent half is not drawn either.
  run('thumbnail', '-q', path.join(work, 'card.pie'), '-o', 'thumbs', '--size', '128', '--chromium', chromiumPath);
  const thumb = fs.readFileSync(path.join(work, 'thumbs', 'card.png')).toString('base64');
  const t = await page.evaluate(async (b64) => {
    const image = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
    const canvas = new OffscreenCanvas(image.width, image.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(image, 0, 0);
    const px = ctx.getImageData(0, 0, image.width, image.height).data;
    let red = 0, green = 0;
    for (let i = 0; i < px.length; i += 4) {
      if (px[i + 3] < 128) continue;
      if (px[i] > 120 && px[i + 1] < 80 && px[i + 2] < 80) red++;
      if (px[i + 1] > 100 && px[i] < 80 && px[i + 2] < 80) green++;
    }
    return { red, green };
  }, thumb);
  check(t.green > 200 && t.red === 0, `thumbnail of card.pie: ${t.green} green and ${t.red} red pixels`);

  // Team colour on the page from the embedded mask, equal to the baked picture.
  run('convert', '-q', 'hub.pie', '-o', 'hub.glb');
  run('convert', '-q', 'hub.pie', '-o', 'hub-red.glb', '--team-colour', '255,0,0');
  const tcRequests = [];
  page.on('request', (r) => { if (r.url().includes('tc=')) tcRequests.push(r.url()); });
  {
    const server = view([path.join(work, 'hub.glb')]);
    await open(page, await server.url);
    const before = await pixels(page);
    const how = await page.evaluate(() => window.meshport.retint('ff0000'));
    check(how === 'page', `hub.glb: the team colour was applied by '${how}', not on the page`);
    const after = await pixels(page);
    check(difference(before, after) > 0.05, 'hub.glb: the team colour does not change the picture');
    server.proc.kill();
    const baked = view([path.join(work, 'hub-red.glb')]);
    await open(page, await baked.url);
    const d = difference(after, await pixels(page), 12);
    check(d < 0.01, `hub.glb recoloured on the page differs from --team-colour 255,0,0 on ${(d * 100).toFixed(2)}% of the pixels`);
    baked.proc.kill();
  }
  check(tcRequests.length === 0, `team colour asked the server: ${tcRequests.join(', ')}`);
  check(consoleErrors.length === 0, `page errors: ${consoleErrors.join('; ')}`);
} catch (e) {
  check(false, e.stack || e);
} finally {
  await browser.close();
}
if (failed.failures) {
  console.error(`${failed.failures} failure(s); files in ${work}`);
  process.exit(1);
}
console.log('alpha and team colour: card, additive, premultiplied, thumbnail and team colour on the page checked');
