// The page `meshport view` serves (docs/viewer.md): the model as /model.glb, its `info --json`
// summary as /info.json. window.meshport exposes the state and a few controls to the browser test
// (tests/viewer/) and to thumbnails (?thumbnail: no panel, one frame, then title "ready" and
// window.meshport.drawn resolved).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const params = new URLSearchParams(location.search);
const thumbnail = params.has('thumbnail');
const pool = thumbnail && params.has('pool');
if (thumbnail) document.body.classList.add('thumbnail');
// ?thumbnail=N: an N x N canvas at the top left (Chromium's window has a minimum size; the
// command crops its screenshot).
const thumbnailSize = Number(params.get('thumbnail'));
if (thumbnail && thumbnailSize >= 16) {
  Object.assign(document.getElementById('view').style,
                { position: 'fixed', left: '0', top: '0', width: `${thumbnailSize}px`, height: `${thumbnailSize}px`, flex: 'none' });
}
const $ = (id) => document.getElementById(id);
const api = { ready: false, error: null, counts: null, frames: 0 };
// Resolved once the model has been rendered (a frame with its meshes; what `meshport thumbnail`
// waits for, no fixed delay), rejected with the page's error.
let drawn = null;
api.drawn = new Promise((resolve, reject) => { drawn = { resolve, reject }; });
api.drawn.catch(() => {});  // the error is also in api.error and on the page
window.meshport = api;

const container = $('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true, alpha: thumbnail });
renderer.setPixelRatio(1);
container.appendChild(renderer.domElement);
const scene = new THREE.Scene();
if (!thumbnail) scene.background = new THREE.Color(0x303134);
scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 2.0);
sun.position.set(1, 2, 1.5);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
const controls = new OrbitControls(camera, renderer.domElement);
controls.addEventListener('change', () => render());

let root = null, mixer = null, action = null, playing = true, skeleton = null;
let markers = [];
const clock = new THREE.Clock();

function resize() {
  const w = container.clientWidth || window.innerWidth, h = container.clientHeight || window.innerHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', () => { resize(); render(); });

function render() {
  renderer.render(scene, camera);
  api.frames++;
}

function frame() {
  if (mixer && action && playing) {
    mixer.update(clock.getDelta());
    showTime();
  } else clock.getDelta();
  controls.update();
  render();
  if (!thumbnail) requestAnimationFrame(frame);
}

// Camera on the model's bounds, from the front right and above (the same for a model and its
// conversions, so that screenshots compare).
function frameCamera(object) {
  const box = new THREE.Box3().setFromObject(object);
  if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  const center = box.getCenter(new THREE.Vector3());
  const radius = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 1e-3);
  const distance = radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2)) * 1.05;
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.position.copy(center).add(new THREE.Vector3(0.6, 0.45, 0.8).normalize().multiplyScalar(distance));
  camera.updateProjectionMatrix();
  controls.target.copy(center);
  controls.update();
  return radius;
}

