// gRPC-Web over fetch(): unary calls and server streams to the hub's HomeService.
//
// Requests are one length-prefixed frame (flag 0, 4-byte big-endian length, protobuf). Responses are
// message frames then a trailer frame (flag 0x80) holding `grpc-status` and `grpc-message` lines; a call
// refused before any message may instead answer "trailers-only", with the status in the HTTP headers and
// an empty body. Both are handled. `grpc-message` is percent-encoded.
import { encode, decode } from "./pb.js";
import { services } from "./proto.js";

export const STATUS_NAMES = [
  "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
  "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
  "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
];
export const Status = Object.fromEntries(STATUS_NAMES.map((name, code) => [name, code]));
const SERVICE = "hearth.v1.HomeService";

/** A call's failure: a gRPC status code (with its name) and the server's message. */
export class GrpcError extends Error {
  constructor(code, message) {
    super(`${STATUS_NAMES[code] || `status ${code}`}: ${message || "(no message)"}`);
    this.code = code;
    this.statusName = STATUS_NAMES[code] || String(code);
    this.grpcMessage = message || "";
  }
}

function percentDecode(text) {
  try { return decodeURIComponent(text); } catch { return text; }
}

/** Maps an HTTP status without a gRPC status to a gRPC code (grpc doc/http-grpc-status-mapping.md). */
function codeForHTTP(status) {
  switch (status) {
    case 400: return Status.INTERNAL;
    case 401: return Status.UNAUTHENTICATED;
    case 403: return Status.PERMISSION_DENIED;
    case 404: return Status.UNIMPLEMENTED;
    case 429: case 502: case 503: case 504: return Status.UNAVAILABLE;
    default: return Status.UNKNOWN;
  }
}

function frame(bytes) {
  const out = new Uint8Array(5 + bytes.length);
  new DataView(out.buffer).setUint32(1, bytes.length);
  out.set(bytes, 5);
  return out;
}

function parseTrailers(bytes) {
  const trailers = {};
  for (const line of new TextDecoder().decode(bytes).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) trailers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return trailers;
}

/** Splits a byte stream into gRPC-Web frames, across chunk boundaries. */
export class FrameParser {
  constructor() { this.pending = new Uint8Array(0); }
  /** Adds a chunk; returns the frames completed by it as {trailer, bytes}. */
  push(chunk) {
    if (this.pending.length) {
      const joined = new Uint8Array(this.pending.length + chunk.length);
      joined.set(this.pending);
      joined.set(chunk, this.pending.length);
      chunk = joined;
    }
    const frames = [];
    let at = 0;
    while (chunk.length - at >= 5) {
      const flags = chunk[at];
      const length = new DataView(chunk.buffer, chunk.byteOffset + at + 1, 4).getUint32(0);
      if (chunk.length - at - 5 < length) break;
      if (flags & 0x01) throw new GrpcError(Status.INTERNAL, "compressed frame, but no compression was asked for");
      frames.push({ trailer: (flags & 0x80) !== 0, bytes: chunk.slice(at + 5, at + 5 + length) });
      at += 5 + length;
    }
    this.pending = chunk.slice(at);
    return frames;
  }
  get empty() { return this.pending.length === 0; }
}

/**
 * Calls `method` of HomeService. For a unary method returns the response message; for a server-streaming
 * one calls `onMessage(message)` for each message and resolves when the stream ends OK.
 * @param {object} options {token, timeoutMs, signal, onMessage, onHeaders}
 * @throws GrpcError with the call's status (UNAVAILABLE for a network failure).
 */
export async function call(method, request, options = {}) {
  const [requestType, responseType, streaming] = services[SERVICE][method];
  const headers = {
    "content-type": "application/grpc-web+proto",
    "x-grpc-web": "1",
    "accept": "application/grpc-web+proto",
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (options.signal) {
    if (options.signal.aborted) abort();
    options.signal.addEventListener("abort", abort, { once: true });
  }
  let timer = null;
  if (options.timeoutMs) {
    headers["grpc-timeout"] = `${Math.ceil(options.timeoutMs)}m`;
    timer = setTimeout(abort, options.timeoutMs + 1000);
  }
  try {
    let response;
    try {
      response = await fetch(`/${SERVICE}/${method}`, {
        method: "POST", headers, body: frame(encode(requestType, request)), signal: controller.signal,
        cache: "no-store",
      });
    } catch (error) {
      throw networkError(error, options.signal);
    }
    const headerStatus = response.headers.get("grpc-status");
    if (headerStatus !== null) {
      const code = Number(headerStatus);
      if (code !== Status.OK) throw new GrpcError(code, percentDecode(response.headers.get("grpc-message") || ""));
    }
    if (response.status !== 200) {
      throw new GrpcError(codeForHTTP(response.status), `HTTP ${response.status} ${response.statusText}`);
    }
    if (options.onHeaders) options.onHeaders(response.headers);
    const parser = new FrameParser();
    const reader = response.body.getReader();
    let result = null, trailers = null;
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw networkError(error, options.signal);
      }
      if (chunk.done) break;
      for (const f of parser.push(chunk.value)) {
        if (f.trailer) { trailers = parseTrailers(f.bytes); continue; }
        if (trailers) throw new GrpcError(Status.INTERNAL, "a message after the trailers");
        const message = decode(responseType, f.bytes);
        if (streaming) options.onMessage(message);
        else if (result) throw new GrpcError(Status.UNIMPLEMENTED, "more than one response to a unary call");
        else result = message;
      }
    }
    if (!parser.empty) throw new GrpcError(Status.UNAVAILABLE, "the response ended inside a frame");
    if (!trailers) {
      if (headerStatus === null) throw new GrpcError(Status.UNAVAILABLE, "the response ended without a status");
      trailers = { "grpc-status": headerStatus };
    }
    const code = Number(trailers["grpc-status"] ?? Status.UNKNOWN);
    if (code !== Status.OK) throw new GrpcError(code, percentDecode(trailers["grpc-message"] || ""));
    if (!streaming && !result) throw new GrpcError(Status.UNIMPLEMENTED, "no response to a unary call");
    return result;
  } finally {
    if (timer) clearTimeout(timer);
    if (options.signal) options.signal.removeEventListener("abort", abort);
  }
}

function networkError(error, signal) {
  if (signal && signal.aborted) return new GrpcError(Status.CANCELLED, "cancelled");
  if (error && error.name === "AbortError") return new GrpcError(Status.DEADLINE_EXCEEDED, "no answer in time");
  return new GrpcError(Status.UNAVAILABLE, `network: ${error && error.message ? error.message : error}`);
}
