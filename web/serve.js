// The page `meshport view` serves (docs/viewer.md): the viewer module (viewer.js) on the model
// the server gives as /model.glb, with its `info --json` summary as /info.json. window.meshport
// exposes the viewer's hooks (viewer.api) with ready, error and drawn to the browser tests
// (tests/viewer/) and to thumbnails: ?thumbnail[=N] shows no panel, draws one frame, then sets the
// title to "ready" and resolves window.meshport.drawn; ?thumbnail=N&pool loads no model and draws
// the ones given to window.meshport.draw (`meshport thumbnail`, src/view/browser.cpp).
import { createViewer } from './viewer.js';

const params = new URLSearchParams(location.search);
const thumbnail = params.has('thumbnail');
const pool = thumbnail && params.has('pool');
if (thumbnail) document.body.classList.add('thumbnail');
const viewer = createViewer({
  view: document.getElementById('view'),
  panel: document.getElementById('panel'),
  thumbnail: thumbnail ? Number(params.get('thumbnail')) || true : false,
});

// The viewer's hooks (counts, info and frames stay live: they are getters), with the page's state.
const api = Object.defineProperties({ ready: false, error: null }, Object.getOwnPropertyDescriptors(viewer.api));
// Resolved once the model has been rendered (a frame with its meshes; what `meshport thumbnail`
// waits for, no fixed delay), rejected with the page's error.
let drawn = null;
api.drawn = new Promise((resolve, reject) => { drawn = { resolve, reject }; });
api.drawn.catch(() => {});  // the error is also in api.error and on the page
window.meshport = api;

// The model as the server converted it; with `tc`, its team colour baked in.
async function modelBytes(teamColour) {
  const url = teamColour ? `/model.glb?tc=${teamColour}` : '/model.glb';
  const response = await fetch(url, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return response.arrayBuffer();
}

async function main() {
  const [info, glb] = await Promise.all([fetch('/info.json', { cache: 'no-store' }).then((r) => r.json()), modelBytes(null)]);
  document.title = `${info.title} — meshport view`;
  const frame = await viewer.show({ glb, info, recolour: modelBytes });
  api.ready = true;
  drawn.resolve(frame);
  if (thumbnail) document.title = 'ready';
}

// Tell the server a page is open (it stops a while after the last heartbeat).
function heartbeat() { fetch('/heartbeat', { cache: 'no-store' }).catch(() => {}); }
if (!thumbnail) {
  heartbeat();
  setInterval(heartbeat, 5000);
}

// ?thumbnail=SIZE&pool: `meshport thumbnail` draws many models in one page: no model is loaded;
// window.meshport.draw(base64 .glb) shows one (replacing the last), renders it and resolves to
// the canvas as a PNG data URL.
if (pool) {
  viewer.status('');
  api.draw = async (base64) => {
    const glb = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    await viewer.show({ glb, info: { title: '', team_colour: false, summary: {} } });
    return viewer.api.png();
  };
  api.ready = true;
  drawn.resolve({});
} else main().catch((e) => {
  api.error = String(e && e.stack || e);
  drawn.reject(e);
  viewer.status(`error: ${e}`);
  console.error(e);
});