function summaryTable(info) {
  const s = info.summary || {};
  const rows = [];
  for (const [key, value] of Object.entries(s)) {
    if (value === null || typeof value === 'object' && !Array.isArray(value)) continue;
    rows.push([key, Array.isArray(value) ? `${value.length}` : `${value}`]);
  }
  const table = $('summary');
  table.replaceChildren();
  for (const [k, v] of rows) {
    const tr = table.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
  $('json').textContent = JSON.stringify(s, null, 1);
}

async function loadModel(teamColour) {
  const url = teamColour ? `/model.glb?tc=${teamColour}` : '/model.glb';
  const response = await fetch(url, { cache: 'no-store' });
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const bytes = await response.arrayBuffer();
  return new Promise((resolve, reject) => new GLTFLoader().parse(bytes, '', resolve, reject));
}

function setAnimation(gltf, index) {
  if (action) action.stop();
  action = null;
  if (!mixer || index < 0 || index >= gltf.animations.length) return;
  action = mixer.clipAction(gltf.animations[index]);
  action.play();
  const scrub = $('scrub');
  scrub.max = String(Math.max(gltf.animations[index].duration, 0.001));
  mixer.setTime(0);
  showTime();
}

function showTime() {
  if (!action) return;
  $('scrub').value = String(action.time);
  $('time').textContent = `${action.time.toFixed(2)} s / ${action.getClip().duration.toFixed(2)} s`;
}

function buildPanel(gltf, info) {
  $('title').textContent = info.title;
  document.title = `${info.title} — meshport view`;
  summaryTable(info);

  // Animations: picker, play/pause, scrub.
  if (gltf.animations.length) {
    $('animation-box').classList.remove('hidden');
    const select = $('animation');
    gltf.animations.forEach((clip, i) => select.add(new Option(clip.name || `animation ${i}`, String(i))));
    select.onchange = () => setAnimation(gltf, Number(select.value));
    $('play').onclick = () => { playing = !playing; $('play').textContent = playing ? 'pause' : 'play'; };
    $('scrub').oninput = () => { playing = false; $('play').textContent = 'play'; mixer.setTime(Number($('scrub').value)); showTime(); render(); };
  }
  // Meshes (PIE levels are meshes "<model>_level<n>"): visibility.
  const meshes = [];
  root.traverse((o) => { if (o.isMesh && !o.userData.helper) meshes.push(o); });
  // A glTF mesh of several primitives (a PIE level split by polygon material) is a group of
  // three.js meshes: one entry for the group.
  const owners = [];
  for (const m of meshes) {
    const owner = splitPrimitive(m) ? m.parent : m;
    if (!owners.includes(owner)) owners.push(owner);
  }
  if (owners.length > 1) {
    $('levels-box').classList.remove('hidden');
    for (const m of owners) {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = true;
      box.onchange = () => { m.visible = box.checked; render(); };
      const level = /_level(\d+)$/.exec(m.name);
      label.append(box, ` ${level ? `level ${level[1]}` : m.name || 'mesh'}`);
      label.title = m.name;
      $('levels').append(label);
    }
  }
  // Morph targets (ModeDef vibration modes): one slider per target name, moving that target on
  // every mesh that has it (a ModeDef mode deforms all of the model's meshes).
  const targets = new Map();
  for (const m of meshes) {
    if (!m.morphTargetInfluences || !m.morphTargetInfluences.length) continue;
    const names = Object.entries(m.morphTargetDictionary || {}).sort((a, b) => a[1] - b[1]).map((e) => e[0]);
    m.morphTargetInfluences.forEach((value, i) => {
      const name = names[i] || `target ${i}`;
      if (!targets.has(name)) targets.set(name, { value, uses: [] });
      targets.get(name).uses.push([m, i]);
    });
  }
  if (targets.size) $('morph-box').classList.remove('hidden');
  for (const [name, target] of targets) {
    const label = document.createElement('label');
    label.textContent = `${name} `;
    const slider = document.createElement('input');
    slider.type = 'range';
    slider.min = '-2';
    slider.max = '2';
    slider.step = '0.01';
    slider.value = String(target.value);
    slider.oninput = () => {
      for (const [m, i] of target.uses) m.morphTargetInfluences[i] = Number(slider.value);
      render();
    };
    label.append(slider);
    $('morphs').append(label);
  }
  if (skeleton) {
    $('skeleton-row').classList.remove('hidden');
    $('skeleton').onchange = () => { skeleton.visible = $('skeleton').checked; render(); };
  }
  if (markers.length) {
    $('connectors-row').classList.remove('hidden');
    $('connectors').onchange = () => { for (const m of markers) m.visible = $('connectors').checked; render(); };
  }
  $('wireframe').onchange = () => setWireframe($('wireframe').checked);
  if (info.team_colour) {
    $('team-row').classList.remove('hidden');
    $('team').onchange = () => retint($('team').value.slice(1));
  }
}

// Both sides of every face: a model inspector shows faces whatever their winding (PIE levels are
// often single planes seen from either side).
function showBothSides(object) {
  object.traverse((o) => {
    if (!o.isMesh || o.userData.helper) return;
    for (const m of Array.isArray(o.material) ? o.material : [o.material]) m.side = THREE.DoubleSide;
  });
}

function setWireframe(on) {
  root.traverse((o) => {
    if (!o.isMesh || o.userData.helper) return;
    for (const m of Array.isArray(o.material) ? o.material : [o.material]) m.wireframe = on;
  });
  render();
}

// Blending glTF cannot say, kept in meshport's material extras (docs/gltf-obj.md): Warzone 2100's
// additive pages (added to what is behind, fragments of alpha <= 0.5 discarded) and premultiplied
// ones (colour + behind x (1 - alpha)).
function applyBlending(object) {
  object.traverse((o) => {
    if (!o.isMesh || o.userData.helper) return;
    for (const m of Array.isArray(o.material) ? o.material : [o.material]) {
      const blend = m.userData && m.userData.meshport && m.userData.meshport.blend;
      if (blend === 'additive') {
        m.blending = THREE.AdditiveBlending;
        m.alphaTest = 0.5;
        m.depthWrite = false;
      } else if (blend === 'premultiplied') {
        m.blending = THREE.CustomBlending;
        m.blendSrc = THREE.OneFactor;
        m.blendDst = THREE.OneMinusSrcAlphaFactor;
        m.depthWrite = false;
      }
    }
  });
}

// Team colour from the masks embedded in the .glb (material extras `team_colour_image`, an image
// index; meshport writes one texture per image, in image order): the page's colour in sRGB plus
// (team - 0.5) x the mask's alpha, as `convert --team-colour` bakes it (src/ops/materials/team_colour.cpp).
// Resolves to false when a team-coloured material has no embedded mask.
async function embeddedMasks(gltf) {
  const materials = [];
  gltf.scene.traverse((o) => {
    if (!o.isMesh || o.userData.helper) return;
    for (const m of Array.isArray(o.material) ? o.material : [o.material]) if (!materials.includes(m)) materials.push(m);
  });
  let all = true;
  for (const m of materials) {
    const extras = m.userData && m.userData.meshport;
    if (!extras || !extras.team_colour_texture) continue;
    if (!Number.isInteger(extras.team_colour_image) || !m.map) { all = false; continue; }
    const mask = await gltf.parser.getDependency('texture', extras.team_colour_image);
    const uniforms = { mpTeamMask: { value: mask }, mpTeam: { value: new THREE.Vector3(0.5, 0.5, 0.5) } };
    m.userData.teamUniforms = uniforms;
    m.onBeforeCompile = (shader) => {
      Object.assign(shader.uniforms, uniforms);
      shader.fragmentShader = shader.fragmentShader
        .replace('void main() {', `uniform sampler2D mpTeamMask;
uniform vec3 mpTeam;
vec3 mpToSrgb(vec3 c) { return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c)); }
vec3 mpToLinear(vec3 c) { return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c)); }
void main() {`)
        .replace('#include <map_fragment>', `#include <map_fragment>
#ifdef USE_MAP
  diffuseColor.rgb = mpToLinear(clamp(mpToSrgb(diffuseColor.rgb) + (mpTeam - 0.5) * texture2D(mpTeamMask, vMapUv).a, 0.0, 1.0));
#endif`);
    };
    m.customProgramCacheKey = () => 'meshport-team-colour';
    m.needsUpdate = true;
  }
  return all && materials.some((m) => m.userData.teamUniforms);
}

let clientTeamColour = false;

// Team colour: on the page from the embedded masks; otherwise (a mask the .glb does not hold) the
// server bakes it into the base colour (as `convert --team-colour` does) and the new model's
// materials replace the shown ones.
async function retint(hex) {
  if (clientTeamColour) {
    const v = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
    root.traverse((o) => {
      if (!o.isMesh || o.userData.helper) return;
      for (const m of Array.isArray(o.material) ? o.material : [o.material])
        if (m.userData.teamUniforms) m.userData.teamUniforms.mpTeam.value.set(v[0], v[1], v[2]);
    });
    render();
    return 'page';
  }
  const gltf = await loadModel(hex);
  const fresh = [];
  gltf.scene.traverse((o) => { if (o.isMesh) fresh.push(o.material); });
  let i = 0;
  root.traverse((o) => { if (o.isMesh && !o.userData.helper && i < fresh.length) { o.material = fresh[i++]; } });
  showBothSides(root);
  applyBlending(root);
  setWireframe($('wireframe').checked);
  return 'server';
}

function connectorMarkers(radius) {
  const size = radius * 0.04;
  root.traverse((o) => {
    const extras = o.userData && o.userData.meshport;
    if (!extras || !extras.attachment) return;
    const marker = new THREE.Mesh(new THREE.SphereGeometry(size, 12, 8),
                                  new THREE.MeshBasicMaterial({ color: 0xffcc00, depthTest: false }));
    marker.renderOrder = 10;
    marker.name = 'meshport connector marker';
    marker.userData.helper = true;
    marker.visible = !thumbnail;
    o.add(marker);
    markers.push(marker);
  });
}

// Whether mesh `m` is one of the primitives of a glTF mesh that share their vertex arrays (a PIE
// level split by polygon material): three.js makes them meshes of one group with the same
// position attribute.
function splitPrimitive(m) {
  const p = m.parent;
  if (!p || !p.isGroup) return false;
  return p.children.some((o) => o !== m && o.isMesh && o.geometry.attributes.position === m.geometry.attributes.position);
}

function counts(gltf) {
  const c = { meshes: 0, bones: 0, skinnedMeshes: 0, attachments: 0, morphTargets: 0, animations: gltf.animations.length,
              materials: new Set(), triangles: 0 };
  root.traverse((o) => {
    if (o.userData && o.userData.helper) return;
    if (o.isMesh) {
      // The primitives of one glTF mesh (a group of meshes) count as one mesh, with its morph
      // targets once.
      const first = !splitPrimitive(o) || o.parent.children.find((x) => x.isMesh) === o;
      if (first) c.meshes++;
      if (o.isSkinnedMesh && first) c.skinnedMeshes++;
      if (first) c.morphTargets += o.morphTargetInfluences ? o.morphTargetInfluences.length : 0;
      c.materials.add(o.material);
      const g = o.geometry;
      c.triangles += (g.index ? g.index.count : g.attributes.position.count) / 3;
    }
    if (o.isBone) c.bones++;
    const extras = o.userData && o.userData.meshport;
    if (extras && extras.attachment) c.attachments++;
  });
  c.materials = c.materials.size;
  return c;
}

// Shows a loaded glTF: both sides, blending, team colour masks, a hidden skeleton helper, the
// camera on its bounds, connector markers, its first animation at its start.
async function show(gltf) {
  root = gltf.scene;
  scene.add(root);
  showBothSides(root);
  applyBlending(root);
  clientTeamColour = await embeddedMasks(gltf);
  let hasBones = false;
  root.traverse((o) => { if (o.isBone) hasBones = true; });
  if (hasBones) {
    skeleton = new THREE.SkeletonHelper(root);
    skeleton.visible = false;
    scene.add(skeleton);
  }
  const radius = frameCamera(root);
  connectorMarkers(radius);
  if (gltf.animations.length) {
    mixer = new THREE.AnimationMixer(root);
    setAnimation(gltf, 0);
  }
}

// Removes the shown model and frees what it holds on the GPU (?thumbnail&pool: the next one).
function unshow() {
  if (action) action.stop();
  action = null;
  mixer = null;
  if (skeleton) { scene.remove(skeleton); skeleton.dispose(); skeleton = null; }
  markers = [];
  if (!root) return;
  scene.remove(root);
  root.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    for (const m of o.material ? (Array.isArray(o.material) ? o.material : [o.material]) : []) {
      for (const v of Object.values(m)) if (v && v.isTexture) v.dispose();
      m.dispose();
    }
  });
  root = null;
}

