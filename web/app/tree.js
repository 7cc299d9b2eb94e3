// Dropped and picked files: their relative paths (a dropped folder's name is the top folder, as
// on disk) and the file list #tree (one li[data-path] per file; models have class "model").

// Reads a dropped folder entry (webkitGetAsEntry) recursively: [{path, file}].
async function readEntry(entry, out) {
  if (entry.isFile) {
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    out.push({ path: entry.fullPath.replace(/^\/+/, ''), file });
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    // readEntries gives a part of the folder per call, until an empty list.
    for (;;) {
      const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const child of batch) await readEntry(child, out);
    }
  }
  return out;
}

/** The files of a drop: folders recursively, with relative paths. */
export async function droppedFiles(dataTransfer) {
  // Entries must be taken while the drop event runs: the list is emptied afterwards.
  const entries = [];
  const loose = [];
  for (const item of dataTransfer.items || []) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const file = item.getAsFile();
      if (file) loose.push(file);
    }
  }
  if (entries.length === 0 && loose.length === 0) loose.push(...(dataTransfer.files || []));
  const out = [];
  for (const entry of entries) await readEntry(entry, out);
  for (const file of loose) out.push({ path: file.webkitRelativePath || file.name, file });
  return out;
}

/** The files of an <input type=file> (multiple or webkitdirectory). */
export function pickedFiles(input) {
  return [...input.files].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

// A path the workspace accepts: relative, '/' separated, no '.' or '..' parts.
export function cleanPath(path) {
  const parts = path.replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..') || parts[0] === '.meshport') return null;
  return parts.join('/');
}

/** The format a path is read as, from `formats --json` (longest extension first: .qmsh.tmp), or null. */
export function formatOf(path, formats) {
  const lower = path.toLowerCase();
  let best = null;
  for (const f of formats) {
    if (!f.can_read) continue;
    for (const ext of f.extensions) {
      if (lower.endsWith(ext.toLowerCase()) && (!best || ext.length > best.ext.length)) best = { name: f.name, ext };
    }
  }
  return best;
}

function humanSize(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Fills `list` (#tree): a folder line (li.folder, no data-path) before its files, indented by
 * depth; each file an li[data-path] (class model for models, with its format).
 */
export function renderTree(list, files, formats, selected) {
  list.textContent = '';
  const paths = [...files.keys()].sort((a, b) => {
    const da = a.split('/'), db = b.split('/');
    // Folders first within a folder, then by name.
    for (let i = 0; i < Math.min(da.length, db.length); ++i) {
      if (da[i] === db[i]) continue;
      const fa = i < da.length - 1, fb = i < db.length - 1;
      if (fa !== fb) return fa ? -1 : 1;
      return da[i].localeCompare(db[i]);
    }
    return da.length - db.length;
  });
  const shown = new Set();
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 0; i < parts.length - 1; ++i) {
      const folder = parts.slice(0, i + 1).join('/');
      if (shown.has(folder)) continue;
      shown.add(folder);
      const li = document.createElement('li');
      li.className = 'folder';
      li.style.paddingLeft = `${6 + i * 12}px`;
      li.textContent = `${parts[i]}/`;
      li.title = folder;
      list.appendChild(li);
    }
    const li = document.createElement('li');
    li.dataset.path = path;
    li.style.paddingLeft = `${6 + (parts.length - 1) * 12}px`;
    li.title = path;
    const format = formatOf(path, formats);
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = parts[parts.length - 1];
    li.appendChild(name);
    const meta = document.createElement('span');
    meta.className = 'meta';
    meta.textContent = format ? format.name : humanSize(files.get(path).size);
    li.appendChild(meta);
    if (format) {
      li.classList.add('model');
      li.tabIndex = 0;
    }
    if (path === selected) li.classList.add('selected');
    list.appendChild(li);
  }
}
