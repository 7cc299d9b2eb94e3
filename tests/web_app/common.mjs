// What the web app's browser tests share (tests/web_app/browser_test.mjs, docs/web-app.md "Tests"): a static HTTP
// server over build-web/ that logs every request, Chromium through playwright-core (the viewer
// test's browserKit), files dropped on the page through a DataTransfer, downloads caught as bytes,
// a zip reader, and the native CLI run in a folder laid out like the dropped tree.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';

export { browserKit } from '../viewer/common.mjs';

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
  '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8', '.webmanifest': 'application/manifest+json',
  '.ico': 'image/x-icon',
};

// A static server over ROOT on 127.0.0.1 (a free port): {url, log, stop(), close()}. `log` holds every
// request's path, in order; a path outside ROOT or a missing file gets 404 (also logged).
export async function serve(root) {
  const log = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    log.push({ method: req.method, path: url.pathname });
    let file = path.join(root, decodeURIComponent(url.pathname));
    if (!file.startsWith(root)) file = '';
    if (file && fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!file || !fs.existsSync(file)) {
      log[log.length - 1].status = 404;
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const type = types[path.extname(file).toLowerCase()] || 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache' });
    res.end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  let stopped = false;
  // stop(): the origin goes away (no new connection, the open ones cut), as a network that is gone.
  const stop = () => {
    if (stopped) return Promise.resolve();
    stopped = true;
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    return closed;
  };
  return { url, log, stop, close: stop };
}

// build-web/ as `make web-app` leaves it; fails (never skips) when it is missing.
export function checkBuildWeb(dir) {
  for (const f of ['index.html', 'viewer.js', 'meshport/api.mjs', 'meshport/dist/meshport_api.wasm'])
    if (!fs.existsSync(path.join(dir, f))) throw new Error(`${path.join(dir, f)} is missing: run make web-app (scripts/build-web.sh)`);
}

export const chromiumArgs = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export { checker } from '../viewer/common.mjs';

// Every request of the context must stay on ORIGIN (or be a data:/blob: URL): others are aborted
// and listed in the returned array.
export async function confine(context, origin) {
  const outside = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(origin) || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
    outside.push(u);
    return route.abort();
  });
  context.on('request', (r) => {
    const u = r.url();
    if (!(u.startsWith(origin) || u.startsWith('data:') || u.startsWith('blob:')) && !outside.includes(u)) outside.push(u);
  });
  return outside;
}

// The page at URL once window.meshportApp.ready resolved.
export async function openApp(page, url) {
  const errors = [];
  const onError = (e) => errors.push(String(e));
  page.on('pageerror', onError);
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.meshportApp && window.meshportApp.ready, null, { timeout: 60000 });
    await page.evaluate(() => window.meshportApp.ready);
  } catch (e) {
    const status = await page.evaluate(() => (document.getElementById('status') || {}).textContent).catch(() => null);
    throw new Error(`the page at ${url} did not get ready (${e.message.split('\n')[0]}); #status: ${JSON.stringify(status)}; ` +
                    `page errors: ${errors.join('; ') || 'none'}`);
  } finally {
    page.off('pageerror', onError);
  }
}

// Until the app is not busy (after a command started).
export async function idle(page, timeout = 120000) {
  await page.waitForFunction(() => !window.meshportApp.busy, null, { timeout, polling: 50 });
}

// Drops FILES ({name: Buffer}) on #drop through a DataTransfer (dragenter, dragover, drop), as a
// user dropping files from a file manager; waits until each shows in #tree and the app is idle.
export async function drop(page, files) {
  const list = Object.entries(files).map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]);
  await page.evaluate((entries) => {
    const dt = new DataTransfer();
    for (const [name, b64] of entries) {
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
    }
    const target = document.getElementById('drop');
    for (const type of ['dragenter', 'dragover', 'drop'])
      target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
  }, list);
  await waitTree(page, Object.keys(files));
}

export async function waitTree(page, names, timeout = 60000) {
  await page.waitForFunction((ns) => ns.every((n) => document.querySelector(`#tree li[data-path="${CSS.escape(n)}"]`)),
                             names, { timeout });
  await idle(page);
}

// The viewer's counts once they match WANT ({meshes, triangles, ...}; the app is idle once the
// CLI's command ran, the viewer may still be loading its picture), or the last counts seen.
export async function shownCounts(page, want, timeout = 30000) {
  await page.waitForFunction((w) => {
    const v = window.meshportApp.viewer;
    return v && v.counts && v.frames > 0 && Object.entries(w).every(([k, x]) => v.counts[k] === x);
  }, want, { timeout, polling: 50 }).catch(() => {});
  return page.evaluate(() => window.meshportApp.viewer && window.meshportApp.viewer.counts);
}

