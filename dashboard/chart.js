// A small line chart on a canvas: a few series over the same time axis, drawn for the device's pixel
// ratio, with the latest values in the legend.
export class LineChart {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {object} options {series: [{name, color}], unit, window (points kept)}
   */
  constructor(canvas, { series, unit, window = 120 }) {
    this.canvas = canvas;
    this.series = series.map((s) => ({ ...s, points: [] }));
    this.unit = unit;
    this.window = window;
  }

  /** Adds one sample per series (null for "no value"), at time `t` (ms). */
  push(t, values) {
    this.series.forEach((s, i) => {
      s.points.push([t, values[i]]);
      if (s.points.length > this.window) s.points.shift();
    });
    this.draw();
  }

  draw() {
    const canvas = this.canvas;
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth || 600, height = canvas.clientHeight || 200;
    if (canvas.width !== Math.round(width * ratio)) canvas.width = Math.round(width * ratio);
    if (canvas.height !== Math.round(height * ratio)) canvas.height = Math.round(height * ratio);
    const g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    const style = getComputedStyle(canvas);
    const ink = style.getPropertyValue("--ink").trim() || "#333";
    const grid = style.getPropertyValue("--grid").trim() || "#ddd";
    const left = 52, right = 8, top = 8, bottom = 22;
    const all = this.series.flatMap((s) => s.points).filter(([, v]) => v !== null && Number.isFinite(v));
    const times = this.series.flatMap((s) => s.points.map(([t]) => t));
    const t1 = times.length ? Math.max(...times) : Date.now();
    const t0 = t1 - (this.window - 1) * 1000;
    let max = all.length ? Math.max(...all.map(([, v]) => v)) : 1;
    max = niceCeiling(max > 0 ? max * 1.1 : 1);
    const x = (t) => left + ((t - t0) / Math.max(1, t1 - t0)) * (width - left - right);
    const y = (v) => top + (1 - v / max) * (height - top - bottom);
    g.font = "11px system-ui, sans-serif";
    g.lineWidth = 1;
    for (let i = 0; i <= 4; i++) {
      const v = (max * i) / 4;
      g.strokeStyle = grid;
      g.beginPath(); g.moveTo(left, y(v)); g.lineTo(width - right, y(v)); g.stroke();
      g.fillStyle = ink;
      g.fillText(format(v), 4, y(v) + 4);
    }
    g.fillText(`−${Math.round((t1 - t0) / 1000)} s`, left, height - 6);
    g.fillText("now", width - right - g.measureText("now").width, height - 6);
    g.fillText(this.unit, left + 4, top + 12);
    let drawn = 0;
    for (const s of this.series) {
      g.strokeStyle = s.color;
      g.lineWidth = 2;
      g.beginPath();
      let pen = false;
      for (const [t, v] of s.points) {
        if (v === null || !Number.isFinite(v)) { pen = false; continue; }
        if (pen) g.lineTo(x(t), y(v)); else g.moveTo(x(t), y(v));
        pen = true;
        drawn += 1;
      }
      g.stroke();
    }
    canvas.dataset.points = String(drawn);
  }

  /** The newest value of each series, for the legend. */
  latest() {
    return this.series.map((s) => {
      const last = [...s.points].reverse().find(([, v]) => v !== null && Number.isFinite(v));
      return { name: s.name, color: s.color, value: last ? last[1] : null };
    });
  }
}

function niceCeiling(v) {
  const power = 10 ** Math.floor(Math.log10(v));
  for (const step of [1, 2, 2.5, 5, 10]) if (v <= step * power) return step * power;
  return 10 * power;
}

export function format(v) {
  if (v === null || !Number.isFinite(v)) return "–";
  if (Number.isInteger(v)) return String(v);
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(2);
}
