// Line plots on a 2D canvas, with a time cursor that follows the replay.

const MARGIN = { left: 58, right: 10, top: 22, bottom: 26 };

function niceNumber(v) {
  if (v === 0 || !Number.isFinite(v)) return '0';
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-2) return v.toExponential(1);
  return Number(v.toPrecision(3)).toString();
}

export class Plot {
  // series: [{label, color, values: Float32Array}], over times `time` (Float64Array).
  constructor(canvas, { title, unit, time, series, duration }) {
    this.canvas = canvas;
    this.title = title;
    this.unit = unit;
    this.time = time;
    this.series = series;
    this.t0 = 0;
    this.t1 = Math.max(duration || 0, time.length ? time[time.length - 1] : 0, 1e-12);
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of series) {
      for (const v of s.values) {
        if (Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    if (!Number.isFinite(lo)) { lo = 0; hi = 1; }
    if (hi - lo < 1e-12 * Math.max(1, Math.abs(hi))) {
      const pad = Math.abs(hi) > 0 ? Math.abs(hi) * 0.1 : 1;
      lo -= pad; hi += pad;
    }
    this.lo = lo;
    this.hi = hi;
    this.cursor = 0;
    this.background = null;
  }

  x(t) {
    const w = this.canvas.width - MARGIN.left - MARGIN.right;
    return MARGIN.left + (w * (t - this.t0)) / (this.t1 - this.t0);
  }

  y(v) {
    const h = this.canvas.height - MARGIN.top - MARGIN.bottom;
    return MARGIN.top + h * (1 - (v - this.lo) / (this.hi - this.lo));
  }

  timeAt(px) {
    const w = this.canvas.width - MARGIN.left - MARGIN.right;
    const t = this.t0 + ((px - MARGIN.left) / w) * (this.t1 - this.t0);
    return Math.min(this.t1, Math.max(this.t0, t));
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(50, Math.round(r.width * dpr));
    const h = Math.max(50, Math.round(r.height * dpr));
    if (w !== this.canvas.width || h !== this.canvas.height) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.background = null;
    }
  }

  drawBackground() {
    const c = this.canvas;
    const g = c.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, c.width, c.height);
    g.font = `${11 * dpr}px sans-serif`;
    g.strokeStyle = '#d0d0d0';
    g.lineWidth = 1;
    g.fillStyle = '#333';
    // Frame and a few horizontal grid lines with their values.
    g.strokeRect(MARGIN.left, MARGIN.top, c.width - MARGIN.left - MARGIN.right,
      c.height - MARGIN.top - MARGIN.bottom);
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    for (let k = 0; k <= 4; k++) {
      const v = this.lo + ((this.hi - this.lo) * k) / 4;
      const yy = this.y(v);
      g.beginPath();
      g.moveTo(MARGIN.left, yy);
      g.lineTo(c.width - MARGIN.right, yy);
      g.stroke();
      g.fillText(niceNumber(v), MARGIN.left - 4, yy);
    }
    g.textAlign = 'center';
    g.textBaseline = 'top';
    for (let k = 0; k <= 4; k++) {
      const t = this.t0 + ((this.t1 - this.t0) * k) / 4;
      g.fillText(niceNumber(t), this.x(t), c.height - MARGIN.bottom + 4);
    }
    g.textAlign = 'left';
    g.textBaseline = 'top';
    g.fillText(`${this.title} (${this.unit}) vs time (s)`, MARGIN.left, 4);
    // Series.
    let lx = c.width - MARGIN.right - 4;
    g.textAlign = 'right';
    for (const s of [...this.series].reverse()) {
      g.strokeStyle = s.color;
      g.lineWidth = 1.5 * dpr;
      g.beginPath();
      let pen = false;
      for (let i = 0; i < this.time.length; i++) {
        const v = s.values[i];
        if (!Number.isFinite(v)) { pen = false; continue; }
        const xx = this.x(this.time[i]);
        const yy = this.y(v);
        if (pen) g.lineTo(xx, yy); else g.moveTo(xx, yy);
        pen = true;
      }
      g.stroke();
      if (this.series.length > 1) {
        g.fillStyle = s.color;
        g.fillText(s.label, lx, MARGIN.top + 4);
        lx -= g.measureText(s.label).width + 12;
      }
    }
    this.background = g.getImageData(0, 0, c.width, c.height);
  }

  draw(t) {
    this.resize();
    if (!this.background) this.drawBackground();
    const g = this.canvas.getContext('2d');
    g.putImageData(this.background, 0, 0);
    const xx = this.x(t);
    g.strokeStyle = '#d62728';
    g.lineWidth = 1.5 * (window.devicePixelRatio || 1);
    g.beginPath();
    g.moveTo(xx, MARGIN.top);
    g.lineTo(xx, this.canvas.height - MARGIN.bottom);
    g.stroke();
    this.cursor = t;
  }
}
