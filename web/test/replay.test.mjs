// Browser test of the replay page (docs/replay.md), run by scripts/test-web.sh:
//   node --test web/test/replay.test.mjs (from web/)
// It loads pages that `signorini run --html` wrote (paths in the environment, see below) from
// file:// in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) and checks
// what a person would: the page starts without errors, draws every body of the scene, the slider
// moves the bodies, play advances time, contacts can be hidden, a click picks a body, the plots
// are drawn; then it takes the screenshot docs/img/replay.png and checks it is not blank.
// With SIGNORINI_WEB_BIG (the bin_200 page) it also checks the size and load-time targets.
//
// Environment:
//   SIGNORINI_WEB_FALL  output directory of a run with a falling body (test-web.sh: bounce.toml)
//   SIGNORINI_WEB_BLOCK output directory of block_penetrating_plane (contacts at t = 0)
//   SIGNORINI_WEB_ROBOT output directory of robot_grasp.toml (a robot scene: links.csv poses)
//   SIGNORINI_WEB_DEFORM output directory of deformable_coupling.toml (deformables' particles)
//   SIGNORINI_WEB_BIG   output directory of bin_200 (optional): ≤ 20 MB, loads in ≤ 3 s
//   SIGNORINI_WEB_SCREENSHOT where to save the screenshot (default docs/img/replay.png)
//   SIGNORINI_WEB_SHOT_DIR, SIGNORINI_WEB_SHOT_TIME the page and time (s) photographed (default
//                       the bin_200 page at 0.8 s, or the block's at 0.5 s);
//                       SIGNORINI_WEB_SHOT_CONTACTS=0 hides the contact points first
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  // WebGL without a GPU: ANGLE on SwiftShader, the software renderer Chromium ships.
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`set ${name} (scripts/test-web.sh does)`);
  return path.resolve(v);
};

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ARGS });
});
after(async () => {
  if (browser) await browser.close();
});

// Open OUT/replay.html; collects console errors and page errors. Returns {page, problems, ms}.
async function open(outDir, viewport = { width: 1280, height: 760 }) {
  const file = path.join(outDir, 'replay.html');
  assert.ok(fs.existsSync(file), `${file} exists`);
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const t0 = Date.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  await page.waitForFunction(() => window.signoriniReplay && window.signoriniReplay.ready, null, { timeout: 30000 });
  const ms = Date.now() - t0;
  return { page, problems, ms, file };
}

const sceneOf = (outDir) => JSON.parse(fs.readFileSync(path.join(outDir, 'scene.json'), 'utf8'));

// Statistics of a PNG, decoded by the browser itself: distinct colours and the luminance variance.
async function pngStats(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let s = 0; let s2 = 0; const n = d.length / 4;
    for (let i = 0; i < d.length; i += 4) {
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
      s += y; s2 += y * y;
    }
    return { width: c.width, height: c.height, colours: colours.size, variance: s2 / n - (s / n) ** 2 };
  }, png.toString('base64'));
}

