// The device panel: name and room (rename, move), controls for the traits the catalog types
// (OnOff, LevelControl, ColorControl colour temperature, Thermostat set points, DoorLock), and every
// attribute of every trait, named by the catalog. It follows the device live: `update()` refreshes values
// without touching a control the user is holding.
import { h, toast } from "./dom.js";
import { Trait, traitValues, traitName, deviceTypeName, attributeName, formatAttribute } from "./values.js";

const CONNECTIVITY = ["unknown", "online", "offline", "partly online"];
// ColorControl's OptionsBitmap.executeIfOff: a light that is off takes the new colour temperature too (as
// Matter says, it would ignore it otherwise), so the slider never seems to do nothing.
const EXECUTE_IF_OFF = 1;

export class DevicePanel {
  constructor(element, ctx) {
    this.element = element;
    this.ctx = ctx; // {home, api, admin(), onClose()}
    this.device = null;
  }

  open(deviceId) {
    this.deviceId = deviceId;
    this.element.hidden = false;
    this.build();
  }

  close() {
    this.deviceId = null;
    this.element.hidden = true;
    this.element.replaceChildren();
    this.ctx.onClose();
  }

  /** Called on every change to the home; rebuilds when the device's shape changed, else refreshes values. */
  update(changed, layout) {
    if (!this.deviceId) return;
    const device = this.ctx.home.devices.get(this.deviceId);
    if (!device) { this.close(); return; }
    if (layout || changed.has(this.deviceId)) this.build();
  }

  async run(what, action) {
    try {
      await action();
      toast(`${what}: done`);
    } catch (error) {
      toast(`${what} failed: ${error.message}`, "error");
    }
  }

  build() {
    const device = this.ctx.home.devices.get(this.deviceId);
    if (!device) return this.close();
    // Keep the control being used (focus, or a slider held) as it is: rebuild everything else.
    const active = document.activeElement;
    if (active && this.element.contains(active) && active.dataset.keep) {
      this.refreshValues(device);
      return;
    }
    const api = this.ctx.api;
    const room = this.ctx.home.rooms.get(device.roomId);
    const admin = this.ctx.admin();
    const rooms = [...this.ctx.home.rooms.values()].filter((r) => r.structureId === device.structureId)
      .sort((a, b) => a.name.localeCompare(b.name));
    const nameInput = h("input", { value: device.name, "data-testid": "rename-input", "data-keep": "1", maxlength: 60, disabled: !admin, "aria-label": "Device name" });
    const roomSelect = h("select", { "data-testid": "move-select", disabled: !admin, "aria-label": "Room" },
      h("option", { value: "" }, "No room"),
      rooms.map((r) => h("option", { value: r.id, selected: r.id === device.roomId }, r.name)));
    this.element.replaceChildren(
      h("div", { class: "panel-head" },
        h("h2", { "data-testid": "panel-name" }, device.name),
        h("button", { class: "icon", "data-testid": "panel-close", "aria-label": "Close", onclick: () => this.close() }, "✕")),
      h("p", { class: "muted" }, `${device.id} · driver ${device.driverId} · ${room ? room.name : "no room"} · `,
        h("span", { class: `conn c${device.connectivity}` }, CONNECTIVITY[device.connectivity] || "?")),
      h("form", { class: "inline", onsubmit: (e) => {
        e.preventDefault();
        this.run("Rename", () => api.renameDevice(device.id, nameInput.value.trim()));
      } }, nameInput, h("button", { "data-testid": "rename-save", disabled: !admin }, "Rename")),
      h("div", { class: "inline" }, roomSelect, h("button", { "data-testid": "move-save", disabled: !admin, onclick: () => {
        this.run("Move", () => api.moveDevices([device.id], roomSelect.value, device.structureId));
      } }, "Move")),
      admin ? "" : h("p", { class: "muted" }, "Renaming and moving need an admin token."),
      this.controls(device),
      this.attributes(device));
  }

  refreshValues(device) {
    const table = this.element.querySelector("[data-testid=attributes]");
    if (table) table.replaceWith(this.attributes(device));
  }

