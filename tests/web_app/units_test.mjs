// The web app's pure functions (web/app, docs/web-app.md) under node --test: the allow-list of
// conversion options, the paths a drop may add, the format of a path and an output's name. The
// page itself is tested in Chromium by the browser tests.
//   node --test tests/web_app/units_test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions, stemOf } from '../../web/app/convert.js';
import { cleanPath, formatOf } from '../../web/app/tree.js';

// The part of `meshport formats --json` these functions read.
const formats = [
  { name: 'iqe', extensions: ['.iqe'], can_read: true, can_write: true },
  { name: 'iqm', extensions: ['.iqm', '.vvm'], can_read: true, can_write: true },
  { name: 'glb', extensions: ['.glb'], can_read: true, can_write: true },
  { name: 'pie', extensions: ['.pie'], can_read: true, can_write: true },
  { name: 'qmsh-tmp', extensions: ['.qmsh.tmp'], can_read: true, can_write: true },
  { name: 'qmsh', extensions: ['.qmsh'], can_read: true, can_write: true },
  { name: 'modedef-model', extensions: ['.model'], can_read: true, can_write: true },
];

test('conversion options: allowed ones pass, values joined with =', () => {
  assert.deepEqual(parseOptions('').args, []);
  assert.deepEqual(parseOptions('  --scale 2  --rotate -90,0,0 --weld ').args, ['--scale=2', '--rotate=-90,0,0', '--weld']);
  assert.deepEqual(parseOptions('--rotate=-90,0,0 --lods 0.5,0.25 --anim walk,run').args,
    ['--rotate=-90,0,0', '--lods=0.5,0.25', '--anim=walk,run']);
  assert.deepEqual(parseOptions('--textures mod/texpages --texture skin=mod/skin.png').args,
    ['--textures=mod/texpages', '--texture=skin=mod/skin.png']);
});

test('conversion options: paths outside the tree, the page\'s own options and unknown words are refused', () => {
  for (const text of ['--textures /etc', '--textures=../up', '--texture skin=/etc/passwd', '--texture a=x/../../y',
    '--textures C:/Windows']) {
    assert.match(parseOptions(text).error, /give a path inside the dropped files/, text);
  }
  for (const text of ['-o out.glb', '--output=x', '--max-memory 4G', '--from pie', '--jobs 4', '--report r.json',
    '--shard 0/2', 'extra.iqe', '--progress bar']) {
    assert.match(parseOptions(text).error, /is not available here/, text);
  }
  assert.match(parseOptions('--scale').error, /--scale needs a value/);
  assert.match(parseOptions('--weld=1').error, /--weld takes no value/);
});

test('batch options: the batch\'s own flags only for convert all', () => {
  assert.match(parseOptions('--no-copy-textures').error, /is not available here/);
  assert.deepEqual(parseOptions('--no-copy-textures --force -v', true).args, ['--no-copy-textures', '--force', '-v']);
  assert.match(parseOptions('--jobs 2', true).error, /is not available here/);
});

test('dropped paths: relative, without . and .. parts, not the page\'s .meshport folder', () => {
  assert.equal(cleanPath('/mymod/components/bodies/body.pie'), 'mymod/components/bodies/body.pie');
  assert.equal(cleanPath('mod\\texpages\\page-1.png'), 'mod/texpages/page-1.png');
  assert.equal(cleanPath('./a//b.iqe'), 'a/b.iqe');
  assert.equal(cleanPath('a/../../etc/passwd'), null);
  assert.equal(cleanPath('.meshport/view/model.glb'), null);
  assert.equal(cleanPath(''), null);
});

test('the format of a path: the longest extension, any case; others are not models', () => {
  assert.deepEqual(formatOf('a/B.PIE', formats), { name: 'pie', ext: '.pie' });
  assert.deepEqual(formatOf('x.qmsh.tmp', formats), { name: 'qmsh-tmp', ext: '.qmsh.tmp' });
  assert.deepEqual(formatOf('x.qmsh', formats), { name: 'qmsh', ext: '.qmsh' });
  assert.deepEqual(formatOf('old.vvm', formats), { name: 'iqm', ext: '.vvm' });
  assert.equal(formatOf('texpages/page-1.png', formats), null);
  assert.equal(formatOf('iqm.cfg', formats), null);
});

test('output names: the model\'s name less its whole extension', () => {
  assert.equal(stemOf('mod/tank.pie', formats), 'tank');
  assert.equal(stemOf('rock.qmsh.tmp', formats), 'rock');
  assert.equal(stemOf('a.b/scene.model', formats), 'scene');
  assert.equal(stemOf('notes.txt', formats), 'notes');
});
