// meshport's model viewer as a module (docs/viewer.md "The viewer as a module"): createViewer()
// puts a three.js canvas into one element and the panel (title, display toggles, animation,
// meshes, morph sliders, summary) into another, and shows .glb models given as bytes. The page of
// `meshport view` (serve.js) and the static web app use it alike. It imports three.js through the
// page's import map and uses no absolute URL, so it can be served from any folder.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

// The panel's markup; its element ids are the page's (one viewer per page).
const PANEL = `
  <h1 id="title"></h1>
  <section id="display">
    <label><input type="checkbox" id="wireframe"> wireframe</label>
    <label id="skeleton-row" class="mp-hidden"><input type="checkbox" id="skeleton"> skeleton</label>
    <label id="connectors-row" class="mp-hidden"><input type="checkbox" id="connectors" checked> connectors</label>
    <label id="team-row" class="mp-hidden">team colour <input type="color" id="team" value="#00ff00"></label>
  </section>
  <section id="animation-box" class="mp-hidden">
    <h2>Animation</h2>
    <select id="animation"></select>
    <button id="play" type="button">pause</button>
    <input type="range" id="scrub" min="0" max="1" step="0.001" value="0">
    <div id="time"></div>
  </section>
  <section id="levels-box" class="mp-hidden"><h2>Meshes</h2><div id="levels"></div></section>
  <section id="morph-box" class="mp-hidden"><h2>Morph targets</h2><div id="morphs"></div></section>
  <section><h2>Summary</h2><table id="summary"></table>
    <details><summary>info --json</summary><pre id="json"></pre></details></section>`;

const materialsOf = (o) => (o.material ? (Array.isArray(o.material) ? o.material : [o.material]) : []);
const shownMeshes = (root, f) => root.traverse((o) => { if (o.isMesh && !o.userData.helper) f(o); });

// Both sides of every face: a model inspector shows faces whatever their winding (PIE levels are
// often single planes seen from either side).
function showBothSides(object) {
  shownMeshes(object, (o) => { for (const m of materialsOf(o)) m.side = THREE.DoubleSide; });
}

