// The replay page of a signorini run (docs/replay.md): the bodies in 3D (three.js), play/pause,
// a time slider, playback speed, contact points and normals, body picking, and the energy and
// penetration plots with a cursor that follows the replay.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import css from './style.css';
import { loadData } from './data.js';
import { Plot } from './plots.js';

function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.appendChild(c);
  return e;
}

function fmt(v, digits = 4) {
  if (!Number.isFinite(v)) return String(v);
  if (v !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e5)) return v.toExponential(digits - 1);
  return v.toFixed(digits);
}

const vec = (a) => `(${a.map((x) => fmt(x)).join(', ')})`;

// Body colours: fixed bodies grey, the others spread over hues by the golden angle.
function bodyColor(i, fixed) {
  if (fixed) return new THREE.Color(0x9aa0a6);
  return new THREE.Color().setHSL(((i * 0.618034) % 1 + 1) % 1, 0.55, 0.55);
}

function polytopeGeometry(piece) {
  const v = piece.vertices;
  const pos = [];
  for (const face of piece.faces) {
    for (let k = 1; k + 1 < face.length; k++) {
      for (const idx of [face[0], face[k], face[k + 1]]) pos.push(v[idx][0], v[idx][1], v[idx][2]);
    }
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  g.computeVertexNormals(); // non-indexed: flat faces
  return g;
}

function polytopeEdges(piece) {
  const v = piece.vertices;
  const seen = new Set();
  const pos = [];
  for (const face of piece.faces) {
    for (let k = 0; k < face.length; k++) {
      const a = face[k];
      const b = face[(k + 1) % face.length];
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pos.push(...v[a], ...v[b]);
    }
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  return g;
}

const quat = (q) => new THREE.Quaternion(q[1], q[2], q[3], q[0]); // [w, x, y, z]

function main() {
  const style = document.createElement('style');
  style.textContent = css;
  document.head.appendChild(style);

  const data = loadData(document.getElementById('signorini-replay-data'));
  const { scene: sceneDesc, frames, contacts, deformables, metrics } = data;
  const bodies = sceneDesc.bodies;
  const F = frames.count;
  const D = frames.bodies.length;
  const duration = F > 0 ? frames.time[F - 1] : 0;
  const slot = new Map(frames.bodies.map((b, k) => [b, k])); // scene index -> frame slot

  // ---- layout ----
  const view = el('div', { id: 'view' });
  const play = el('button', { id: 'play', type: 'button', text: 'Play' });
  const slider = el('input', { id: 'slider', type: 'range', min: '0', max: String(Math.max(0, F - 1)), step: '1', value: '0' });
  const speed = el('select', { id: 'speed' });
  for (const s of [0.05, 0.1, 0.25, 0.5, 1, 2, 4]) {
    const o = el('option', { value: String(s), text: `${s}×` });
    if (s === 1) o.selected = true;
    speed.appendChild(o);
  }
  const showPoints = el('input', { id: 'show-points', type: 'checkbox' });
  const showNormals = el('input', { id: 'show-normals', type: 'checkbox' });
  showPoints.checked = !!contacts;
  // Normals on by default only where they do not bury the scene (a few hundred at most).
  let busiest = 0;
  if (contacts) for (let f = 0; f < F; f++) busiest = Math.max(busiest, contacts.offsets[f + 1] - contacts.offsets[f]);
  showNormals.checked = !!contacts && busiest <= 300;
  showPoints.disabled = showNormals.disabled = !contacts;
  const status = el('div', { id: 'status' });
  const info = el('div', { id: 'info' });
  const plotCanvases = ['kinetic', 'potential', 'penetration'].map((id) => el('canvas', { class: 'plot', id: `plot-${id}` }));
  const side = el('div', { id: 'side' }, [
    el('h1', { text: data.title }),
    el('div', { class: 'row' }, [play, el('label', {}, [document.createTextNode('speed'), speed])]),
    slider,
    status,
    el('div', { class: 'row' }, [
      el('label', {}, [showPoints, document.createTextNode('contact points')]),
      el('label', {}, [showNormals, document.createTextNode('normals')]),
    ]),
    contacts ? el('span') : el('div', { class: 'note', text: 'No contacts in this page (run with --html to record them).' }),
    info,
    ...plotCanvases,
    el('div', { class: 'note', text: 'Drag to orbit, right-drag to pan, wheel to zoom; click a body to see its state; click a plot to jump there; space plays or pauses.' }),
  ]);
  document.body.appendChild(el('div', { id: 'app' }, [view, side]));

  // ---- extent of the scene at the first frame (a body that flies off or falls through must not
  // shrink the view of the rest): the finite pieces of every body ----
  const box = new THREE.Box3();
  const p = new THREE.Vector3();
  bodies.forEach((b, i) => {
    const r = b.pieces.reduce((m, pc) => {
      if (pc.shape === 'sphere') return Math.max(m, Math.hypot(...pc.position) + pc.radius);
      if (pc.shape === 'polytope') return Math.max(m, Math.hypot(...pc.position) + Math.max(...pc.vertices.map((v) => Math.hypot(...v))));
      return m;
    }, 0);
    if (r === 0) return;
    const k = slot.get(i);
    if (k === undefined) {
      box.expandByPoint(p.fromArray(b.position).addScalar(r));
      box.expandByPoint(p.fromArray(b.position).addScalar(-r));
    } else if (F > 0) {
      const o = k * 7;
      p.set(frames.pose[o], frames.pose[o + 1], frames.pose[o + 2]);
      box.expandByPoint(p.clone().addScalar(r));
      box.expandByPoint(p.addScalar(-r));
    }
  });
  // The deformables' particles at their first frame.
  for (const d of deformables) {
    for (let i = 0; d.count > 0 && i < d.particles; i++) {
      box.expandByPoint(p.set(d.position[3 * i], d.position[3 * i + 1], d.position[3 * i + 2]));
    }
  }
  if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  const center = box.getCenter(new THREE.Vector3());
  const size = Math.max(box.getSize(new THREE.Vector3()).length(), 0.1);

  // ---- three.js scene ----
  let renderer;
  try {
    renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  } catch (e) {
    view.appendChild(el('div', { class: 'message', text: `This browser cannot draw WebGL: ${e.message}. The plots still work.` }));
    throw e;
  }
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setClearColor(0xeef1f5);
  view.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(40, 1, size * 1e-3, size * 200);
  camera.up.set(0, 0, 1);
  camera.position.copy(center).add(new THREE.Vector3(0.8, -1.4, 1.3).multiplyScalar(size * 0.7));
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.copy(center);
  controls.update();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x667080, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(0.5, -0.8, 1.5);
  scene.add(sun);

  const groups = [];
  const pickable = [];
  const edgeMaterial = new THREE.LineBasicMaterial({ color: 0x202428, transparent: true, opacity: 0.45 });
  bodies.forEach((b, i) => {
    const group = new THREE.Group();
    group.name = b.name;
    group.userData.body = i;
    const material = new THREE.MeshStandardMaterial({ color: bodyColor(i, b.fixed), roughness: 0.75, metalness: 0.05, flatShading: true });
    for (const pc of b.pieces) {
      const holder = new THREE.Group();
      holder.position.fromArray(pc.position);
      holder.quaternion.copy(quat(pc.orientation));
      if (pc.shape === 'sphere') {
        const m = new THREE.Mesh(new THREE.SphereGeometry(pc.radius, 32, 20), material);
        m.userData.body = i;
        holder.add(m);
        pickable.push(m);
        // A meridian shows the sphere turning.
        const ring = new THREE.Mesh(new THREE.TorusGeometry(pc.radius * 1.002, pc.radius * 0.03, 6, 48), edgeMaterial.clone());
        ring.material = new THREE.MeshBasicMaterial({ color: 0x202428 });
        holder.add(ring);
      } else if (pc.shape === 'polytope') {
        const m = new THREE.Mesh(polytopeGeometry(pc), material);
        m.userData.body = i;
        holder.add(m);
        pickable.push(m);
        holder.add(new THREE.LineSegments(polytopeEdges(pc), edgeMaterial));
      } else if (pc.shape === 'halfspace') {
        // A large finite square of the boundary plane, with a grid; +z of the square along the
        // outward normal.
        const n = new THREE.Vector3().fromArray(pc.normal).normalize();
        const L = Math.max(size * 4, 2);
        const plane = new THREE.Group();
        plane.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
        // Centre the square under the scene: the scene centre projected on the plane (in the
        // piece frame; the half-space bodies are fixed, their frame is the world's up to a pose).
        const c = center.clone().sub(new THREE.Vector3().fromArray(b.position)).sub(new THREE.Vector3().fromArray(pc.position));
        const inPlane = c.sub(n.clone().multiplyScalar(c.dot(n))).applyQuaternion(plane.quaternion.clone().invert());
        const sq = new THREE.Mesh(
          new THREE.PlaneGeometry(L, L),
          new THREE.MeshStandardMaterial({ color: 0xc9ced6, roughness: 0.95, side: THREE.DoubleSide, transparent: true, opacity: 0.85 }),
        );
        sq.position.set(inPlane.x, inPlane.y, 0);
        sq.userData.body = i;
        pickable.push(sq);
        plane.add(sq);
        const divisions = Math.min(200, Math.max(10, Math.round(L / niceStep(size / 4))));
        const grid = new THREE.GridHelper(L, divisions, 0x8a919c, 0xaab0b9);
        grid.rotation.x = Math.PI / 2; // GridHelper lies in xz; turn it into xy
        grid.position.set(inPlane.x, inPlane.y, 1e-4 * size);
        plane.add(grid);
        holder.add(plane);
      }
      group.add(holder);
    }
    group.position.fromArray(b.position);
    group.quaternion.copy(quat(b.orientation));
    scene.add(group);
    groups.push(group);
  });

  // ---- deformables: each particle a ball of its contact radius (the surface the contacts
  // see), and a translucent mesh over the facets through the outer particles' centres ----
  const deformableMeshes = (sceneDesc.deformables || []).map((desc, k) => {
    const d = deformables[k];
    const geo = new THREE.BufferGeometry();
    geo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * d.particles), 3));
    geo.setIndex(desc.triangles.flat());
    const color = new THREE.Color().setHSL((0.08 + 0.618034 * k) % 1, 0.55, 0.6);
    const mesh = new THREE.Mesh(geo, new THREE.MeshStandardMaterial({
      color, roughness: 0.8, side: THREE.DoubleSide, flatShading: true, transparent: true, opacity: 0.45,
    }));
    mesh.name = desc.name;
    const balls = new THREE.InstancedMesh(
      new THREE.SphereGeometry(Math.max(desc.radius, size * 1e-3), 12, 8),
      new THREE.MeshStandardMaterial({ color, roughness: 0.7 }),
      d.particles,
    );
    scene.add(mesh);
    scene.add(balls);
    return { mesh, geo, balls, frame: -1 };
  });
  const particleMatrix = new THREE.Matrix4();

  function particleFrameAt(d, time) {
    // Last particle frame at or before `time`.
    if (d.count === 0 || time <= d.time[0]) return 0;
    let lo = 0;
    let hi = d.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (d.time[mid] <= time + 1e-12) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function applyDeformables() {
    deformableMeshes.forEach((m, k) => {
      const d = deformables[k];
      const f = particleFrameAt(d, t);
      if (d.count === 0 || f === m.frame) return;
      const n = 3 * d.particles;
      const xs = d.position.subarray(f * n, (f + 1) * n);
      m.geo.attributes.position.array.set(xs);
      m.geo.attributes.position.needsUpdate = true;
      for (let i = 0; i < d.particles; i++) {
        m.balls.setMatrixAt(i, particleMatrix.makeTranslation(xs[3 * i], xs[3 * i + 1], xs[3 * i + 2]));
      }
      m.balls.instanceMatrix.needsUpdate = true;
      m.balls.computeBoundingSphere();
      m.geo.computeVertexNormals();
      m.geo.computeBoundingSphere();
      m.frame = f;
    });
  }

  function niceStep(x) {
    const e = Math.pow(10, Math.floor(Math.log10(x)));
    const m = x / e;
    return (m < 2 ? 1 : m < 5 ? 2 : 5) * e;
  }

  // Contact points and normals.
  let maxContacts = 0;
  if (contacts) for (let f = 0; f < F; f++) maxContacts = Math.max(maxContacts, contacts.offsets[f + 1] - contacts.offsets[f]);
  const pointGeo = new THREE.BufferGeometry();
  pointGeo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * Math.max(1, maxContacts)), 3));
  pointGeo.setAttribute('color', new THREE.BufferAttribute(new Float32Array(3 * Math.max(1, maxContacts)), 3));
  // Red: touching or penetrating (gap <= 0); amber: within the activation distance, apart.
  const points = new THREE.Points(pointGeo, new THREE.PointsMaterial({ size: 6, sizeAttenuation: false, depthTest: false, vertexColors: true }));
  points.renderOrder = 10;
  const normalGeo = new THREE.BufferGeometry();
  normalGeo.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * Math.max(1, maxContacts)), 3));
  const normals = new THREE.LineSegments(normalGeo, new THREE.LineBasicMaterial({ color: 0x1f77b4, depthTest: false }));
  normals.renderOrder = 10;
  points.frustumCulled = normals.frustumCulled = false;
  scene.add(points, normals);
  const normalLength = size * 0.04;

  // ---- plots ----
  const plots = [
    new Plot(plotCanvases[0], { title: 'kinetic energy', unit: 'J', time: metrics.time, duration, series: [{ label: 'kinetic', color: '#1f77b4', values: metrics.kinetic }] }),
    new Plot(plotCanvases[1], { title: 'potential energy', unit: 'J', time: metrics.time, duration, series: [{ label: 'potential', color: '#ff7f0e', values: metrics.potential }] }),
    new Plot(plotCanvases[2], { title: 'max penetration', unit: 'm', time: metrics.time, duration, series: [{ label: 'penetration', color: '#2ca02c', values: metrics.penetration }] }),
  ];

  // ---- state ----
  let t = 0;
  let frame = 0;
  let playing = false;
  let selected = -1;
  let dirty = true;
  let contactsDrawn = 0;

  function frameAt(time) {
    // Last frame at or before `time`.
    let lo = 0;
    let hi = F - 1;
    if (F === 0 || time <= frames.time[0]) return 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (frames.time[mid] <= time + 1e-12) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function bodyState(i) {
    const b = bodies[i];
    const k = slot.get(i);
    if (k === undefined) {
      return { position: b.position, orientation: b.orientation, velocity: [0, 0, 0], angular: [0, 0, 0] };
    }
    const o = (frame * D + k) * 7;
    const pz = frames.pose;
    const v = frames.velocity;
    const ov = (frame * D + k) * 6;
    return {
      position: [pz[o], pz[o + 1], pz[o + 2]],
      orientation: [pz[o + 3], pz[o + 4], pz[o + 5], pz[o + 6]],
      velocity: [v[ov], v[ov + 1], v[ov + 2]],
      angular: [v[ov + 3], v[ov + 4], v[ov + 5]],
    };
  }

  function applyFrame() {
    applyDeformables();
    for (const [i, k] of slot) {
      const o = (frame * D + k) * 7;
      const g = groups[i];
      g.position.set(frames.pose[o], frames.pose[o + 1], frames.pose[o + 2]);
      g.quaternion.set(frames.pose[o + 4], frames.pose[o + 5], frames.pose[o + 6], frames.pose[o + 3]).normalize();
    }
    contactsDrawn = 0;
    if (contacts) {
      const a = contacts.offsets[frame];
      const n = contacts.offsets[frame + 1] - a;
      const pp = pointGeo.attributes.position.array;
      const cc = pointGeo.attributes.color.array;
      const nn = normalGeo.attributes.position.array;
      const { origin, scale } = contacts;
      for (let c = 0; c < n; c++) {
        let len = 0;
        for (let d = 0; d < 3; d++) len += contacts.normal[3 * (a + c) + d] ** 2;
        len = Math.sqrt(len) || 1;
        for (let d = 0; d < 3; d++) {
          const x = origin[d] + scale[d] * contacts.point[3 * (a + c) + d];
          pp[3 * c + d] = x;
          nn[6 * c + d] = x;
          nn[6 * c + 3 + d] = x + (normalLength * contacts.normal[3 * (a + c) + d]) / len;
        }
        const touching = contacts.touching[a + c] === 1;
        cc[3 * c] = touching ? 0.84 : 1.0;
        cc[3 * c + 1] = touching ? 0.15 : 0.62;
        cc[3 * c + 2] = touching ? 0.16 : 0.1;
      }
      pointGeo.attributes.color.needsUpdate = true;
      pointGeo.setDrawRange(0, n);
      normalGeo.setDrawRange(0, 2 * n);
      pointGeo.attributes.position.needsUpdate = true;
      normalGeo.attributes.position.needsUpdate = true;
      contactsDrawn = n;
    }
    points.visible = showPoints.checked;
    normals.visible = showNormals.checked;
  }

  function showInfo() {
    if (selected < 0) {
      info.innerHTML = '';
      info.appendChild(el('span', { class: 'hint', text: 'Click a body to see its state.' }));
      return;
    }
    const b = bodies[selected];
    const s = bodyState(selected);
    const rows = [
      ['body', `${b.name} (#${selected}${b.fixed ? ', fixed' : `, ${fmt(b.mass)} kg`})`],
      ['position (m)', vec(s.position)],
      ['orientation (w, x, y, z)', vec(s.orientation)],
      ['velocity (m/s)', vec(s.velocity)],
      ['angular velocity (rad/s)', vec(s.angular)],
    ];
    info.innerHTML = '';
    const table = el('table');
    for (const [k, v] of rows) table.appendChild(el('tr', {}, [el('td', { text: k }), el('td', { text: v })]));
    info.appendChild(table);
  }

  function setFrame(f, time) {
    frame = Math.max(0, Math.min(F - 1, f));
    t = time === undefined ? (F ? frames.time[frame] : 0) : time;
    slider.value = String(frame);
    applyFrame();
    status.textContent = `t = ${t.toFixed(4)} s of ${duration.toFixed(4)} s · frame ${frame + 1}/${F}` + (contacts ? ` · ${contactsDrawn} contacts` : '');
    showInfo();
    for (const pl of plots) pl.draw(t);
    dirty = true;
  }

  function setTime(time) {
    const tt = Math.max(0, Math.min(duration, Number(time)));
    setFrame(frameAt(tt), tt);
  }

  function setPlaying(on) {
    playing = on && F > 1;
    if (playing && t >= duration) setTime(0);
    play.textContent = playing ? 'Pause' : 'Play';
    last = performance.now();
  }

  function select(i) {
    if (selected >= 0) for (const m of pickable) if (m.userData.body === selected && m.material.emissive) m.material.emissive.setHex(0x000000);
    selected = i;
    if (selected >= 0) for (const m of pickable) if (m.userData.body === selected && m.material.emissive) m.material.emissive.setHex(0x553300);
    showInfo();
    dirty = true;
  }

  // ---- events ----
  play.addEventListener('click', () => setPlaying(!playing));
  slider.addEventListener('input', () => { setPlaying(false); setFrame(Number(slider.value)); });
  showPoints.addEventListener('change', () => { applyFrame(); dirty = true; });
  showNormals.addEventListener('change', () => { applyFrame(); dirty = true; });
  window.addEventListener('keydown', (e) => {
    if (e.code === 'Space' && e.target.tagName !== 'INPUT' && e.target.tagName !== 'SELECT' && e.target.tagName !== 'BUTTON') {
      e.preventDefault();
      setPlaying(!playing);
    }
  });
  controls.addEventListener('change', () => { dirty = true; });
  for (const pl of plots) {
    pl.canvas.addEventListener('click', (e) => {
      const r = pl.canvas.getBoundingClientRect();
      setPlaying(false);
      setTime(pl.timeAt((e.clientX - r.left) * (pl.canvas.width / r.width)));
    });
  }
  const raycaster = new THREE.Raycaster();
  let down = null;
  renderer.domElement.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
  renderer.domElement.addEventListener('pointerup', (e) => {
    if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;
    const r = renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
    raycaster.setFromCamera(ndc, camera);
    const hit = raycaster.intersectObjects(pickable, false)[0];
    select(hit ? hit.object.userData.body : -1);
  });

  function resize() {
    const w = Math.max(1, view.clientWidth);
    const h = Math.max(1, view.clientHeight);
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    for (const pl of plots) pl.draw(t);
    dirty = true;
  }
  window.addEventListener('resize', resize);

  let last = performance.now();
  let rendered = 0;
  function loop(now) {
    if (playing) {
      const dt = Math.min(0.1, (now - last) / 1000) * Number(speed.value);
      const next = t + dt;
      if (next >= duration) { setTime(duration); setPlaying(false); } else setTime(next);
    }
    last = now;
    if (dirty) {
      renderer.render(scene, camera);
      rendered++;
      dirty = false;
    }
    requestAnimationFrame(loop);
  }

  resize();
  setFrame(0);
  select(-1);
  renderer.render(scene, camera);
  rendered++;
  dirty = false;
  requestAnimationFrame(loop);

  // A read-only hook for tests and scripts (scripts/test-web.sh).
  const screenPoint = new THREE.Vector3();
  window.signoriniReplay = Object.freeze({
    ready: true,
    bodyCount: groups.length,
    dynamicBodyCount: D,
    frameCount: F,
    duration,
    contactsRecorded: !!contacts,
    time: () => t,
    frame: () => frame,
    setTime: (time) => { setPlaying(false); setTime(time); renderer.render(scene, camera); dirty = false; return t; },
    bodyName: (i) => bodies[i].name,
    bodyPosition: (i) => groups[i].position.toArray(),
    bodyScreenPosition: (i) => {
      screenPoint.copy(groups[i].position).project(camera);
      const r = renderer.domElement.getBoundingClientRect();
      return [r.left + ((screenPoint.x + 1) / 2) * r.width, r.top + ((1 - screenPoint.y) / 2) * r.height];
    },
    selectedBody: () => selected,
    contactsDrawn: () => (points.visible ? contactsDrawn : 0),
    deformableCount: deformableMeshes.length,
    deformableName: (k) => deformableMeshes[k].mesh.name,
    // Particle `i` of deformable `k` as drawn now (m).
    deformableParticle: (k, i) => Array.from(deformableMeshes[k].geo.attributes.position.array.subarray(3 * i, 3 * i + 3)),
    deformableFrameTime: (k) => {
      const m = deformableMeshes[k];
      return m.frame < 0 ? null : deformables[k].time[m.frame];
    },
    renderedFrames: () => rendered,
  });
}

try {
  main();
} catch (e) {
  console.error(`signorini replay: ${e && e.stack ? e.stack : e}`);
  const m = document.createElement('pre');
  m.style.color = '#a00';
  m.textContent = `The replay could not start: ${e && e.message ? e.message : e}`;
  document.body.appendChild(m);
}
