// Convert: the selected model (`convert`), or every model of the tree (`batch`, in parts for
// progress), with the options of `meshport convert --help` that make sense in the page.
const $ = (id) => document.getElementById(id);

// Options without a value, and options with one (as --name VALUE or --name=VALUE). Left out: -o,
// --from (the extension tells), --max-memory (the page's limit), batch's --jobs, --shard, --report,
// --progress (the page sets them) and anything naming a file outside the dropped tree.
const FLAGS = new Set([
  '--force-format', '--no-adjacency', '--no-bounds', '--external-textures', '--compress',
  '--expand-instances', '--flip-winding', '--flip-v', '--weld', '--msft-lod', '--normals', '--no-normals',
  '--recompute-normals', '--tangents', '--no-tangents', '--recompute-tangents', '--optimize',
  '--modes-animation', '--allow-empty', '-q', '--quiet',
]);
const VALUES = new Set([
  '--scene', '--team-colour', '--pie-version', '--scale', '--rotate', '--translate', '--simplify',
  '--simplify-to', '--lods', '--resample', '--curve-tolerance', '--smooth-angle', '--anim', '--rename-anim',
  '--clip', '--fps', '--loop', '--no-loop',
]);
const PATHS = new Set(['--textures', '--texture']);  // values naming files or folders of the tree
const BATCH_FLAGS = new Set(['--no-copy-textures', '--force', '--fail-fast', '--keep-going', '-v', '--verbose']);

// A path inside the tree: relative, no '..' (--texture takes MATERIAL=FILE).
function insideTree(value, option) {
  const path = option === '--texture' && value.includes('=') ? value.slice(value.indexOf('=') + 1) : value;
  return path !== '' && !path.startsWith('/') && !/^[a-zA-Z]:/.test(path) && !path.split(/[\\/]/).includes('..');
}

/** The CLI options of the text field, checked: {args} or {error}. */
export function parseOptions(text, batch = false) {
  const words = text.trim() === '' ? [] : text.trim().split(/\s+/);
  const args = [];
  for (let i = 0; i < words.length; ++i) {
    const word = words[i];
    const eq = word.indexOf('=');
    const name = word.startsWith('--') && eq > 0 ? word.slice(0, eq) : word;
    const inline = name === word ? null : word.slice(eq + 1);
    if (FLAGS.has(name) || (batch && BATCH_FLAGS.has(name))) {
      if (inline !== null) return { error: `${name} takes no value` };
      args.push(name);
    } else if (VALUES.has(name) || PATHS.has(name)) {
      const value = inline !== null ? inline : words[++i];
      if (value === undefined) return { error: `${name} needs a value` };
      if (PATHS.has(name) && !insideTree(value, name)) return { error: `${name} ${value}: give a path inside the dropped files` };
      args.push(`${name}=${value}`);
    } else {
      return { error: `option "${word}" is not available here (allowed: ${[...FLAGS, ...VALUES, ...PATHS].join(' ')}${batch ? ` ${[...BATCH_FLAGS].join(' ')}` : ''})` };
    }
  }
  return { args };
}

function checkboxOptions() {
  const out = [];
  for (const [id, flag] of [['convert-flip-v', '--flip-v'], ['convert-weld', '--weld'], ['convert-optimize', '--optimize'],
    ['convert-compress', '--compress']]) {
    if ($(id).checked) out.push(flag);
  }
  return out;
}

function options(ctx, batch) {
  const parsed = parseOptions($('convert-args').value, batch);
  if (parsed.error) {
    ctx.showError(parsed.error);
    return null;
  }
  const extra = checkboxOptions().filter((f) => !parsed.args.includes(f));
  return [...extra, ...parsed.args, '--max-memory', ctx.MAX_MEMORY];
}