  controls(device) {
    const api = this.ctx.api;
    const sections = [];
    const onOff = traitValues(device, Trait.OnOff);
    if (onOff) {
      sections.push(h("div", { class: "control", "data-testid": "control-onoff" },
        h("label", {}, `Power: ${onOff[0] ? "on" : "off"}`),
        ["on", "off", "toggle"].map((name) => h("button", { "data-testid": `cmd-${name}`, onclick: () =>
          this.run(`OnOff.${name}`, () => api.command(device, Trait.OnOff, name)) }, name))));
    }
    const level = traitValues(device, Trait.LevelControl);
    if (level) {
      sections.push(this.slider("Level", "control-level", level[0] ?? 0, level[2] ?? 1, level[3] ?? 254, 1,
        (v) => `${Math.round((v / 254) * 100)} %`,
        (v) => this.run("LevelControl.moveToLevelWithOnOff", () =>
          api.command(device, Trait.LevelControl, "moveToLevelWithOnOff", { level: v, transitionTime: 0 }))));
    }
    const color = traitValues(device, Trait.ColorControl);
    if (color && color[7] !== undefined) {
      sections.push(this.slider("Colour temperature", "control-colortemp", color[7] ?? 250, color[0x400b] ?? 153,
        color[0x400c] ?? 500, 1, (v) => `${Math.round(1e6 / v)} K`,
        (v) => this.run("ColorControl.moveToColorTemperature", () =>
          api.command(device, Trait.ColorControl, "moveToColorTemperature", { colorTemperatureMireds: v, transitionTime: 0, optionsMask: EXECUTE_IF_OFF, optionsOverride: EXECUTE_IF_OFF }))));
    }
    const thermostat = traitValues(device, Trait.Thermostat);
    if (thermostat) {
      for (const [name, id, label] of [["occupiedHeatingSetpoint", 0x12, "Heat to"], ["occupiedCoolingSetpoint", 0x11, "Cool to"]]) {
        if (thermostat[id] === undefined) continue;
        const input = h("input", { type: "number", step: "0.5", value: (thermostat[id] / 100).toFixed(1), "data-keep": "1",
          "data-testid": `setpoint-${name}`, "aria-label": label });
        sections.push(h("form", { class: "control inline", onsubmit: (e) => {
          e.preventDefault();
          this.run(`Thermostat.${name}`, () => api.write(device, Trait.Thermostat, name, Math.round(Number(input.value) * 100)));
        } }, h("label", {}, `${label} (°C)`), input, h("button", {}, "Set")));
      }
    }
    const lock = traitValues(device, Trait.DoorLock);
    if (lock) {
      sections.push(h("div", { class: "control", "data-testid": "control-lock" },
        h("label", {}, `Lock: ${formatAttribute(Trait.DoorLock, 0, { kind: "enumValue", enumValue: lock[0] })}`),
        [["lockDoor", "Lock"], ["unlockDoor", "Unlock"]].map(([name, text]) => h("button", { "data-testid": `cmd-${name}`,
          onclick: () => this.run(`DoorLock.${name}`, () => api.command(device, Trait.DoorLock, name)) }, text))));
    }
    return h("div", { class: "controls" }, sections);
  }

  slider(label, testid, value, min, max, step, show, send) {
    const output = h("output", {}, show(value));
    const input = h("input", { type: "range", min, max, step, value, "data-keep": "1", "data-testid": `${testid}-input`, "aria-label": label });
    input.addEventListener("input", () => { output.textContent = show(Number(input.value)); });
    input.addEventListener("change", () => send(Number(input.value)));
    return h("div", { class: "control", "data-testid": testid }, h("label", {}, label), input, output);
  }

  attributes(device) {
    const rows = [];
    for (const type of device.types) {
      rows.push(h("tr", { class: "type" }, h("th", { colspan: 2 }, `${deviceTypeName(type.deviceTypeId)} (endpoint ${type.endpoint})`)));
      for (const state of type.traits) {
        rows.push(h("tr", { class: "trait" }, h("td", { colspan: 2 },
          `${traitName(state.traitId)}${state.confirmed ? "" : " (last known)"} · ${CONNECTIVITY[state.connectivity] || "?"}`)));
        for (const a of state.attributes) {
          rows.push(h("tr", {}, h("td", {}, attributeName(state.traitId, a.id)),
            h("td", {}, formatAttribute(state.traitId, a.id, a.value))));
        }
      }
    }
    return h("table", { class: "attributes", "data-testid": "attributes" }, h("tbody", {}, rows));
  }
}