test('a falling body: drawn, moved by the slider and by play, picked by a click', async () => {
  const out = env('SIGNORINI_WEB_FALL');
  const scene = sceneOf(out);
  const { page, problems } = await open(out);
  const r = await page.evaluate(() => ({ ...window.signoriniReplay, time: undefined }));
  assert.equal(r.bodyCount, scene.bodies.length, 'every body of scene.json is drawn');
  const drawn = await page.evaluate(() => window.signoriniReplay.bodyCount);
  assert.equal(drawn, scene.bodies.length);
  assert.ok(r.frameCount > 10, `${r.frameCount} frames`);
  const ball = scene.bodies.findIndex((b) => !b.fixed);
  assert.ok(ball >= 0, 'the scene has a dynamic body');

  // setTime: the falling ball is lower at 0.3 s than at 0.
  const z0 = await page.evaluate((i) => { window.signoriniReplay.setTime(0); return window.signoriniReplay.bodyPosition(i); }, ball);
  const z1 = await page.evaluate((i) => { window.signoriniReplay.setTime(0.3); return window.signoriniReplay.bodyPosition(i); }, ball);
  assert.ok(z1[2] < z0[2] - 0.1, `falls: z ${z0[2]} at t = 0, ${z1[2]} at t = 0.3 s`);
  assert.ok(Math.abs(z0[2] - scene.bodies[ball].position[2]) < 1e-6, 'starts where scene.json puts it');

  // The slider control itself moves the body and the time.
  await page.locator('#slider').fill('0');
  const a = await page.evaluate((i) => [window.signoriniReplay.time(), window.signoriniReplay.bodyPosition(i)], ball);
  const mid = Math.floor(r.frameCount / 3);
  await page.locator('#slider').fill(String(mid));
  const b = await page.evaluate((i) => [window.signoriniReplay.time(), window.signoriniReplay.bodyPosition(i)], ball);
  assert.ok(b[0] > a[0], `slider to frame ${mid}: time ${a[0]} -> ${b[0]}`);
  assert.notDeepEqual(b[1], a[1], 'slider moves the body');
  assert.match(await page.locator('#status').textContent(), /t = /);

  // Play advances time; pause stops it. At a quarter of real time, so that the run (>= 1 s)
  // does not end while the slow software-rendered frames go by.
  await page.evaluate(() => window.signoriniReplay.setTime(0));
  await page.locator('#speed').selectOption('0.25');
  await page.locator('#play').click();
  await page.waitForTimeout(600);
  await page.locator('#play').click();
  const tp = await page.evaluate(() => window.signoriniReplay.time());
  assert.ok(tp > 0.02 && tp < 0.9 * r.duration, `play advanced time to ${tp} s`);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.signoriniReplay.time()), tp, 'pause stops');

  // Picking: click the ball where it is drawn.
  await page.evaluate(() => window.signoriniReplay.setTime(0.2));
  const [x, y] = await page.evaluate((i) => window.signoriniReplay.bodyScreenPosition(i), ball);
  await page.mouse.click(x, y);
  assert.equal(await page.evaluate(() => window.signoriniReplay.selectedBody()), ball, 'the click picked the ball');
  const info = await page.locator('#info').textContent();
  assert.ok(info.includes(scene.bodies[ball].name), `info names the body: ${info}`);
  assert.match(info, /position \(m\)/);
  assert.match(info, /velocity \(m\/s\)/);
  assert.match(info, /orientation/);

  // Plots: three canvases with something drawn on them.
  for (const id of ['plot-kinetic', 'plot-potential', 'plot-penetration']) {
    const shot = await page.locator(`#${id}`).screenshot();
    const st = await pngStats(page, shot);
    assert.ok(st.colours >= 4, `${id}: ${st.colours} colours`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('contacts: drawn at t = 0 in a penetrating start, hidden by the checkbox', async () => {
  const out = env('SIGNORINI_WEB_BLOCK');
  const scene = sceneOf(out);
  const { page, problems } = await open(out);
  assert.equal(await page.evaluate(() => window.signoriniReplay.bodyCount), scene.bodies.length);
  assert.equal(await page.evaluate(() => window.signoriniReplay.contactsRecorded), true);
  await page.evaluate(() => window.signoriniReplay.setTime(0));
  const n = await page.evaluate(() => window.signoriniReplay.contactsDrawn());
  assert.ok(n >= 1, `${n} contact points at t = 0`);
  await page.locator('#show-points').uncheck();
  assert.equal(await page.evaluate(() => window.signoriniReplay.contactsDrawn()), 0);
  await page.locator('#show-points').check();
  assert.equal(await page.evaluate(() => window.signoriniReplay.contactsDrawn()), n);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a robot run: its links drawn from links.csv, the grasped box lifted, contacts at t = 0', async () => {
  const out = env('SIGNORINI_WEB_ROBOT');
  const scene = sceneOf(out);
  assert.equal(scene.poses, 'links.csv', 'a tree run names its poses file');
  const { page, problems } = await open(out);
  assert.equal(await page.evaluate(() => window.signoriniReplay.bodyCount), scene.bodies.length);
  const box = scene.bodies.findIndex((b) => b.name === 'box');
  const hand = scene.bodies.findIndex((b) => b.name === 'arm.hand');
  assert.ok(box >= 0 && hand >= 0, 'the box and the arm\'s hand are bodies of scene.json');
  const at = (t, i) => page.evaluate(([t, i]) => { window.signoriniReplay.setTime(t); return window.signoriniReplay.bodyPosition(i); }, [t, i]);
  const end = await page.evaluate(() => window.signoriniReplay.duration);
  const [b0, b1] = [await at(0, box), await at(end, box)];
  // The scene lifts the 5 cm box by about 0.2 m (docs/multibody.md); 0.15 m is far above any
  // drawing error (float32 poses) and far below the lift.
  assert.ok(b1[2] - b0[2] > 0.15, `box lifted: z ${b0[2]} -> ${b1[2]}`);
  assert.ok(Math.abs(b0[2] - scene.bodies[box].position[2]) < 1e-6, 'starts where scene.json puts it');
  const [h0, h1] = [await at(0, hand), await at(1.0, hand)];
  assert.notDeepEqual(h0, h1, 'the hand moves');
  await page.evaluate(() => window.signoriniReplay.setTime(0));
  const n = await page.evaluate(() => window.signoriniReplay.contactsDrawn());
  assert.ok(n >= 4, `the box rests on its four bottom corners at t = 0: ${n} points`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('deformables: each drawn over its facets, its particles moved with time', async () => {
  const out = env('SIGNORINI_WEB_DEFORM');
  const scene = sceneOf(out);
  assert.equal(scene.deformables.length, 2, 'the mat and the block are in scene.json');
  const { page, problems } = await open(out);
  assert.equal(await page.evaluate(() => window.signoriniReplay.deformableCount), 2);
  assert.equal(await page.evaluate(() => window.signoriniReplay.deformableName(1)), 'block');
  // Particle 0 of the block, at t = 0 and at the end, against the particles file's first and
  // last rows (float32 on the page: 1e-6 m is far below a cell and far above its rounding).
  const rows = fs.readFileSync(path.join(out, 'deformable_block_particles.csv'), 'utf8').trim().split('\n').slice(1)
    .map((l) => l.split(',').map(Number)).filter((v) => v[1] === 0);
  const at = (t) => page.evaluate((t) => { window.signoriniReplay.setTime(t); return window.signoriniReplay.deformableParticle(1, 0); }, t);
  const end = await page.evaluate(() => window.signoriniReplay.duration);
  const [p0, p1] = [await at(0), await at(end)];
  const [first, last] = [rows[0], rows[rows.length - 1]];
  for (let d = 0; d < 3; d++) {
    assert.ok(Math.abs(p0[d] - first[2 + d]) < 1e-6, `t = 0: ${p0} vs ${first}`);
    assert.ok(Math.abs(p1[d] - last[2 + d]) < 1e-6, `end: ${p1} vs ${last}`);
  }
  // The block fell onto the mat: 2 cm and a little more.
  assert.ok(p0[2] - p1[2] > 0.015, `the block's particle fell: ${p0[2]} -> ${p1[2]}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('screenshot: not blank, saved for the docs', async () => {
  const out = process.env.SIGNORINI_WEB_SHOT_DIR ? env('SIGNORINI_WEB_SHOT_DIR')
    : process.env.SIGNORINI_WEB_BIG ? env('SIGNORINI_WEB_BIG') : env('SIGNORINI_WEB_BLOCK');
  const { page, problems } = await open(out, { width: 1280, height: 720 });
  const d = await page.evaluate(() => window.signoriniReplay.duration);
  const at = Number(process.env.SIGNORINI_WEB_SHOT_TIME || (process.env.SIGNORINI_WEB_BIG ? 0.8 : 0.5));
  await page.evaluate((t) => window.signoriniReplay.setTime(t), Math.min(d, at));
  if (process.env.SIGNORINI_WEB_SHOT_CONTACTS === '0') await page.locator('#show-points').uncheck();
  await page.waitForTimeout(200);
  const png = await page.screenshot();
  const st = await pngStats(page, png);
  assert.ok(st.colours >= 50, `${st.colours} distinct colours`);
  assert.ok(st.variance > 50, `luminance variance ${st.variance.toFixed(1)}`);
  // The 3D view alone is not blank either (WebGL drew something besides the clear colour).
  const view = await pngStats(page, await page.locator('#view canvas').screenshot());
  assert.ok(view.colours >= 20, `3D view: ${view.colours} colours`);
  const dest = path.resolve(root, process.env.SIGNORINI_WEB_SCREENSHOT || 'docs/img/replay.png');
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.writeFileSync(dest, png);
  console.log(`screenshot: ${dest} (${st.width}x${st.height}, ${st.colours} colours)`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('bin_200: page size <= 20 MB, loads in <= 3 s', { skip: !process.env.SIGNORINI_WEB_BIG && 'SIGNORINI_WEB_BIG not set' }, async () => {
  const out = env('SIGNORINI_WEB_BIG');
  const scene = sceneOf(out);
  const bytes = fs.statSync(path.join(out, 'replay.html')).size;
  // Best of three loads (the first also warms the file cache), each in a fresh page.
  const times = [];
  for (let k = 0; k < 3; k++) {
    const { page, problems, ms } = await open(out);
    const inPage = await page.evaluate(() => performance.now());
    assert.equal(await page.evaluate(() => window.signoriniReplay.bodyCount), scene.bodies.length);
    assert.deepEqual(problems, []);
    times.push(ms);
    await page.close();
    console.log(`bin_200 load ${k + 1}: ${ms} ms to ready (page clock ${inPage.toFixed(0)} ms)`);
  }
  console.log(`bin_200 page: ${(bytes / 1e6).toFixed(2)} MB, ${scene.bodies.length} bodies, loads ${times.join(', ')} ms`);
  assert.ok(bytes <= 20e6, `${bytes} bytes > 20 MB`);
  assert.ok(Math.max(...times) <= 3000, `load times ${times} ms, over 3 s`);
});
