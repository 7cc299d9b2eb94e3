// Assemble a Warzone 2100 unit from dropped parts: body, propulsion and weapons at the body's
// connectors, as `meshport view` and `meshport assemble` place them.
const $ = (id) => document.getElementById(id);

// The game's folders name the kind of part: components/bodies, components/prop, components/weapons.
const KIND = { body: /(^|\/)bod(y|ies)\//i, propulsion: /(^|\/)(prop|propulsion)\//i, weapons: /(^|\/)weapons?\//i };

function fill(select, paths, kind, multiple) {
  const old = new Set([...select.selectedOptions].map((o) => o.value).filter((v) => v !== ''));
  select.textContent = '';
  if (!multiple) {
    const none = document.createElement('option');
    none.value = '';
    none.textContent = '—';
    select.appendChild(none);
  }
  // Parts of the kind first, then the other models.
  const sorted = [...paths.filter((p) => KIND[kind].test(p)), ...paths.filter((p) => !KIND[kind].test(p))];
  for (const p of sorted) {
    const o = document.createElement('option');
    o.value = p;
    o.textContent = p;
    o.selected = old.has(p);
    select.appendChild(o);
  }
  // A single choice not made yet: the first part of the kind.
  if (!multiple && ![...old].some((p) => paths.includes(p))) select.value = paths.find((p) => KIND[kind].test(p)) || '';
}

function parts(ctx) {
  const body = $('assemble-body').value, propulsion = $('assemble-propulsion').value;
  if (!body || !propulsion) {
    ctx.showError('assemble: choose a body and a propulsion (and weapons if the unit has any)');
    return null;
  }
  const weapons = [...$('assemble-weapons').selectedOptions].map((o) => o.value);
  return { list: [body, propulsion, ...weapons], extra: $('assemble-vtol').checked ? ['--vtol'] : [] };
}

async function show(ctx) {
  const p = parts(ctx);
  if (!p) return;
  ctx.clearError();
  ctx.status('assembling…', true);
  try {
    const info = await ctx.showView(p.list, p.extra);
    // #info: the unit's summary, as view's info.json gives it.
    if (info.summary) ctx.fillInfo(info.title || 'unit', info.summary, JSON.stringify(info.summary, null, 2));
    ctx.status(`unit: ${p.list.join(' + ')}`);
  } catch (e) {
    ctx.failed(e, 'assemble');
  }
}

async function download(ctx) {
  const p = parts(ctx);
  if (!p) return;
  ctx.clearError();
  ctx.status('assembling unit.glb…', true);
  try {
    const r = await ctx.run(['assemble', ...p.list, ...p.extra, '--max-memory', ctx.MAX_MEMORY, '-o', '.meshport/unit/unit.glb'],
      '.meshport/unit');
    if (r.status !== 0 || !r.files['unit.glb']) throw Object.assign(new Error(`assemble failed (exit status ${r.status})`), r);
    ctx.download('unit.glb', r.files['unit.glb'], 'model/gltf-binary');
    ctx.status(`unit.glb: ${r.files['unit.glb'].length} bytes`);
  } catch (e) {
    ctx.failed(e, 'assemble');
  }
}

export function initAssemble(ctx) {
  ctx.onFilesChanged(() => {
    const models = ctx.models();
    fill($('assemble-body'), models, 'body', false);
    fill($('assemble-propulsion'), models, 'propulsion', false);
    fill($('assemble-weapons'), models, 'weapons', true);
  });
  $('assemble-run').addEventListener('click', () => show(ctx));
  $('assemble-download').addEventListener('click', () => download(ctx));
}