// The file name of the output: the model's name less its extension (.qmsh.tmp whole), plus `ext`.
export function stemOf(path, formats) {
  const name = path.split('/').pop();
  const lower = name.toLowerCase();
  let cut = 0;
  for (const f of formats) for (const e of f.extensions) if (lower.endsWith(e.toLowerCase()) && e.length > cut) cut = e.length;
  if (!cut) cut = name.includes('.') ? name.length - name.lastIndexOf('.') : 0;
  return name.slice(0, name.length - cut) || name;
}

function log(text) {
  const el = $('convert-log');
  el.textContent = text.trim();
  el.classList.toggle('hidden', !text.trim());
}

async function convertOne(ctx) {
  const path = ctx.selected();
  if (!path) { ctx.showError('select a model first (click it in the file list)'); return; }
  ctx.clearError();
  const opts = options(ctx, false);
  if (!opts) return;
  const to = $('convert-to').value;
  const format = ctx.formats().find((f) => f.name === to);
  const stem = stemOf(path, ctx.formats());
  // Beside the input, as `meshport convert` there (the side files' references are then right for
  // the download unpacked beside the model). Over the input itself when the name is the same, as
  // the CLI does (it has read the input first); the worker puts the dropped file back afterwards.
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const output = `${stem}${format.extensions[0]}`;
  ctx.status(`converting ${path} to ${to}…`, true);
  try {
    const r = await ctx.call('runBeside', { args: ['convert', path, '-o', dir ? `${dir}/${output}` : output, '--to', to, ...opts], dir });
    log(r.stderr);
    if (r.status !== 0 || !r.files[output]) throw Object.assign(new Error(`convert failed (exit status ${r.status})`), r);
    const names = Object.keys(r.files);
    if (names.length === 1) {
      ctx.download(output, r.files[output]);
      ctx.status(`converted ${path} -> ${output} (${r.files[output].length} bytes)`);
    } else {
      const zip = await ctx.call('zip', { files: r.files });
      ctx.download(`${stem}.zip`, zip, 'application/zip');
      ctx.status(`converted ${path} -> ${stem}.zip (${names.length} files: ${names.join(', ')})`);
    }
  } catch (e) {
    ctx.failed(e, 'convert');
  }
}

async function convertAll(ctx) {
  const count = ctx.models().length;
  if (!count) { ctx.showError('drop some models first'); return; }
  ctx.clearError();
  const opts = options(ctx, true);
  if (!opts) return;
  const to = $('convert-to').value;
  // Parts of about 4 models (at most 32 parts): the status moves on after each.
  const parts = Math.max(1, Math.min(32, Math.ceil(count / 4)));
  ctx.status(`batch to ${to}: ${count} models…`, true);
  try {
    const r = await ctx.call('batch', { to, options: opts, parts });
    log(r.stderr);
    ctx.download(`batch-${to}.zip`, r.zip, 'application/zip');
    const s = r.report.summary;
    ctx.status(`batch to ${to}: ${s.files} files: ${s.converted} converted, ${s.warned} warned, ${s.failed} failed, ${s.skipped} skipped`);
    if (s.failed) ctx.showError(r.report.items.filter((i) => i.status === 'failed')
      .map((i) => (i.diagnostics || []).map((d) => d.text).join('\n') || `${i.input}: failed`).join('\n'));
  } catch (e) {
    ctx.failed(e, 'batch');
  }
}

export function initConvert(ctx) {
  ctx.onFilesChanged(() => {
    const select = $('convert-to');
    if (select.options.length || !ctx.formats().length) return;
    for (const f of ctx.formats()) {
      if (!f.can_write) continue;
      const o = document.createElement('option');
      o.value = f.name;
      o.textContent = `${f.name} (${f.extensions.join(' ')})`;
      o.title = f.description;
      select.appendChild(o);
    }
    select.value = 'glb';
  });
  $('convert-run').addEventListener('click', () => convertOne(ctx));
  $('batch-run').addEventListener('click', () => convertAll(ctx));
}
