// The Metrics page: polls the hub's Prometheus page (GET /metrics with the token) every POLL_MS and
// charts, per interval, changes/s (hearth_changes_total) and commands/s (hearth_commands_total), and the
// mean latency over the last ten seconds of commands and writes through hub and driver (hearth_command_duration_seconds) and of
// durable metadata commits (hearth_commit_duration_seconds), from the histograms' _sum and _count.
import { LineChart, format } from "./chart.js";
import { h } from "./dom.js";

const POLL_MS = 1000;
const LATENCY_WINDOW = 10;

/** Parses Prometheus text format 0.0.4 into {metricName: total over its label sets}. */
export function parsePrometheus(text) {
  const totals = {};
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    if (!Number.isFinite(value)) continue;
    if (match[1].endsWith("_bucket")) continue;
    totals[match[1]] = (totals[match[1]] || 0) + value;
  }
  return totals;
}

const GAUGES = [
  ["hearth_devices", "Devices"], ["hearth_revision", "Revision"], ["hearth_watch_streams", "Watch streams"],
  ["hearth_driver_sessions", "Driver sessions"], ["hearth_connections", "Connections"], ["hearth_running_calls", "Calls running"],
];

export class MetricsPage {
  constructor(root, ctx) {
    this.ctx = ctx; // {token()}
    this.root = root;
    this.error = root.querySelector("[data-testid=metrics-error]");
    this.gauges = root.querySelector("[data-testid=metrics-gauges]");
    this.rateLegend = root.querySelector("[data-testid=rate-legend]");
    this.latencyLegend = root.querySelector("[data-testid=latency-legend]");
    this.rate = new LineChart(root.querySelector("[data-testid=metrics-chart-rate]"), {
      unit: "per second", series: [{ name: "changes/s", color: "#2f7de1" }, { name: "commands/s", color: "#e07a1f" }],
    });
    this.latency = new LineChart(root.querySelector("[data-testid=metrics-chart-latency]"), {
      unit: "ms", series: [{ name: "command round trip", color: "#8a3ffc" }, { name: "metadata commit", color: "#1f9e5a" }],
    });
    this.history = [];
    this.timer = null;
  }

  show() {
    this.hide();
    this.poll();
    this.timer = setInterval(() => this.poll(), POLL_MS);
  }

  hide() { clearInterval(this.timer); this.timer = null; }

  async poll() {
    let totals;
    try {
      const response = await fetch("/metrics", { headers: { authorization: `Bearer ${this.ctx.token()}` }, cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
      totals = parsePrometheus(await response.text());
      this.error.hidden = true;
    } catch (error) {
      this.error.hidden = false;
      this.error.textContent = `Could not read /metrics: ${error.message}`;
      return;
    }
    const now = Date.now();
    this.history.push({ t: now, totals });
    if (this.history.length > LATENCY_WINDOW + 1) this.history.shift();
    this.showGauges(totals);
    if (this.history.length < 2) return;
    const previous = this.history[this.history.length - 2], oldest = this.history[0];
    const delta = (name, from) => (totals[name] || 0) - (from.totals[name] || 0);
    const seconds = (now - previous.t) / 1000;
    // Latency: the mean of what was recorded in the last LATENCY_WINDOW polls (none: a gap).
    const mean = (base) => {
      const count = delta(`${base}_count`, oldest);
      return count > 0 ? (delta(`${base}_sum`, oldest) / count) * 1000 : null;
    };
    this.rate.push(now, [delta("hearth_changes_total", previous) / seconds, delta("hearth_commands_total", previous) / seconds]);
    this.latency.push(now, [mean("hearth_command_duration_seconds"), mean("hearth_commit_duration_seconds")]);
    this.legend(this.rateLegend, this.rate);
    this.legend(this.latencyLegend, this.latency);
  }

  showGauges(totals) {
    this.gauges.replaceChildren(...GAUGES.filter(([name]) => name in totals).map(([name, label]) =>
      h("div", { class: "gauge" }, h("span", { class: "muted" }, label), h("strong", { "data-metric": name }, format(totals[name])))));
  }

  legend(element, chart) {
    element.replaceChildren(...chart.latest().map((s) => {
      const swatch = h("i");
      swatch.style.background = s.color; // through the CSSOM: a style attribute would need 'unsafe-inline'
      return h("span", { class: "legend" }, swatch, `${s.name}: ${format(s.value)}`);
    }));
  }
}
