// The Home page: rooms with their devices and live state, in one virtualised list (room headers and
// device rows), a filter, on/off switches in the rows, and the device panel.
import { escape, toast } from "./dom.js";
import { VirtualList } from "./vlist.js";
import { DevicePanel } from "./device.js";
import { Trait, traitValues, summary, primaryTypeName } from "./values.js";

const ROW_HEIGHT = 56;

export class HomePage {
  constructor(root, ctx) {
    this.ctx = ctx; // {home, api, admin()}
    this.filter = "";
    this.count = root.querySelector("[data-testid=device-count]");
    this.viewport = root.querySelector("[data-testid=device-list]");
    const signal = ctx.signal; // aborted when the session ends: every listener added here goes with it
    this.list = new VirtualList(this.viewport, { rowHeight: ROW_HEIGHT, render: (item, el) => this.renderRow(item, el), signal });
    this.panel = new DevicePanel(root.querySelector("[data-testid=device-panel]"), {
      ...ctx, onClose: () => { this.selected = null; root.classList.remove("with-panel"); this.list.refresh(); },
    });
    this.root = root;
    this.filterInput = root.querySelector("[data-testid=device-filter]");
    this.filterInput.addEventListener("input", (e) => {
      this.filter = e.target.value.trim().toLowerCase();
      this.rebuild();
    }, { signal });
    this.viewport.addEventListener("click", (e) => this.onClick(e), { signal });
    this.viewport.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && e.target.dataset.deviceId) this.select(e.target.dataset.deviceId);
    }, { signal });
    this.pendingLayout = false;
    this.pendingChanged = new Set();
    this.framed = false;
    ctx.home.addEventListener("change", (e) => this.onChange(e.detail));
  }

  /** Coalesces the changes of a frame: the list is rebuilt at most once per frame, rows re-rendered in view only. */
  onChange({ layout, changed }) {
    if (layout) this.pendingLayout = true;
    for (const id of changed) this.pendingChanged.add(id);
    if (this.framed) return;
    this.framed = true;
    requestAnimationFrame(() => {
      this.framed = false;
      const layoutNow = this.pendingLayout, changedNow = this.pendingChanged;
      this.pendingLayout = false;
      this.pendingChanged = new Set();
      if (layoutNow) this.rebuild();
      else this.list.refresh();
      this.panel.update(changedNow, layoutNow);
    });
  }

  /** Groups devices by room (rooms sorted by structure and name; devices without a room last). */
  rebuild() {
    const { home } = this.ctx;
    const groups = new Map();
    for (const room of home.rooms.values()) groups.set(room.id, { room, devices: [] });
    const loose = new Map();
    let shown = 0;
    for (const device of home.devices.values()) {
      if (this.filter && !device.name.toLowerCase().includes(this.filter)) continue;
      shown += 1;
      const group = groups.get(device.roomId);
      if (group) group.devices.push(device);
      else {
        const key = device.structureId || "";
        if (!loose.has(key)) loose.set(key, []);
        loose.get(key).push(device);
      }
    }
    const structureName = (id) => (home.structures.get(id) || { name: id || "No structure" }).name;
    const ordered = [...groups.values()].sort((a, b) =>
      structureName(a.room.structureId).localeCompare(structureName(b.room.structureId)) || a.room.name.localeCompare(b.room.name));
    const items = [];
    const byName = (a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
    const multiStructure = home.structures.size > 1;
    for (const { room, devices } of ordered) {
      if (this.filter && !devices.length) continue;
      const title = multiStructure ? `${room.name} · ${structureName(room.structureId)}` : room.name;
      items.push({ key: `room:${room.id}`, kind: "room", title, roomId: room.id, count: devices.length });
      for (const d of devices.sort(byName)) items.push({ key: `dev:${d.id}`, kind: "device", id: d.id, roomName: room.name });
    }
    for (const [structureId, devices] of loose) {
      items.push({ key: `loose:${structureId}`, kind: "room", title: `No room · ${structureName(structureId)}`, roomId: "", count: devices.length });
      for (const d of devices.sort(byName)) items.push({ key: `dev:${d.id}`, kind: "device", id: d.id, roomName: "" });
    }
    const total = home.devices.size, rooms = home.rooms.size;
    this.count.textContent = this.filter
      ? `${shown} of ${total} devices`
      : `${total} device${total === 1 ? "" : "s"} in ${rooms} room${rooms === 1 ? "" : "s"}`;
    this.count.dataset.devices = String(shown);
    this.count.dataset.rooms = String(home.rooms.size);
    this.list.setItems(items);
  }

  renderRow(item, el) {
    if (item.kind === "room") {
      el.className = "row room-row";
      el.setAttribute("data-testid", "room-header");
      el.dataset.roomId = item.roomId;
      el.removeAttribute("data-device-id");
      el.removeAttribute("tabindex");
      el.innerHTML = `<span class="room-name">${escape(item.title)}</span><span class="room-count">${item.count}</span>`;
      return;
    }
    const device = this.ctx.home.devices.get(item.id);
    if (!device) return;
    const onOff = traitValues(device, Trait.OnOff);
    const on = onOff ? Boolean(onOff[0]) : false;
    el.className = `row device-row${this.selected === device.id ? " selected" : ""}`;
    el.setAttribute("data-testid", "device-row");
    el.dataset.deviceId = device.id;
    el.dataset.roomName = item.roomName;
    el.removeAttribute("data-room-id");
    el.tabIndex = 0;
    const state = summary(device);
    el.innerHTML =
      `<span class="conn-dot c${device.connectivity}" title="connectivity"></span>` +
      `<span class="row-main"><span class="row-name" data-testid="device-name">${escape(device.name)}</span>` +
      `<span class="row-sub">${escape(primaryTypeName(device))}${state ? ` · <span data-testid="device-state">${escape(state)}</span>` : ""}</span></span>` +
      (onOff ? `<button class="switch${on ? " on" : ""}" role="switch" aria-checked="${on}" aria-label="Power" data-testid="device-toggle" data-on="${on}"><span></span></button>` : "");
  }

  onClick(event) {
    const row = event.target.closest(".device-row");
    if (!row) return;
    const device = this.ctx.home.devices.get(row.dataset.deviceId);
    if (!device) return;
    if (event.target.closest("[data-testid=device-toggle]")) {
      this.ctx.api.command(device, Trait.OnOff, "toggle")
        .catch((error) => toast(`OnOff.toggle failed: ${error.message}`, "error"));
      return;
    }
    this.select(device.id);
  }

  select(deviceId) {
    this.selected = deviceId;
    this.root.classList.add("with-panel");
    this.panel.open(deviceId);
    this.list.refresh();
  }

  show() { this.rebuild(); }

  /** Ends the page with its session: the next session starts from an empty list and filter. */
  destroy() {
    this.list.destroy();
    this.panel.element.hidden = true;
    this.panel.element.replaceChildren();
    this.root.classList.remove("with-panel");
    this.filterInput.value = "";
    this.count.textContent = "loading…";
    delete this.count.dataset.devices;
  }
}
