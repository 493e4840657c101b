// hearth.v1.Value ⇄ JavaScript, typed by the catalog (catalog.js), and how values read on the page.
import { traits, deviceTypes } from "./catalog.js";

export const Trait = {
  OnOff: 0x0006, LevelControl: 0x0008, DoorLock: 0x0101, Thermostat: 0x0201, ColorControl: 0x0300,
  TemperatureMeasurement: 0x0402, RelativeHumidityMeasurement: 0x0405, OccupancySensing: 0x0406,
  BooleanState: 0x0045, FanControl: 0x0202,
};

/** A Value message as a plain JavaScript value (struct: {fieldId: value}; null for null or unset). */
export function plain(value) {
  if (!value || !value.kind) return null;
  switch (value.kind) {
    case "listValue": return value.listValue.values.map(plain);
    case "structValue": return Object.fromEntries(value.structValue.fields.map((f) => [f.id, plain(f.value)]));
    case "nullValue": return null;
    default: return value[value.kind];
  }
}

/**
 * A Value message for `v` of the catalog type `type` (`uint8`, `int16`, `enum:X`, `bitmap:X`, `bool`, …):
 * the case the hub's validator expects for it. `null` gives the null value.
 */
export function toValue(type, v) {
  if (v === null || v === undefined) return { nullValue: 0 };
  if (type === "bool") return { boolValue: Boolean(v) };
  if (type === "double") return { doubleValue: Number(v) };
  if (type === "string") return { stringValue: String(v) };
  if (type === "bytes") return { bytesValue: v };
  if (type.startsWith("enum:")) return { enumValue: Number(v) };
  if (type.startsWith("bitmap:") || type.startsWith("uint")) return { uintValue: v };
  if (type.startsWith("int")) return { intValue: v };
  throw new Error(`cannot build a ${type} value`);
}

/** A StructValue from {fieldId: [type, value]}, fields in ascending id order as the proto asks. */
export function struct(fields) {
  return {
    fields: Object.keys(fields).map(Number).sort((a, b) => a - b)
      .map((id) => ({ id, value: toValue(fields[id][0], fields[id][1]) })),
  };
}

export function traitName(id) {
  return traits[id] ? traits[id].name : `0x${id.toString(16)}`;
}

export function deviceTypeName(id) {
  const name = deviceTypes[id];
  return name ? name.replace(/^OnOff/, "On/Off").replace(/([a-z])([A-Z])/g, "$1 $2") : `type 0x${id.toString(16)}`;
}

/** The attribute's name in the catalog, or its id in hex. */
export function attributeName(traitId, attributeId) {
  const a = traits[traitId] && traits[traitId].attributes[attributeId];
  return a ? a.name : `0x${attributeId.toString(16).padStart(4, "0")}`;
}

/** The attribute's catalog entry (name, type, write, min, max…), or undefined. */
export function attributeSchema(traitId, attributeId) {
  return traits[traitId] && traits[traitId].attributes[attributeId];
}

export function commandSchema(traitId, commandId) {
  return traits[traitId] && traits[traitId].commands[commandId];
}

/** An attribute's value as text: enum values by name, temperatures in °C, humidity in %. */
export function formatAttribute(traitId, attributeId, value) {
  const v = plain(value);
  if (v === null) return "null";
  const schema = attributeSchema(traitId, attributeId);
  const trait = traits[traitId];
  if (schema && trait) {
    if (schema.type.startsWith("enum:")) {
      const items = trait.enums[schema.type.slice(5)] || {};
      return items[v] ?? String(v);
    }
    if (schema.type.startsWith("bitmap:")) {
      const bits = trait.bitmaps[schema.type.slice(7)] || {};
      const set = Object.keys(bits).filter((bit) => (BigInt(v) >> BigInt(bit)) & 1n).map((bit) => bits[bit]);
      return set.length ? set.join(", ") : "none";
    }
    if (isCentiCelsius(traitId, schema)) return `${(Number(v) / 100).toFixed(1)} °C`;
    if (traitId === Trait.RelativeHumidityMeasurement && schema.name.endsWith("easuredValue")) {
      return `${(Number(v) / 100).toFixed(0)} %`;
    }
  }
  return formatPlain(v);
}

