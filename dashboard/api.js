// The calls the page makes, built through the typed catalog: a command or write is named by trait and
// member, its fields get the Value case their catalog type asks for, and the catalog's constraints are
// checked before anything is sent (the hub checks again and names the member if it refuses).
import { call } from "./grpcweb.js";
import { traits } from "./catalog.js";
import { toValue, traitValues } from "./values.js";

const TIMEOUT_MS = 10000;

export class Api {
  constructor(token) { this.token = token; }

  call(method, request) {
    return call(method, request, { token: this.token, timeoutMs: TIMEOUT_MS });
  }

  getHub() { return this.call("GetHub", {}); }
  listDrivers() { return this.call("ListDrivers", {}); }
  restartDriver(driverId) { return this.call("RestartDriver", { driverId }); }
  renameDevice(deviceId, name) { return this.call("RenameDevice", { deviceId, name }); }
  moveDevices(deviceIds, roomId, structureId) { return this.call("MoveDevices", { deviceIds, roomId, structureId }); }

  /** Sends trait command `commandName` with `args` ({fieldName: value}) to the endpoint that has the trait. */
  command(device, traitId, commandName, args = {}) {
    return this.call("SendCommand", commandRequest(device, traitId, commandName, args));
  }

  /** Writes attribute `attributeName` of the trait. */
  write(device, traitId, attributeName, value) {
    return this.call("WriteAttributes", writeRequest(device, traitId, { [attributeName]: value }));
  }
}

function lookup(table, name, what, traitName) {
  for (const [id, entry] of Object.entries(table)) if (entry.name === name) return [Number(id), entry];
  throw new Error(`the catalog's ${traitName} has no ${what} ${name}`);
}

function check(member, value, where) {
  if (value === null) {
    if (!member.nullable) throw new Error(`${where} may not be null`);
    return;
  }
  if (member.min !== undefined && value < member.min) throw new Error(`${where} must be at least ${member.min}`);
  if (member.max !== undefined && value > member.max) throw new Error(`${where} must be at most ${member.max}`);
  if (member.allowed && !member.allowed.includes(value)) throw new Error(`${where} must be one of ${member.allowed}`);
  const width = /^u?int(\d+)$/.exec(member.type);
  if (width && (!Number.isInteger(Number(value)))) throw new Error(`${where} must be a whole number`);
}

function endpointOf(device, traitId) {
  const found = traitValues(device, traitId);
  if (!found) throw new Error(`${device.name} has no ${traits[traitId] ? traits[traitId].name : traitId} trait`);
  return found.endpoint;
}

/**
 * A SendCommandRequest. Fields left out of `args` are sent as null when nullable, as 0 when required, and
 * not at all when optional.
 */
export function commandRequest(device, traitId, commandName, args) {
  const trait = traits[traitId];
  const [commandId, command] = lookup(trait.commands, commandName, "command", trait.name);
  const fields = [];
  for (const field of command.fields) {
    let value = args[field.name];
    if (value === undefined) {
      if (field.optional) continue;
      value = field.nullable ? null : field.type === "bool" ? false : 0;
    }
    check(field, value, `${trait.name}.${commandName}.${field.name}`);
    fields.push({ id: field.id, value: toValue(field.type, value) });
  }
  return { deviceId: device.id, endpoint: endpointOf(device, traitId), traitId, commandId, fields: { fields } };
}

/** A WriteAttributesRequest for {attributeName: value}; refuses attributes the catalog says are read-only. */
export function writeRequest(device, traitId, values) {
  const trait = traits[traitId];
  const attributes = Object.entries(values).map(([name, value]) => {
    const [id, attribute] = lookup(trait.attributes, name, "attribute", trait.name);
    if (!attribute.write) throw new Error(`${trait.name}.${name} is read-only`);
    check(attribute, value, `${trait.name}.${name}`);
    return { id, value: toValue(attribute.type, value) };
  });
  return { deviceId: device.id, endpoint: endpointOf(device, traitId), traitId, attributes };
}
