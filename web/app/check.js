// Check: `validate --json` of the selected model with an engine profile (its diagnostics clickable to
// the line of a text format), and `diff --json` of two models.
const $ = (id) => document.getElementById(id);

// The profiles `meshport validate --help` lists under --profile ("  name: description").
function profilesOf(help) {
  const out = [];
  const lines = help.split('\n');
  const start = lines.findIndex((l) => /^\s*--profile\b/.test(l));
  if (start < 0) return out;
  for (const line of lines.slice(start + 1)) {
    const m = /^\s{8,}([a-z0-9][a-z0-9-]*): (.*)$/.exec(line);
    if (!m) break;
    out.push({ name: m[1], description: m[2] });
  }
  return out;
}

function fillSelect(select, values, keep) {
  const old = keep ? select.value : '';
  select.textContent = '';
  for (const v of values) {
    const o = document.createElement('option');
    o.value = v;
    o.textContent = v;
    select.appendChild(o);
  }
  if (values.includes(old)) select.value = old;
}

/** Shows a file of the tree (#source) with `line` (from 1) marked and scrolled to. */
export async function showSource(ctx, file, line, col = 0) {
  let bytes;
  try {
    bytes = await ctx.call('read', { path: file });
  } catch (e) {
    ctx.failed(e, `reading ${file}`);
    return;
  }
  const text = new TextDecoder().decode(bytes);
  const source = $('source');
  source.textContent = '';
  const rows = text.split(/\r?\n/);
  if (rows.length > 1 && rows[rows.length - 1] === '') rows.pop();  // the newline ending the last line
  let current = null;
  rows.forEach((row, i) => {
    const div = document.createElement('div');
    div.className = 'line';
    div.dataset.line = String(i + 1);
    div.textContent = row || ' ';
    if (i + 1 === line) {
      div.classList.add('current-line');
      current = div;
      // The column (from 1), when the diagnostic gives one: that character is marked too.
      if (col >= 1 && col <= row.length) {
        const mark = document.createElement('span');
        mark.className = 'current-col';
        mark.textContent = row.slice(col - 1, col);
        div.textContent = row.slice(0, col - 1);
        div.append(mark, row.slice(col));
      }
    }
    source.appendChild(div);
  });
  $('source-title').textContent = line ? `${file}:${line}` : file;
  $('source-box').classList.remove('hidden');
  current?.scrollIntoView({ block: 'center' });
}

function diagnosticItem(d) {
  const li = document.createElement('li');
  li.className = `diagnostic ${d.severity || ''}`;
  if (d.file) li.dataset.file = d.file;
  if (d.line) li.dataset.line = String(d.line);
  if (d.column) li.dataset.col = String(d.column);
  li.textContent = d.text || `${d.file}: ${d.severity}: ${d.message}`;
  if (d.line) {
    li.classList.add('link');
    li.title = 'show the line';
    li.tabIndex = 0;
  }
  return li;
}

async function validate(ctx) {
  const path = ctx.selected();
  if (!path) { ctx.showError('select a model first (click it in the file list)'); return; }
  ctx.clearError();
  const profile = $('validate-profile').value;
  const args = ['validate', '--json', '--progress', 'none', '--max-memory', ctx.MAX_MEMORY,
    ...(profile ? ['--profile', profile] : []), path];
  ctx.status(`validating ${path}…`, true);
  try {
    const r = await ctx.run(args);
    if ((r.status !== 0 && r.status !== 1) || !r.stdout.trim()) throw Object.assign(new Error(`validate failed (exit status ${r.status})`), r);
    const report = JSON.parse(r.stdout);
    $('validate-json').textContent = r.stdout.trimEnd();
    const list = $('diagnostics');
    list.textContent = '';
    for (const item of report.items) for (const d of item.diagnostics || []) list.appendChild(diagnosticItem(d));
    const s = report.summary;
    const item = report.items[0];
    $('validate-summary').textContent = `${path}: ${item ? item.status : 'nothing checked'}${profile ? ` (profile ${profile})` : ''}` +
      ` — ${s.valid} valid, ${s.warned} warned, ${s.invalid} invalid; ${list.children.length} diagnostics`;
    ctx.status(`validated ${path}: ${item ? item.status : ''}`);
  } catch (e) {
    ctx.failed(e, 'validate');
  }
}

async function diff(ctx) {
  const a = $('diff-a').value, b = $('diff-b').value;
  if (!a || !b) { ctx.showError('choose two models to compare'); return; }
  ctx.clearError();
  ctx.status(`comparing ${a} and ${b}…`, true);
  try {
    const r = await ctx.run(['diff', '--json', '--max-memory', ctx.MAX_MEMORY, a, b]);
    if ((r.status !== 0 && r.status !== 1) || !r.stdout.trim()) throw Object.assign(new Error(`diff failed (exit status ${r.status})`), r);
    const result = JSON.parse(r.stdout);
    $('diff-json').textContent = r.stdout.trimEnd();
    const list = $('diff-list');
    list.textContent = '';
    for (const d of result.differences || []) {
      const li = document.createElement('li');
      li.textContent = d.message || `${d.path}: ${JSON.stringify(d.a)} ≠ ${JSON.stringify(d.b)}`;
      list.appendChild(li);
    }
    $('diff-summary').textContent = result.same ? 'the same' : `${result.count} differences`;
    ctx.status(`diff: ${result.same ? 'the same' : `${result.count} differences`}`);
  } catch (e) {
    ctx.failed(e, 'diff');
  }
}

export function initCheck(ctx) {
  ctx.onFilesChanged(() => {
    const models = ctx.models();
    const first = !$('diff-a').value;
    fillSelect($('diff-a'), models, true);
    fillSelect($('diff-b'), models, true);
    if (first && models.length > 1 && $('diff-a').value === $('diff-b').value) $('diff-b').value = models[1];
  });
  ctx.call('run', { args: ['validate', '--help'] }).then((r) => {
    for (const p of profilesOf(r.stdout)) {
      const o = document.createElement('option');
      o.value = p.name;
      o.textContent = p.name;
      o.title = p.description;
      $('validate-profile').appendChild(o);
    }
  }, () => {});
  $('validate-run').addEventListener('click', () => validate(ctx));
  $('diff-run').addEventListener('click', () => diff(ctx));
  const open = (event) => {
    const li = event.target.closest('li[data-line]');
    if (li && li.dataset.file) showSource(ctx, li.dataset.file, Number(li.dataset.line), Number(li.dataset.col || 0));
  };
  $('diagnostics').addEventListener('click', open);
  $('diagnostics').addEventListener('keydown', (e) => { if (e.key === 'Enter') open(e); });
  $('source-close').addEventListener('click', () => $('source-box').classList.add('hidden'));
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') $('source-box').classList.add('hidden'); });
}
