// The Drivers page: every driver the hub knows (ListDrivers), polled while the page is shown, with
// process state, pid, restarts, last exit and failure; admins can restart a supervised one.
import { h, toast } from "./dom.js";
import { enumName } from "./pb.js";

const POLL_MS = 2000;

function stateName(state) {
  return enumName("hearth.v1.DriverProcessState", state).replace("DRIVER_PROCESS_STATE_", "").toLowerCase().replace("_", " ");
}

export class DriversPage {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx; // {api, admin()}
    this.body = root.querySelector("[data-testid=drivers-body]");
    this.error = root.querySelector("[data-testid=drivers-error]");
    this.timer = null;
  }

  show() {
    this.hide();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), POLL_MS);
  }

  hide() { clearInterval(this.timer); this.timer = null; }

  async refresh() {
    try {
      const response = await this.ctx.api.listDrivers();
      this.error.hidden = true;
      this.render(response.drivers);
    } catch (error) {
      this.error.hidden = false;
      this.error.textContent = `Could not list drivers: ${error.message}`;
    }
  }

  render(drivers) {
    const admin = this.ctx.admin();
    this.body.replaceChildren(...drivers.map((d) => {
      const supervised = d.processState !== 0;
      const next = d.nextStartUnixMs ? ` (next start ${new Date(Number(d.nextStartUnixMs)).toLocaleTimeString()})` : "";
      return h("tr", { "data-testid": "driver-row", "data-driver-id": d.driverId, "data-state": stateName(d.processState),
        "data-pid": d.pid, "data-restarts": d.restarts, class: `state-${stateName(d.processState).replace(" ", "-")}` },
      h("td", { "data-label": "Driver" }, h("strong", {}, d.driverId)),
      h("td", { "data-label": "Connected" }, h("span", { class: `conn-dot c${d.connected ? 1 : 2}` }), d.connected ? "yes" : "no"),
      h("td", { "data-label": "Process", "data-testid": "driver-state" }, stateName(d.processState) + next),
      h("td", { "data-label": "PID", "data-testid": "driver-pid" }, d.pid || "–"),
      h("td", { "data-label": "Restarts", "data-testid": "driver-restarts" }, d.restarts),
      h("td", { "data-label": "Devices" }, d.devices),
      h("td", { "data-label": "Last exit" }, d.lastExit || "–"),
      h("td", { "data-label": "Message", class: d.processState === 4 ? "failed" : "" }, d.message || "–"),
      h("td", {}, supervised ? h("button", { "data-testid": `restart-${d.driverId}`, disabled: !admin,
        title: admin ? "Stop and start the driver's process" : "Needs an admin token",
        onclick: (e) => this.restart(d.driverId, e.target) }, "Restart") : ""));
    }));
  }

  async restart(driverId, button) {
    button.disabled = true;
    try {
      const status = await this.ctx.api.restartDriver(driverId);
      toast(`Restarted ${driverId}: ${stateName(status.processState)}`);
    } catch (error) {
      toast(`Restart of ${driverId} failed: ${error.message}`, "error");
    }
    this.refresh();
  }
}