// The paths #tree lists, and those it marks as models.
export const treePaths = (page) => page.evaluate(() => [...document.querySelectorAll('#tree li[data-path]')]
  .map((li) => ({ path: li.dataset.path, model: li.classList.contains('model') })));

// Clicks the model PATH in #tree; waits until #info-json holds its summary and the app is idle.
export async function select(page, file) {
  await page.evaluate(() => { const e = document.getElementById('info-json'); if (e) e.textContent = ''; });
  await page.click(`#tree li[data-path="${file}"]`);
  await page.waitForFunction(() => {
    const t = document.getElementById('info-json');
    const err = document.getElementById('error');
    return (t && t.textContent.trim()) || (err && err.textContent.trim());
  }, null, { timeout: 60000 });
  await idle(page);
}

export const text = (page, id) => page.evaluate((i) => {
  const e = document.getElementById(i);
  return e ? e.textContent : null;
}, id);

// The visible text of #error ('' when hidden or empty).
export const errorText = (page) => page.evaluate(() => {
  const e = document.getElementById('error');
  if (!e || e.hidden || getComputedStyle(e).display === 'none') return '';
  return e.textContent.trim();
});

// Clicks the button SELECTOR (through the DOM: the panel holding it may be folded away).
export async function press(page, selector) {
  await page.evaluate((s) => {
    const e = document.querySelector(s);
    if (!e) throw new Error(`${s} is missing`);
    e.click();
  }, selector);
}

// Clicks SELECTOR and waits for the app to finish: {download: {name, bytes} | null, error}.
// A command that fails gives no download; one that succeeds must give one within `timeout`.
export async function clickForDownload(page, selector, { expectDownload = true, timeout = 120000 } = {}) {
  const got = page.waitForEvent('download', { timeout: expectDownload ? timeout : 1500 }).catch(() => null);
  await press(page, selector);
  await idle(page, timeout);
  const dl = await got;
  let download = null;
  if (dl) {
    const file = await dl.path();
    download = { name: dl.suggestedFilename(), bytes: fs.readFileSync(file) };
  }
  return { download, error: await errorText(page) };
}

// The members of a zip file: {name: Buffer} (stored and deflated members, no zip64).
export function unzip(buf) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error('not a zip file: no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = {};
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`zip: bad central directory entry ${i}`);
    const method = buf.readUInt16LE(p + 10);
    const compressedSize = buf.readUInt32LE(p + 20), usize = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28), extraLen = buf.readUInt16LE(p + 30), commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    p += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith('/')) continue;
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + compressedSize);
    if (method === 0) out[name] = Buffer.from(data);
    else if (method === 8) out[name] = zlib.inflateRawSync(data);
    else throw new Error(`zip: ${name}: compression method ${method}`);
    if (out[name].length !== usize) throw new Error(`zip: ${name}: ${out[name].length} bytes, the directory says ${usize}`);
  }
  return out;
}

export { readTree } from '../wasm/files.mjs';
import { gridIqe as sharedGridIqe } from '../wasm/files.mjs';

// Writes FILES ({relative path: bytes}) into DIR (made afresh).
export function writeTree(dir, files) {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [name, bytes] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), bytes);
  }
}

// `meshport ARGS` in CWD: {status, stdout, stderr} as text.
export function cli(meshport, args, cwd) {
  const r = spawnSync(meshport, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Compares two {name: Buffer} maps; returns the differences as text (empty when the same).
export function treeDifferences(actual, expected) {
  const problems = [];
  const a = Object.keys(actual).sort(), e = Object.keys(expected).sort();
  if (a.join('\n') !== e.join('\n')) problems.push(`files ${JSON.stringify(a)}, expected ${JSON.stringify(e)}`);
  for (const name of e) {
    if (!actual[name] || Buffer.compare(Buffer.from(actual[name]), expected[name]) === 0) continue;
    let first = '';
    const isText = (b) => !b.subarray(0, 4096).includes(0);
    if (isText(expected[name]) && isText(Buffer.from(actual[name]))) {
      const x = Buffer.from(actual[name]).toString().split('\n'), y = expected[name].toString().split('\n');
      const i = x.findIndex((l, k) => l !== y[k]);
      if (i >= 0) first = `; line ${i + 1} is ${JSON.stringify(x[i])}, the CLI's ${JSON.stringify(y[i])}`;
    }
    problems.push(`${name}: ${actual[name].length} bytes differ from the CLI's ${expected[name].length}${first}`);
  }
  return problems;
}

// The formats meshport writes, from `formats --json`: [{name, ext}].
export function writableFormats(meshport) {
  const table = JSON.parse(cli(meshport, ['formats', '--json'], process.cwd()).stdout);
  return table.filter((f) => f.can_write).map((f) => ({ name: f.name, ext: f.extensions[0].slice(1) }));
}

// The grid of tests/wasm/common.mjs, heights with 5 decimals.
export const gridIqe = (n) => sharedGridIqe(n, { zDigits: 5 });
