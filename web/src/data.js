// The run's data, embedded by `signorini` in a <script type="application/json"> element
// (docs/replay.md): geometry as JSON, frames, contacts and metrics as little-endian typed arrays
// in base64.

function bytes(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function typed(b64, Type, expected, what) {
  const u8 = bytes(b64 || '');
  if (u8.length % Type.BYTES_PER_ELEMENT !== 0) {
    throw new Error(`replay data: ${what} is ${u8.length} bytes, not whole ${Type.name} elements`);
  }
  const a = new Type(u8.buffer);
  if (expected !== undefined && a.length !== expected) {
    throw new Error(`replay data: ${what} has ${a.length} values, expected ${expected}`);
  }
  return a;
}

export function loadData(element) {
  if (!element) throw new Error('replay data: the page has no data element');
  const raw = JSON.parse(element.textContent);
  if (raw.format !== 1) throw new Error(`replay data: unknown format ${raw.format}`);
  const f = raw.frames;
  const F = f.count;
  const D = f.bodies.length;
  const frames = {
    count: F,
    bodies: f.bodies,
    time: typed(f.time, Float64Array, F, 'frames.time'),
    pose: typed(f.pose, Float32Array, F * D * 7, 'frames.pose'),
    velocity: typed(f.velocity, Float32Array, F * D * 6, 'frames.velocity'),
  };
  let contacts = null;
  if (raw.contacts) {
    const offsets = typed(raw.contacts.offsets, Uint32Array, F + 1, 'contacts.offsets');
    const n = offsets[F];
    // Points quantized to 16 bits per axis over their bounding box, normals to 8 bits.
    contacts = {
      offsets,
      origin: raw.contacts.origin,
      scale: raw.contacts.scale,
      point: typed(raw.contacts.point, Uint16Array, 3 * n, 'contacts.point'),
      normal: typed(raw.contacts.normal, Int8Array, 3 * n, 'contacts.normal'),
      touching: typed(raw.contacts.touching, Uint8Array, n, 'contacts.touching'),
    };
  }
  // Deformables (docs/replay.md): per deformable its particle frames at the times the run wrote
  // them; the facets and names are in the scene's `deformables`.
  const deformables = (raw.deformables || []).map((d, k) => ({
    count: d.count,
    particles: d.particles,
    time: typed(d.time, Float64Array, d.count, `deformables[${k}].time`),
    position: typed(d.position, Float32Array, d.count * d.particles * 3, `deformables[${k}].position`),
  }));
  const m = raw.metrics;
  const metrics = {
    count: m.count,
    time: typed(m.time, Float64Array, m.count, 'metrics.time'),
    kinetic: typed(m.kinetic_energy, Float32Array, m.count, 'metrics.kinetic_energy'),
    potential: typed(m.potential_energy, Float32Array, m.count, 'metrics.potential_energy'),
    penetration: typed(m.max_penetration, Float32Array, m.count, 'metrics.max_penetration'),
    bucketed: m.bucketed,
  };
  return { title: raw.title, scene: raw.scene, frames, contacts, deformables, metrics, info: raw.info || {} };
}
