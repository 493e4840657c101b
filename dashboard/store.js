// The page's copy of the home, kept by one Watch stream.
//
// A stream from revision 0 sends a snapshot (applied into a fresh copy that replaces the shown one when
// the response marked `synced` arrives, so a relist never blanks the page), then live changes. Each
// response's `revision` is where to resume. When the stream breaks (network drop, hub restart, a stall
// longer than STALL_MS with no progress mark) the watcher reconnects with that revision and the epoch,
// and the hub replays what was missed; a cut inside the snapshot starts over from 0. A `relist` answer
// (the epoch changed, or the resume point is too old or in the future) starts over from 0.
import { call, Status } from "./grpcweb.js";

const PROGRESS_MS = 5000;
// The hub gathers changes that come faster than this into one response (update_interval_ms): a person
// cannot see 50 ms, and a busy home then costs the hub, the connection and the page's rendering a response
// per 50 ms instead of one per change.
const UPDATE_MS = 50;
const STALL_MS = 15000;
const EVENTS_KEPT = 50;

export class Home extends EventTarget {
  constructor() {
    super();
    this.structures = new Map();
    this.rooms = new Map();
    this.devices = new Map();
    this.events = [];
  }

  /** Applies one Change; returns true when what the lists show (membership, names, rooms) changed. */
  apply(change) {
    switch (change.kind) {
      case "structure": this.structures.set(change.structure.id, change.structure); return true;
      case "structureRemoved": this.structures.delete(change.structureRemoved); return true;
      case "room": this.rooms.set(change.room.id, change.room); return true;
      case "roomRemoved": this.rooms.delete(change.roomRemoved.roomId); return true;
      case "device": this.devices.set(change.device.id, change.device); return true;
      case "deviceRemoved": this.devices.delete(change.deviceRemoved); return true;
      case "trait": this.applyTrait(change.trait); return false;
      case "event":
        this.events.unshift(change.event);
        this.events.length = Math.min(this.events.length, EVENTS_KEPT);
        return false;
      default: return false;
    }
  }

  applyTrait(change) {
    const device = this.devices.get(change.deviceId);
    if (!device || !change.state) return;
    let type = device.types.find((t) => t.endpoint === change.endpoint);
    if (!type) {
      type = { endpoint: change.endpoint, deviceTypeId: 0, primary: false, traits: [] };
      device.types.push(type);
    }
    const at = type.traits.findIndex((t) => t.traitId === change.state.traitId);
    if (at >= 0) type.traits[at] = change.state;
    else type.traits.push(change.state);
  }

  /** Takes over the contents of `other` (a completed snapshot). */
  replaceWith(other) {
    this.structures = other.structures;
    this.rooms = other.rooms;
    this.devices = other.devices;
  }

  notify(layout, changed) {
    this.dispatchEvent(new CustomEvent("change", { detail: { layout, changed } }));
  }
}

/** Keeps `home` in step with the hub through one Watch stream at a time; reconnects and resumes. */
export class Watcher extends EventTarget {
  constructor(home, token) {
    super();
    this.home = home;
    this.token = token;
    this.from = 0;
    this.epoch = "";
    this.state = "idle";
    this.stats = { streams: 0, resumes: 0, relists: 0, drops: 0 };
    this.stopped = false;
    this.controller = null;
  }

  start() {
    this.run();
    this.stallTimer = setInterval(() => {
      if (this.controller && performance.now() - this.lastSeen > STALL_MS) this.drop("no progress mark in time");
    }, 1000);
  }

  stop() {
    this.stopped = true;
    clearInterval(this.stallTimer);
    if (this.controller) this.controller.abort();
  }

  /** Breaks the current stream as a network drop would (it reconnects and resumes). */
  drop(reason = "dropped") {
    if (!this.controller) return;
    this.dropReason = reason;
    this.controller.abort();
  }

  setState(state, detail = "") {
    this.state = state;
    this.detail = detail;
    this.dispatchEvent(new CustomEvent("state", { detail: { state, detail } }));
  }

  async run() {
    let backoff = 500;
    while (!this.stopped) {
      const resuming = this.from !== 0;
      let snapshot = resuming ? null : new Home();
      let relisted = false;
      this.controller = new AbortController();
      this.dropReason = null;
      this.lastSeen = performance.now();
      this.stats.streams += 1;
      if (resuming) this.stats.resumes += 1;
      this.setState(resuming ? "resuming" : "loading");
      const request = { fromRevision: this.from, epoch: resuming ? this.epoch : "", progressIntervalMs: PROGRESS_MS,
        updateIntervalMs: UPDATE_MS };
      try {
        await call("Watch", request, {
          token: this.token,
          signal: this.controller.signal,
          onMessage: (response) => {
            this.lastSeen = performance.now();
            backoff = 500;
            if (response.relist) { relisted = true; return; }
            if (response.epoch) this.epoch = response.epoch;
            const target = snapshot || this.home;
            let layout = false;
            const changed = new Set();
            for (const change of response.changes) {
              if (target.apply(change)) layout = true;
              if (change.kind === "trait") changed.add(change.trait.deviceId);
              else if (change.kind === "device") changed.add(change.device.id);
            }
            if (snapshot && response.synced) {
              this.home.replaceWith(snapshot);
              snapshot = null;
              layout = true;
            }
            if (!snapshot && response.revision) this.from = response.revision;
            if (!snapshot) {
              if (this.state !== "live") this.setState("live");
              if (response.changes.length || layout) this.home.notify(layout, changed);
            }
          },
        });
        if (relisted) {
          this.stats.relists += 1;
          this.from = 0;
          this.epoch = "";
          continue;
        }
        // Ended OK without a relist (the hub is shutting down): resume after a pause.
        this.stats.drops += 1;
        this.setState("reconnecting", "the hub ended the stream");
      } catch (error) {
        if (this.stopped) return;
        if (error.code === Status.UNAUTHENTICATED || error.code === Status.PERMISSION_DENIED) {
          this.setState("refused", error.message);
          this.dispatchEvent(new CustomEvent("refused", { detail: error }));
          return;
        }
        this.stats.drops += 1;
        this.setState("reconnecting", this.dropReason || error.message);
      } finally {
        this.controller = null;
      }
      // A cut inside the snapshot leaves `from` at 0: the next stream starts over.
      await new Promise((resolve) => setTimeout(resolve, backoff * (0.75 + Math.random() / 2)));
      backoff = Math.min(backoff * 2, 10000);
    }
  }
}
