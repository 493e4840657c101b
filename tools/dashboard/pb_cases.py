"""Round trips between the page's protobuf runtime (dashboard/pb.js, in the browser) and Python's protobuf."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from common import client_service_pb2 as client, home_pb2 as home, values_pb2 as values, watch_pb2 as watch  # noqa: E402

from harness import Failure, expect  # noqa: E402

ENCODE_JS = """async () => {
  const pb = await import("./pb.js");
  const v = (kind, x) => ({ [kind]: x });
  const messages = {
    watch: pb.encode("hearth.v1.WatchRequest", {
      fromRevision: 9007199254740993n, epoch: "épo✓", progressIntervalMs: 5000,
      filter: { deviceIds: ["a", "b"], deviceTypeIds: [1, 256, 4293984257], traitIds: [6] },
    }),
    command: pb.encode("hearth.v1.SendCommandRequest", {
      deviceId: "lights/light-2", endpoint: 1, traitId: 8, commandId: 4, fields: { fields: [
        { id: 0, value: v("intValue", -5) },
        { id: 1, value: v("intValue", -1099511627776) },
        { id: 2, value: v("uintValue", 18446744073709551615n) },
        { id: 3, value: v("doubleValue", 1.5) },
        { id: 4, value: v("boolValue", false) },
        { id: 5, value: v("stringValue", "") },
        { id: 6, value: v("nullValue", 0) },
        { id: 7, value: v("bytesValue", new Uint8Array([1, 2, 255])) },
        { id: 8, value: v("listValue", { values: [v("enumValue", 3), v("uintValue", 0)] }) },
        { id: 9, value: v("structValue", { fields: [{ id: 1, value: v("intValue", 9007199254740991) }] }) },
      ] },
    }),
  };
  return Object.fromEntries(Object.entries(messages).map(([k, bytes]) => [k, Array.from(bytes)]));
}"""

DECODE_JS = """async (input) => {
  const pb = await import("./pb.js");
  const decoded = pb.decode(input.name, new Uint8Array(input.bytes));
  return JSON.stringify(decoded, (k, x) => typeof x === "bigint" ? `${x}n` : x instanceof Uint8Array ? Array.from(x) : x);
}"""


FRAMING_JS = """async () => {
  const { FrameParser } = await import("./grpcweb.js");
  const frame = (flag, bytes) => [flag, 0, 0, (bytes.length >> 8) & 255, bytes.length & 255, ...bytes];
  const body = [...frame(0, [1, 2, 3]), ...frame(0, []), ...frame(0, new Array(300).fill(7)),
                ...frame(0x80, [...new TextEncoder().encode("grpc-status: 0\\r\\n")])];
  const results = [];
  // The same body cut into chunks of every size from 1 byte to all of it.
  for (let size = 1; size <= body.length; size += size < 8 ? 1 : 37) {
    const parser = new FrameParser();
    const frames = [];
    for (let at = 0; at < body.length; at += size) frames.push(...parser.push(new Uint8Array(body.slice(at, at + size))));
    results.push(frames.map((f) => `${f.trailer ? "T" : "M"}${f.bytes.length}`).join(",") + (parser.empty ? "" : "+rest"));
  }
  return [...new Set(results)];
}"""


def check_framing(page) -> None:
    results = page.evaluate(FRAMING_JS)
    expect(results == ["M3,M0,M300,T16"], f"frames parsed across chunk boundaries: {results}")


def expected_command() -> client.SendCommandRequest:
    V = values.Value
    fields = [
        V(int_value=-5), V(int_value=-(1 << 40)), V(uint_value=(1 << 64) - 1), V(double_value=1.5), V(bool_value=False),
        V(string_value=""), V(null_value=values.NULL_VALUE), V(bytes_value=b"\x01\x02\xff"),
        V(list_value=values.ListValue(values=[V(enum_value=3), V(uint_value=0)])),
        V(struct_value=values.StructValue(fields=[values.Field(id=1, value=V(int_value=(1 << 53) - 1))])),
    ]
    return client.SendCommandRequest(device_id="lights/light-2", endpoint=1, trait_id=8, command_id=4,
                                     fields=values.StructValue(fields=[values.Field(id=i, value=f) for i, f in enumerate(fields)]))


def check_encode(page) -> None:
    out = page.evaluate(ENCODE_JS)
    request = watch.WatchRequest.FromString(bytes(out["watch"]))
    expect(request.from_revision == (1 << 53) + 1, f"from_revision {request.from_revision}")
    expect(request.epoch == "épo✓" and request.progress_interval_ms == 5000, f"WatchRequest {request}")
    expect(list(request.filter.device_type_ids) == [1, 256, 4293984257], f"packed ids {request.filter.device_type_ids}")
    expect(list(request.filter.device_ids) == ["a", "b"] and list(request.filter.trait_ids) == [6], f"filter {request.filter}")
    command = client.SendCommandRequest.FromString(bytes(out["command"]))
    expect(command == expected_command(), f"SendCommandRequest differs:\n{command}\nexpected\n{expected_command()}")
    kinds = [f.value.WhichOneof("kind") for f in command.fields.fields]
    expect(kinds[4] == "bool_value" and kinds[5] == "string_value", f"oneof defaults must be present: {kinds}")


def check_decode(page) -> None:
    response = watch.WatchResponse(revision=42, synced=True, epoch="e-1", changes=[
        watch.Change(revision=7, device=home.Device(id="d/1", name="Lamp ✓", connectivity=home.CONNECTIVITY_STATE_ONLINE,
                                                    types=[home.DeviceTypeInstance(endpoint=1, device_type_id=0x100, primary=True)])),
        watch.Change(revision=8, trait=watch.TraitChange(device_id="d/1", endpoint=1, state=home.TraitState(
            trait_id=6, attributes=[home.Attribute(id=0, value=values.Value(bool_value=False))], confirmed=True))),
        watch.Change(revision=9, event=home.Event(device_id="d/1", timestamp_ms=-5, revision=(1 << 60))),
        watch.Change(revision=10, device_removed="d/2"),
    ])
    # Unknown fields (99: varint, 98: bytes) must be skipped.
    data = response.SerializeToString() + bytes([0x98, 0x06, 0x01, 0x92, 0x06, 0x02, 0x41, 0x42])
    text = page.evaluate(DECODE_JS, {"name": "hearth.v1.WatchResponse", "bytes": list(data)})
    expect('"revision":42' in text and '"synced":true' in text and '"epoch":"e-1"' in text, f"response fields: {text[:300]}")
    expect('"kind":"device"' in text and '"name":"Lamp ✓"' in text and '"connectivity":1' in text, f"device change: {text}")
    expect('"boolValue":false' in text and '"kind":"boolValue"' in text, f"a false bool in a oneof is present: {text}")
    expect('"timestampMs":-5' in text and '"revision":"1152921504606846976n"' in text, f"64-bit values: {text}")
    expect('"deviceRemoved":"d/2"' in text and '"relist":null' in text, f"oneof string and absent message: {text}")


def run(page) -> None:
    try:
        check_encode(page)
        check_decode(page)
        check_framing(page)
    except Failure:
        raise
    except Exception as error:  # noqa: BLE001
        raise Failure(f"round trip failed: {error}") from error
