// Test files the WebAssembly tests and the web app's tests share (no set-up when imported).
import fs from 'node:fs';
import path from 'node:path';

// Every file below DIR: {relative path: Buffer}.
export function readTree(dir) {
  const out = {};
  const walk = (d, prefix) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(path.join(d, e.name), `${prefix}${e.name}/`);
      else out[`${prefix}${e.name}`] = fs.readFileSync(path.join(d, e.name));
    }
  };
  walk(dir, '');
  return out;
}

// A grid of N x N quads as IQE text, skinned to two joints and animated over a few frames: large
// enough for the steps that use threads in the Linux build. `normals`: with vn lines; `zDigits`:
// heights written with that many decimals (default: as JavaScript prints them).
export function gridIqe(n, { normals = false, zDigits } = {}) {
  const lines = ['# Inter-Quake Export', 'joint root -1', 'pq 0 0 0 0 0 0 1', 'joint tip 0', 'pq 0 0 1 0 0 0 1',
    'mesh grid', 'material grid.png'];
  for (let y = 0; y <= n; y += 1)
    for (let x = 0; x <= n; x += 1) {
      const z = Math.sin(x * 0.37 + y * 0.11) * 0.05;
      lines.push(`vp ${x / n} ${y / n} ${zDigits === undefined ? z : z.toFixed(zDigits)}`);
      lines.push(normals ? `vn ${Math.sin(x * 0.1) * 0.3} ${Math.cos(y * 0.1) * 0.3} 0.9` : '');
      lines.push(`vt ${x / n} ${y / n}`);
      lines.push(`vb 0 ${1 - y / n} 1 ${y / n}`);
    }
  for (let y = 0; y < n; y += 1)
    for (let x = 0; x < n; x += 1) {
      const a = y * (n + 1) + x, b = a + 1, c = a + n + 1, d = c + 1;
      lines.push(`fm ${a} ${b} ${d}`, `fm ${a} ${d} ${c}`);
    }
  lines.push('animation bend', 'framerate 10');
  for (let f = 0; f < 4; f += 1) lines.push('frame', 'pq 0 0 0 0 0 0 1', `pq 0 0 1 ${Math.sin(f * 0.2)} 0 0 ${Math.cos(f * 0.2)}`);
  return `${lines.filter((l) => l).join('\n')}\n`;
}
