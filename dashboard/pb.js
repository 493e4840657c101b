// Protocol buffers for the page: encode and decode messages driven by the table in proto.js.
//
// Messages are plain objects keyed by the fields' JSON names (`fromRevision`). Decoding fills proto3
// defaults (0, "", false, [] for repeated, null for an absent message) and, for a oneof, sets the oneof's
// name to the case present (`change.kind === "trait"`). Unknown fields are skipped. Encoding leaves out
// fields holding their default, except oneof members and proto3 `optional` fields, which are written
// whenever they are set (not undefined/null).
//
// 64-bit integers: decoded as a Number when the value is a safe integer (|v| <= 2^53 - 1), as a BigInt
// otherwise, so revisions and ids stay Numbers in practice and large values are never rounded. Encoders
// take a Number or a BigInt. Bytes are Uint8Arrays.
import { messages, enums } from "./proto.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });
const VARINT = 0, FIXED64 = 1, LEN = 2, SGROUP = 3, EGROUP = 4, FIXED32 = 5;

const wireTypes = {
  double: FIXED64, float: FIXED32, int64: VARINT, uint64: VARINT, int32: VARINT, fixed64: FIXED64,
  fixed32: FIXED32, bool: VARINT, string: LEN, message: LEN, bytes: LEN, uint32: VARINT, enum: VARINT,
  sfixed32: FIXED32, sfixed64: FIXED64, sint32: VARINT, sint64: VARINT,
};

function schema(name) {
  const fields = messages[name];
  if (!fields) throw new Error(`pb: unknown message ${name}`);
  return fields;
}

/** Returns a safe Number for a BigInt when it fits, else the BigInt. */
function narrow(big) {
  return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big;
}

class Writer {
  constructor() { this.buf = new Uint8Array(64); this.pos = 0; }
  reserve(n) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  byte(b) { this.reserve(1); this.buf[this.pos++] = b; }
  /** An unsigned varint from a non-negative Number (< 2^53) or a BigInt (taken modulo 2^64). */
  varint(v) {
    if (typeof v === "number" && v >= 0 && v <= 0x7fffffff) {
      while (v > 0x7f) { this.byte((v & 0x7f) | 0x80); v >>>= 7; }
      this.byte(v);
      return;
    }
    let big = BigInt.asUintN(64, BigInt(v));
    while (big > 0x7fn) { this.byte(Number(big & 0x7fn) | 0x80); big >>= 7n; }
    this.byte(Number(big));
  }
  tag(number, wire) { this.varint(number * 8 + wire); }
  bytes(array) { this.varint(array.length); this.reserve(array.length); this.buf.set(array, this.pos); this.pos += array.length; }
  fixed(size, setter) {
    this.reserve(size);
    setter(new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, size));
    this.pos += size;
  }
  finish() { return this.buf.slice(0, this.pos); }
}

function writeScalar(w, type, v) {
  switch (type) {
    case "bool": w.varint(v ? 1 : 0); break;
    case "int32": case "int64": case "uint32": case "uint64": case "enum": w.varint(v); break;
    case "sint32": case "sint64": {
      const big = BigInt(v);
      w.varint(BigInt.asUintN(64, (big << 1n) ^ (big >> 63n)));
      break;
    }
    case "double": w.fixed(8, (d) => d.setFloat64(0, Number(v), true)); break;
    case "float": w.fixed(4, (d) => d.setFloat32(0, Number(v), true)); break;
    case "fixed32": w.fixed(4, (d) => d.setUint32(0, Number(v), true)); break;
    case "sfixed32": w.fixed(4, (d) => d.setInt32(0, Number(v), true)); break;
    case "fixed64": w.fixed(8, (d) => d.setBigUint64(0, BigInt.asUintN(64, BigInt(v)), true)); break;
    case "sfixed64": w.fixed(8, (d) => d.setBigInt64(0, BigInt.asIntN(64, BigInt(v)), true)); break;
    case "string": w.bytes(encoder.encode(v)); break;
    case "bytes": w.bytes(v); break;
    default: throw new Error(`pb: cannot write ${type}`);
  }
}

function isDefault(type, v) {
  if (type === "string") return v === "";
  if (type === "bytes") return v.length === 0;
  if (type === "bool") return !v;
  return v == 0; // 0 and 0n
}

function writeMessage(w, name, obj) {
  for (const [number, key, type, flags, ref] of schema(name)) {
    const v = obj[key];
    if (v === undefined || v === null) continue;
    if (flags & 1) {
      if (!v.length) continue;
      if (flags & 2) {
        const inner = new Writer();
        for (const item of v) writeScalar(inner, type, item);
        w.tag(number, LEN);
        w.bytes(inner.finish());
      } else {
        for (const item of v) writeField(w, number, type, ref, item);
      }
    } else if (flags & 4 || type === "message" || !isDefault(type, v)) {
      writeField(w, number, type, ref, v);
    }
  }
}

function writeField(w, number, type, ref, v) {
  if (type === "message") {
    const inner = new Writer();
    writeMessage(inner, ref, v);
    w.tag(number, LEN);
    w.bytes(inner.finish());
  } else {
    w.tag(number, wireTypes[type]);
    writeScalar(w, type, v);
  }
}

/** Encodes `obj` as the message `name` (a full name such as "hearth.v1.WatchRequest"). */
export function encode(name, obj) {
  const w = new Writer();
  writeMessage(w, name, obj || {});
  return w.finish();
}