async function main() {
  resize();
  const [info, gltf] = await Promise.all([fetch('/info.json', { cache: 'no-store' }).then((r) => r.json()), loadModel(null)]);
  await show(gltf);
  if (thumbnail) playing = false;
  buildPanel(gltf, info);
  api.counts = counts(gltf);
  api.info = info;
  // Test and thumbnail hooks: no animation running, a given time, one frame rendered.
  api.pause = () => { playing = false; $('play').textContent = 'play'; };
  api.setAnimation = (i) => { $('animation').value = String(i); setAnimation(gltf, i); render(); };
  api.setTime = (t) => { if (mixer) { mixer.setTime(t); showTime(); } render(); };
  api.setWireframe = setWireframe;
  api.setMorph = (mesh, target, value) => {
    const ms = [];
    root.traverse((o) => { if (o.isMesh && !o.userData.helper) ms.push(o); });
    ms[mesh].morphTargetInfluences[target] = value;
    render();
  };
  api.retint = retint;
  // The materials shown: name, alpha test, blending ('normal', 'additive', 'premultiplied', 'other'),
  // transparent.
  api.materials = () => {
    const list = [];
    root.traverse((o) => {
      if (!o.isMesh || o.userData.helper) return;
      for (const m of Array.isArray(o.material) ? o.material : [o.material]) {
        if (list.some((x) => x.material === m)) continue;
        const premultiplied = m.blending === THREE.CustomBlending && m.blendSrc === THREE.OneFactor &&
                              m.blendDst === THREE.OneMinusSrcAlphaFactor;
        const blending = m.blending === THREE.NormalBlending ? 'normal' : m.blending === THREE.AdditiveBlending
          ? 'additive' : premultiplied ? 'premultiplied' : 'other';
        list.push({ material: m, name: m.name, alphaTest: m.alphaTest, blending, transparent: m.transparent });
      }
    });
    return list.map(({ material, ...rest }) => rest);
  };
  // The canvas as base64 RGBA rows (bottom row first), for pixel comparisons.
  api.pixels = () => {
    render();
    const gl = renderer.getContext();
    const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    const data = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, data);
    let text = '';
    for (let i = 0; i < data.length; i += 0x8000) text += String.fromCharCode.apply(null, data.subarray(i, i + 0x8000));
    return { width: w, height: h, rgba: btoa(text) };
  };
  api.render = render;
  // The canvas as a PNG data URL (the drawing buffer is preserved: it holds the last frame).
  api.png = () => renderer.domElement.toDataURL('image/png');
  $('status').textContent = '';
  render();
  api.ready = true;
  drawn.resolve({ triangles: renderer.info.render.triangles, calls: renderer.info.render.calls });
  if (thumbnail) document.title = 'ready';
  else requestAnimationFrame(frame);
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
  resize();
  api.draw = async (base64) => {
    unshow();
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const gltf = await new Promise((resolve, reject) => new GLTFLoader().parse(bytes.buffer, '', resolve, reject));
    await show(gltf);
    render();
    return renderer.domElement.toDataURL('image/png');
  };
  api.ready = true;
  drawn.resolve({});
} else main().catch((e) => {
  api.error = String(e && e.stack || e);
  drawn.reject(e);
  $('status').textContent = `error: ${e}`;
  console.error(e);
});
