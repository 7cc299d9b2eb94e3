// What the browser tests share (viewer_test.mjs, alpha_test.mjs): `meshport view` as a child
// process, a page opened on it, pixel comparisons, and Debian's Chromium through playwright-core.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

// playwright-core's chromium from WEB_DIR (`make web-deps`) and Debian's Chromium's path; fails,
// never skips, when either is missing.
export function browserKit(webDir) {
  const chromiumPath = process.env.MESHPORT_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: install Debian's chromium (scripts/install-deps.sh)`);
  const require = createRequire(path.join(webDir, 'package.json'));
  const { chromium } = require('playwright-core');
  return { chromium, chromiumPath };
}

// `meshport view FILE...` run in `work`: the process, its address and its exit.
export function view(meshport, work, files, extra = []) {
  const proc = spawn(meshport, ['view', '-q', ...files, '--timeout', '120', ...extra], { cwd: work });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const url = new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/)\n/m.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`meshport view ${files.join(' ')} exited (${code}): ${stderr}`)));
  });
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve({ code, stderr })));
  return { proc, url, exited };
}

// The page at `url`, once the model is shown: its counts (window.meshport.counts).
export async function open(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.meshport && (window.meshport.ready || window.meshport.error), null,
                             { timeout: 60000 });
  const error = await page.evaluate(() => window.meshport.error);
  if (error) throw new Error(`${url}: ${error}`);
  return page.evaluate(() => window.meshport.counts);
}

export const pixels = (page) => page.evaluate(() => window.meshport.pixels());

// Fraction of pixels whose largest channel difference exceeds `threshold`.
export function difference(a, b, threshold = 40) {
  if (a.width !== b.width || a.height !== b.height) return 1;
  const x = Buffer.from(a.rgba, 'base64'), y = Buffer.from(b.rgba, 'base64');
  let differ = 0;
  for (let i = 0; i < x.length; i += 4) {
    const d = Math.max(Math.abs(x[i] - y[i]), Math.abs(x[i + 1] - y[i + 1]), Math.abs(x[i + 2] - y[i + 2]));
    if (d > threshold) differ++;
  }
  return differ / (x.length / 4);
}

// A failure counter: check(ok, message) prints FAIL: message and counts; `failures` is the count.
export function checker() {
  const state = { failures: 0 };
  state.check = (ok, message) => {
    if (ok) return true;
    state.failures++;
    console.error(`FAIL: ${message}`);
    return false;
  };
  return state;
}