function isCentiCelsius(traitId, schema) {
  if (traitId === Trait.TemperatureMeasurement) return schema.name.endsWith("easuredValue");
  return traitId === Trait.Thermostat && schema.type === "int16" && /Temperature|Setpoint/.test(schema.name) &&
    !/Limit/.test(schema.name);
}

function formatPlain(v) {
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  if (Array.isArray(v)) return `[${v.map(formatPlain).join(", ")}]`;
  if (typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${k}: ${formatPlain(x)}`).join(", ")}}`;
  return String(v);
}

/** The attributes of a device's trait as {attributeId: plain value}, or null without that trait. */
export function traitValues(device, traitId) {
  for (const type of device.types) {
    for (const state of type.traits) {
      if (state.traitId === traitId) {
        const out = { endpoint: type.endpoint, state };
        for (const a of state.attributes) out[a.id] = plain(a.value);
        return out;
      }
    }
  }
  return null;
}

/** A short line of a device's state for its row: "On · 40 %", "21.5 °C → 20.0 °C", "Locked". */
export function summary(device) {
  const parts = [];
  const onOff = traitValues(device, Trait.OnOff);
  if (onOff && onOff[0] !== undefined) parts.push(onOff[0] ? "On" : "Off");
  const level = traitValues(device, Trait.LevelControl);
  if (level && typeof level[0] === "number") parts.push(`${Math.round((level[0] / 254) * 100)} %`);
  const color = traitValues(device, Trait.ColorControl);
  if (color && typeof color[7] === "number" && color[7] > 0) parts.push(`${Math.round(1e6 / color[7])} K`);
  const thermostat = traitValues(device, Trait.Thermostat);
  if (thermostat) {
    if (typeof thermostat[0] === "number") parts.push(`${(thermostat[0] / 100).toFixed(1)} °C`);
    if (typeof thermostat[0x12] === "number") parts.push(`heat to ${(thermostat[0x12] / 100).toFixed(1)} °C`);
  }
  const temperature = traitValues(device, Trait.TemperatureMeasurement);
  if (temperature && typeof temperature[0] === "number") parts.push(`${(temperature[0] / 100).toFixed(1)} °C`);
  const humidity = traitValues(device, Trait.RelativeHumidityMeasurement);
  if (humidity && typeof humidity[0] === "number") parts.push(`${Math.round(humidity[0] / 100)} % RH`);
  const lock = traitValues(device, Trait.DoorLock);
  if (lock && lock[0] !== undefined) parts.push(formatAttribute(Trait.DoorLock, 0, { kind: "enumValue", enumValue: lock[0] }));
  const occupancy = traitValues(device, Trait.OccupancySensing);
  if (occupancy && occupancy[0] !== undefined) parts.push(Number(occupancy[0]) & 1 ? "Occupied" : "Clear");
  const fan = traitValues(device, Trait.FanControl);
  if (fan && fan[0] !== undefined) {
    parts.push(`fan ${formatAttribute(Trait.FanControl, 0, { kind: "enumValue", enumValue: fan[0] })}`);
    if (typeof fan[3] === "number") parts.push(`${fan[3]} %`);
  }
  const contact = traitValues(device, Trait.BooleanState);
  if (contact && contact[0] !== undefined) parts.push(contact[0] ? "Closed" : "Open");
  return parts.join(" · ");
}

/** The device's primary device type's name. */
export function primaryTypeName(device) {
  const primary = device.types.find((t) => t.primary) || device.types[0];
  return primary ? deviceTypeName(primary.deviceTypeId) : "";
}
