// Validates every .gltf / .glb named on the command line with the Khronos glTF Validator
// (npm gltf-validator, pinned in package.json). Prints each file's counts and issues; exits 1 when
// any file has an error (or cannot be read), 2 on bad usage.
//
//   node validate.mjs [--quiet] [--max-warnings N] [--max-infos N] FILE...
//
// External resources (.bin buffers, images) are loaded relative to the file, so a missing one
// is an error. --max-warnings N / --max-infos N also fail a file with more than N warnings /
// infos + hints (default: no limit). --quiet prints the issues of failing files only.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

const args = process.argv.slice(2);
let quiet = false;
let maxWarnings = Infinity;
let maxInfos = Infinity;
const files = [];
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--quiet') quiet = true;
  else if (args[i] === '--max-warnings') maxWarnings = Number(args[++i]);
  else if (args[i] === '--max-infos') maxInfos = Number(args[++i]);
  else files.push(args[i]);
}
if (files.length === 0 || Number.isNaN(maxWarnings) || Number.isNaN(maxInfos)) {
  console.error('usage: node validate.mjs [--quiet] [--max-warnings N] [--max-infos N] FILE...');
  process.exit(2);
}

const severityName = ['error', 'warning', 'info', 'hint'];
let failed = 0;
for (const file of files) {
  let report;
  try {
    const bytes = await readFile(file);
    report = await validator.validateBytes(new Uint8Array(bytes), {
      uri: path.basename(file),
      maxIssues: 0,
      externalResourceFunction: async (uri) =>
        new Uint8Array(await readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)))),
    });
  } catch (e) {
    console.log(`${file}: cannot validate: ${e && e.message ? e.message : e}`);
    ++failed;
    continue;
  }
  const { numErrors, numWarnings, numInfos, numHints } = report.issues;
  const bad = numErrors > 0 || numWarnings > maxWarnings || numInfos + numHints > maxInfos;
  if (bad) ++failed;
  console.log(`${bad ? 'FAIL' : 'ok'} ${file}: ${numErrors} errors, ${numWarnings} warnings, ${numInfos} infos, ${numHints} hints`);
  if (!quiet || bad)
    for (const m of report.issues.messages)
      console.log(`  ${severityName[m.severity] ?? m.severity} ${m.code} ${m.pointer ?? ''}: ${m.message}`);
}
console.log(`${files.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