// Blending glTF cannot say, kept in meshport's material extras (docs/gltf-obj.md): Warzone 2100's
// additive pages (added to what is behind, fragments of alpha <= 0.5 discarded) and premultiplied
// ones (colour + behind x (1 - alpha)).
function applyBlending(object) {
  shownMeshes(object, (o) => {
    for (const m of materialsOf(o)) {
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
  shownMeshes(gltf.scene, (o) => { for (const m of materialsOf(o)) if (!materials.includes(m)) materials.push(m); });
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

// Whether mesh `m` is one of the primitives of a glTF mesh that share their vertex arrays (a PIE
// level split by polygon material): three.js makes them meshes of one group with the same
// position attribute.
function splitPrimitive(m) {
  const p = m.parent;
  if (!p || !p.isGroup) return false;
  return p.children.some((o) => o !== m && o.isMesh && o.geometry.attributes.position === m.geometry.attributes.position);
}

function counts(gltf, root) {
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

// Frees what an object holds on the GPU: geometries, materials, their textures (team colour masks
// included).
function dispose(object) {
  object.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    for (const m of materialsOf(o)) {
      for (const v of Object.values(m)) if (v && v.isTexture) v.dispose();
      if (m.userData && m.userData.teamUniforms) m.userData.teamUniforms.mpTeamMask.value.dispose();
      m.dispose();
    }
  });
}

// The .glb bytes as the ArrayBuffer GLTFLoader reads.
function arrayBuffer(glb) {
  if (glb instanceof ArrayBuffer) return glb;
  if (ArrayBuffer.isView(glb)) return glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength);
  throw new TypeError('the model has no .glb bytes (model.glb: an ArrayBuffer or a Uint8Array)');
}

const parse = (glb) => new Promise((resolve, reject) => new GLTFLoader().parse(arrayBuffer(glb), '', resolve, reject));

// The viewer (see the file's top and docs/viewer.md). options: { view, panel, thumbnail }.
export function createViewer(options = {}) {
  const container = options.view;
  if (!container) throw new Error('createViewer: options.view (the element for the canvas) is missing');
  const thumbnail = options.thumbnail !== undefined && options.thumbnail !== null && options.thumbnail !== false;
  container.classList.add('mp-view');
  // thumbnail: N: an N x N canvas at the top left (Chromium's window has a minimum size; `meshport
  // thumbnail` reads the canvas).
  if (thumbnail) {
    container.classList.add('mp-thumbnail');
    const size = Number(options.thumbnail);
    if (size >= 16) {
      Object.assign(container.style, { position: 'fixed', left: '0', top: '0', width: `${size}px`, height: `${size}px`, flex: 'none' });
    }
  }
  // The status line: the page's own .mp-status in the view (shown before the modules load), or one
  // of ours (no id: the page may have a #status of its own elsewhere).
  let statusLine = container.querySelector('.mp-status');
  if (!statusLine) {
    statusLine = document.createElement('div');
    statusLine.className = 'mp-status';
    container.append(statusLine);
  }
  const setStatus = (text) => { statusLine.textContent = text; };

  // The panel: our part of options.panel, first in it (the page may add its own after).
  let panel = null;
  if (options.panel) {
    options.panel.classList.add('mp-panel');
    if (thumbnail) options.panel.classList.add('mp-hidden');
    else {
      panel = document.createElement('div');
      panel.className = 'mp-panel-body';
      options.panel.prepend(panel);
    }
  }
  const $ = (id) => (panel ? panel.querySelector(`#${id}`) : null);
  const on = (id, event, f) => { const e = $(id); if (e) e[event] = f; };
  const emptyPanel = () => { if (panel) panel.innerHTML = PANEL; };
  emptyPanel();

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
  const clock = new THREE.Clock();

  // The model shown: its glTF, root, animation state, helpers, team colour and recolouring.
  let gltf = null, root = null, mixer = null, action = null, playing = true, skeleton = null;
  let markers = [], clientTeamColour = false, recolour = null, info = null, shownCounts = null, wireframe = false;
  let frames = 0, looping = false;
  let generation = 0;  // one per show() and clear(): a show overtaken by another drops its model

  // The canvas follows the view's size (the window's when the view has none). Setting the same
  // size again would clear the drawing buffer, so only a change is applied.
  function resize() {
    const w = container.clientWidth || window.innerWidth, h = container.clientHeight || window.innerHeight;
    const size = renderer.getSize(new THREE.Vector2());
    if (size.x === w && size.y === h && camera.aspect === w / Math.max(h, 1)) return false;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
    return true;
  }
  new ResizeObserver(() => { if (resize()) render(); }).observe(container);

  function render() {
    renderer.render(scene, camera);
    frames++;
  }

  // Frames are drawn one after another only while an animation plays. Everything else that changes
  // the picture (the camera's controls, the time bar, a mesh or level hidden, wireframe, the
  // resized view) draws once, when it happens: a still model takes no processor time, which a
  // laptop's battery and a loaded machine's other work (a conversion in the web app) notice.
  function frame() {
    if (!root || !(mixer && action && playing)) { looping = false; return; }
    mixer.update(clock.getDelta());
    showTime();
    render();
    requestAnimationFrame(frame);
  }

  function startLoop() {
    if (thumbnail || looping) return;
    looping = true;
    clock.getDelta();  // the animation goes on from where it stopped, not by the time it was still
    requestAnimationFrame(frame);
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

  function summaryTable() {
    const s = info.summary || {};
    const table = $('summary');
    for (const [key, value] of Object.entries(s)) {
      if (value === null || typeof value === 'object' && !Array.isArray(value)) continue;
      const tr = table.insertRow();
      tr.insertCell().textContent = key;
      tr.insertCell().textContent = Array.isArray(value) ? `${value.length}` : `${value}`;
    }
    $('json').textContent = JSON.stringify(s, null, 1);
  }

  function setAnimation(index) {
    if (action) action.stop();
    action = null;
    if (!mixer || index < 0 || index >= gltf.animations.length) return;
    action = mixer.clipAction(gltf.animations[index]);
    action.play();
    const scrub = $('scrub');
    if (scrub) scrub.max = String(Math.max(gltf.animations[index].duration, 0.001));
    mixer.setTime(0);
    showTime();
  }

  function showTime() {
    if (!action || !panel) return;
    $('scrub').value = String(action.time);
    $('time').textContent = `${action.time.toFixed(2)} s / ${action.getClip().duration.toFixed(2)} s`;
  }

  function setPlaying(on) {
    playing = on;
    const button = $('play');
    if (button) button.textContent = playing ? 'pause' : 'play';
    if (playing) startLoop();
  }

  // Fills the (empty) panel for the model shown.
  function buildPanel() {
    if (!panel) return;
    const show = (id) => $(id).classList.remove('mp-hidden');
    $('title').textContent = info.title || '';
    summaryTable();

    // Animations: picker, play/pause, scrub.
    if (gltf.animations.length) {
      show('animation-box');
      const select = $('animation');
      gltf.animations.forEach((clip, i) => select.add(new Option(clip.name || `animation ${i}`, String(i))));
      select.onchange = () => setAnimation(Number(select.value));
      on('play', 'onclick', () => setPlaying(!playing));
      on('scrub', 'oninput', () => { setPlaying(false); mixer.setTime(Number($('scrub').value)); showTime(); render(); });
    }
    // Meshes (PIE levels are meshes "<model>_level<n>"): visibility.
    const meshes = [];
    shownMeshes(root, (o) => meshes.push(o));
    // A glTF mesh of several primitives (a PIE level split by polygon material) is a group of
    // three.js meshes: one entry for the group.
    const owners = [];
    for (const m of meshes) {
      const owner = splitPrimitive(m) ? m.parent : m;
      if (!owners.includes(owner)) owners.push(owner);
    }
    if (owners.length > 1) {
      show('levels-box');
      // The glTF's own names (three.js keeps them in userData.name; its object names drop dots and
      // slashes). PIE levels "<model>_level<n>" read "level n" (an assembled unit's later parts add
      // "_part<k>": "level n (part k)"), with the model's name when they come from several models.
      const nameOf = (m) => (m.userData && m.userData.name) || m.name;
      const levelRule = /^(.*)_level(\d+)(?:_part(\d+))?$/;
      const models = new Set(owners.map((m) => { const l = levelRule.exec(nameOf(m)); return l ? l[1] : null; }));
      for (const m of owners) {
        const label = document.createElement('label');
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.checked = true;
        box.onchange = () => { m.visible = box.checked; render(); };
        const name = nameOf(m);
        const level = levelRule.exec(name);
        const text = level ? `${models.size > 1 ? `${level[1]} ` : ''}level ${level[2]}${level[3] ? ` (part ${level[3]})` : ''}`
          : name || 'mesh';
        label.append(box, ` ${text}`);
        label.title = name;
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
    if (targets.size) show('morph-box');
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
      show('skeleton-row');
      on('skeleton', 'onchange', () => { skeleton.visible = $('skeleton').checked; render(); });
    }
    if (markers.length) {
      show('connectors-row');
      on('connectors', 'onchange', () => { for (const m of markers) m.visible = $('connectors').checked; render(); });
    }
    on('wireframe', 'onchange', () => setWireframe($('wireframe').checked));
    if (info.team_colour) {
      show('team-row');
      on('team', 'onchange', () => retint($('team').value.slice(1)).catch((e) => setStatus(`error: ${e}`)));
    }
  }

  function setWireframe(on) {
    wireframe = on;
    if (root) shownMeshes(root, (o) => { for (const m of materialsOf(o)) m.wireframe = on; });
    render();
  }

  // Team colour: on the page from the embedded masks; otherwise (a mask the .glb does not hold)
  // model.recolour gives the .glb with the colour baked in (as `convert --team-colour` does; the
  // server's /model.glb?tc=) and its materials replace the shown ones.
  async function retint(hex) {
    if (!root) return null;
    if (clientTeamColour) {
      const v = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
      shownMeshes(root, (o) => {
        for (const m of materialsOf(o)) if (m.userData.teamUniforms) m.userData.teamUniforms.mpTeam.value.set(v[0], v[1], v[2]);
      });
      render();
      return 'page';
    }
    if (!recolour) throw new Error('this model has no embedded team colour mask and no recolour function');
    const token = generation;
    const baked = await parse(await recolour(hex));
    if (token !== generation) {  // another model is shown now
      dispose(baked.scene);
      return null;
    }
    const fresh = [];
    baked.scene.traverse((o) => { if (o.isMesh) fresh.push(o.material); });
    let i = 0;
    const old = new Set();
    shownMeshes(root, (o) => {
      if (i >= fresh.length) return;
      for (const m of materialsOf(o)) old.add(m);
      o.material = fresh[i++];
    });
    // The replaced materials and the baked model's geometries are not used any more.
    for (const m of old) {
      for (const v of Object.values(m)) if (v && v.isTexture) v.dispose();
      m.dispose();
    }
    baked.scene.traverse((o) => { if (o.geometry) o.geometry.dispose(); });
    showBothSides(root);
    applyBlending(root);
    setWireframe(wireframe);
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

  // Removes the shown model and frees what it holds on the GPU.
  function unshow() {
    if (action) action.stop();
    action = null;
    mixer = null;
    if (skeleton) { scene.remove(skeleton); skeleton.dispose(); skeleton = null; }
    markers = [];
    gltf = null;
    info = null;
    shownCounts = null;
    recolour = null;
    clientTeamColour = false;
    wireframe = false;
    if (!root) return;
    scene.remove(root);
    dispose(root);
    root = null;
  }

  // Shows a .glb: both sides, blending, team colour masks, a hidden skeleton helper, the camera
  // on its bounds, connector markers, its first animation at its start, the panel; resolves after
  // the first frame with it.
  async function show(model) {
    const token = ++generation;
    unshow();
    emptyPanel();
    setStatus('loading…');
    let loaded = null;
    try {
      loaded = await parse(model.glb);
      showBothSides(loaded.scene);
      applyBlending(loaded.scene);
      const masks = await embeddedMasks(loaded);
      if (token !== generation) {
        const e = new Error('meshport viewer: replaced by a later show() or clear()');
        e.name = 'AbortError';
        throw e;
      }
      gltf = loaded;
      root = gltf.scene;
      info = model.info || {};
      recolour = model.recolour || null;
      clientTeamColour = masks;
      scene.add(root);
      let hasBones = false;
      root.traverse((o) => { if (o.isBone) hasBones = true; });
      if (hasBones) {
        skeleton = new THREE.SkeletonHelper(root);
        skeleton.visible = false;
        scene.add(skeleton);
      }
      resize();
      connectorMarkers(frameCamera(root));
      buildPanel();
      setPlaying(!thumbnail);
      if (gltf.animations.length) {
        mixer = new THREE.AnimationMixer(root);
        setAnimation(0);
      }
      shownCounts = counts(gltf, root);
    } catch (e) {
      if (token === generation) {
        unshow();
        emptyPanel();
        setStatus(`error: ${e}`);
      } else if (loaded && loaded.scene !== root) dispose(loaded.scene);
      throw e;
    }
    setStatus('');
    render();
    clock.getDelta();
    startLoop();
    return { triangles: renderer.info.render.triangles, calls: renderer.info.render.calls };
  }

  function clear() {
    generation++;
    unshow();
    emptyPanel();
    setStatus('');
    render();
  }

  // The hooks of the tests and of `meshport thumbnail` (window.meshport on the page of
  // `meshport view`), for the model shown last.
  const api = {
    get counts() { return shownCounts; },
    get info() { return info; },
    get frames() { return frames; },
    // No animation running, a given time, one frame rendered.
    pause: () => setPlaying(false),
    setAnimation: (i) => {
      const select = $('animation');
      if (select) select.value = String(i);
      if (gltf) setAnimation(i);
      render();
    },
    setTime: (t) => { if (mixer) { mixer.setTime(t); showTime(); } render(); },
    setWireframe,
    setMorph: (mesh, target, value) => {
      if (!root) return;
      const ms = [];
      shownMeshes(root, (o) => ms.push(o));
      ms[mesh].morphTargetInfluences[target] = value;
      render();
    },
    retint,
    // The materials shown: name, alpha test, blending ('normal', 'additive', 'premultiplied',
    // 'other'), transparent.
    materials: () => {
      const list = [];
      if (root) shownMeshes(root, (o) => {
        for (const m of materialsOf(o)) {
          if (list.some((x) => x.material === m)) continue;
          const premultiplied = m.blending === THREE.CustomBlending && m.blendSrc === THREE.OneFactor &&
                                m.blendDst === THREE.OneMinusSrcAlphaFactor;
          const blending = m.blending === THREE.NormalBlending ? 'normal' : m.blending === THREE.AdditiveBlending
            ? 'additive' : premultiplied ? 'premultiplied' : 'other';
          list.push({ material: m, name: m.name, alphaTest: m.alphaTest, blending, transparent: m.transparent });
        }
      });
      return list.map(({ material, ...rest }) => rest);
    },
    // The canvas as base64 RGBA rows (bottom row first), for pixel comparisons.
    pixels: () => {
      render();
      const gl = renderer.getContext();
      const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
      const data = new Uint8Array(w * h * 4);
      gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, data);
      let text = '';
      for (let i = 0; i < data.length; i += 0x8000) text += String.fromCharCode.apply(null, data.subarray(i, i + 0x8000));
      return { width: w, height: h, rgba: btoa(text) };
    },
    render,
    // The canvas as a PNG data URL (the drawing buffer is preserved: it holds the last frame).
    png: () => renderer.domElement.toDataURL('image/png'),
  };

  return { show, clear, api, status: setStatus };
}