class Reader {
  constructor(bytes) { this.buf = bytes; this.pos = 0; this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength); }
  /** A varint as a Number when it has at most 7 bytes (< 2^49), else as a BigInt. */
  varint() {
    let result = 0, scale = 1;
    for (let i = 0; i < 7; i++) {
      if (this.pos >= this.buf.length) throw new Error("pb: truncated varint");
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    let big = BigInt(result), shift = 49n;
    for (let i = 7; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new Error("pb: truncated varint");
      const b = this.buf[this.pos++];
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, big);
      shift += 7n;
    }
    throw new Error("pb: varint longer than 10 bytes");
  }
  take(n) {
    if (n > this.buf.length - this.pos) throw new Error("pb: truncated field");
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  fixed(n) { const at = this.pos; this.take(n); return at; }
  skip(wire, number) {
    switch (wire) {
      case VARINT: this.varint(); break;
      case FIXED64: this.take(8); break;
      case LEN: this.take(Number(this.varint())); break;
      case FIXED32: this.take(4); break;
      case SGROUP:
        for (;;) {
          const tag = Number(this.varint());
          if ((tag & 7) === EGROUP) { if (tag >>> 3 !== number) throw new Error("pb: mismatched group"); break; }
          this.skip(tag & 7, tag >>> 3);
        }
        break;
      default: throw new Error(`pb: bad wire type ${wire}`);
    }
  }
}

function readScalar(r, type) {
  switch (type) {
    case "bool": { const v = r.varint(); return v !== 0 && v !== 0n; }
    case "uint32": case "enum": case "int32": {
      const v = r.varint();
      const low = typeof v === "bigint" ? Number(BigInt.asUintN(32, v)) : v % 4294967296;
      return type === "uint32" ? low >>> 0 : low | 0;
    }
    case "uint64": { const v = r.varint(); return typeof v === "bigint" ? narrow(v) : v; }
    case "int64": { const v = r.varint(); return typeof v === "bigint" ? narrow(BigInt.asIntN(64, v)) : v; }
    case "sint32": case "sint64": {
      const v = BigInt(r.varint());
      return narrow((v >> 1n) ^ -(v & 1n));
    }
    case "double": return r.view.getFloat64(r.fixed(8), true);
    case "float": return r.view.getFloat32(r.fixed(4), true);
    case "fixed32": return r.view.getUint32(r.fixed(4), true);
    case "sfixed32": return r.view.getInt32(r.fixed(4), true);
    case "fixed64": return narrow(r.view.getBigUint64(r.fixed(8), true));
    case "sfixed64": return narrow(r.view.getBigInt64(r.fixed(8), true));
    case "string": return decoder.decode(r.take(Number(r.varint())));
    case "bytes": return r.take(Number(r.varint())).slice();
    default: throw new Error(`pb: cannot read ${type}`);
  }
}

function defaults(fields) {
  const obj = {};
  for (const [, key, type, flags, , oneof] of fields) {
    if (flags & 1) obj[key] = [];
    else if (flags & 4 || type === "message") obj[key] = null;
    else obj[key] = type === "string" ? "" : type === "bytes" ? new Uint8Array(0) : type === "bool" ? false : 0;
    if (oneof) obj[oneof] = null;
  }
  return obj;
}

const indexes = new Map();
function byNumber(name) {
  let index = indexes.get(name);
  if (!index) {
    index = new Map(schema(name).map((f) => [f[0], f]));
    indexes.set(name, index);
  }
  return index;
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function readMessage(bytes, name, depth) {
  if (depth > 100) throw new Error("pb: nested too deep");
  const obj = defaults(schema(name));
  const index = byNumber(name);
  const r = new Reader(bytes);
  const seen = new Map();
  while (r.pos < r.buf.length) {
    const tag = Number(r.varint());
    const number = Math.floor(tag / 8), wire = tag & 7;
    const field = index.get(number);
    if (!field) { r.skip(wire, number); continue; }
    const [, key, type, flags, ref, oneof] = field;
    let value;
    if (type === "message") {
      if (wire !== LEN) { r.skip(wire, number); continue; }
      let body = r.take(Number(r.varint()));
      if (!(flags & 1)) {
        // A singular message seen twice merges, which is what decoding the concatenation gives.
        const earlier = seen.get(number);
        if (earlier && obj[key] !== null) body = concat(earlier, body);
        seen.set(number, body);
      }
      value = readMessage(body, ref, depth + 1);
    } else if (flags & 1 && wire === LEN && wireTypes[type] !== LEN) {
      const packed = new Reader(r.take(Number(r.varint())));
      while (packed.pos < packed.buf.length) obj[key].push(readScalar(packed, type));
      continue;
    } else if (wire !== wireTypes[type]) {
      r.skip(wire, number);
      continue;
    } else {
      value = readScalar(r, type);
    }
    if (flags & 1) obj[key].push(value);
    else obj[key] = value;
    if (oneof) {
      if (obj[oneof] && obj[oneof] !== key) obj[obj[oneof]] = null;
      obj[oneof] = key;
    }
  }
  return obj;
}

/** Decodes `bytes` (a Uint8Array) as the message `name`. Throws on malformed input. */
export function decode(name, bytes) {
  return readMessage(bytes, name, 0);
}

/** The name of an enum value (`"DRIVER_PROCESS_STATE_RUNNING"`), or its number as text when unknown. */
export function enumName(name, number) {
  const values = enums[name];
  return (values && values[number]) || String(number);
}
