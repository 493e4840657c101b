#!/usr/bin/env python3
"""Helpers for run.sh: gRPC request bodies for h2load, response checks, h2load parsing, the report.

The echo messages (Protos/hearth/echo/v1/echo.proto) are tiny, so they are encoded and decoded by
hand here (protobuf wire format: varint keys, wire types 0 and 2); nothing needs installing.

    benchlib.py request get OUT [--text T] [--payload-size N]
    benchlib.py request expand OUT [--text T] [--count N] [--payload-size N]
    benchlib.py check get [--text T] [--payload-size N]  < body      # exit 1 on mismatch
    benchlib.py check expand [--text T] [--count N] [--payload-size N]  < body
    benchlib.py response-size get|expand [same options]             # response data bytes of one call
    benchlib.py h2load FILE [--check [--data-per-request N | --min-data-per-request N]]
                                         # h2load output -> JSON; --check: exit 1 unless all succeeded
    benchlib.py report DIR OUT.json --servers A B --count N [--meta JSON]   # prints the table, writes OUT.json
"""

import argparse
import json
import os
import re
import sys


# --- protobuf and gRPC framing ---------------------------------------------------------------


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value) if value else b""


def field_bytes(number: int, value: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(value)) + value if value else b""


def grpc_frame(message: bytes) -> bytes:
    return b"\x00" + len(message).to_bytes(4, "big") + message


def payload_bytes(size: int, fill: int = None) -> bytes:
    """Request payloads count up from 0; Expand's response payloads repeat the index byte."""
    if fill is not None:
        return bytes([fill % 256]) * size
    return bytes(i % 256 for i in range(size))


def echo_request(text: str, payload: bytes) -> bytes:
    return field_bytes(1, text.encode()) + field_bytes(2, payload)


def echo_response(text: str, payload: bytes, index: int) -> bytes:
    return field_bytes(1, text.encode()) + field_bytes(2, payload) + field_varint(3, index)


def expand_request(text: str, count: int, payload_size: int) -> bytes:
    return field_bytes(1, text.encode()) + field_varint(2, count) + field_varint(3, payload_size)


def read_varint(data: bytes, i: int):
    shift = value = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def decode_echo_response(data: bytes) -> dict:
    msg = {"text": "", "payload": b"", "index": 0}
    i = 0
    while i < len(data):
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
        elif wire == 2:
            length, i = read_varint(data, i)
            value, i = data[i : i + length], i + length
        else:
            raise ValueError(f"unexpected wire type {wire}")
        if number == 1:
            msg["text"] = value.decode()
        elif number == 2:
            msg["payload"] = bytes(value)
        elif number == 3:
            msg["index"] = value
    return msg


def grpc_messages(body: bytes):
    i = 0
    while i < len(body):
        if len(body) - i < 5:
            raise ValueError("truncated gRPC frame header")
        if body[i] != 0:
            raise ValueError("compressed frame (flag %d)" % body[i])
        length = int.from_bytes(body[i + 1 : i + 5], "big")
        if len(body) - i - 5 < length:
            raise ValueError("truncated gRPC message")
        yield body[i + 5 : i + 5 + length]
        i += 5 + length


# --- h2load output ------------------------------------------------------------------------------


def parse_h2load(text: str) -> dict:
    out = {}
    m = re.search(r"finished in ([\d.]+)(ms|s|us), ([\d.]+) req/s, ([\d.]+)([KMG]?B)/s", text)
    if not m:
        raise ValueError("no 'finished in' line in h2load output")
    scale = {"s": 1.0, "ms": 1e-3, "us": 1e-6}[m.group(2)]
    unit = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}[m.group(5)]
    out["seconds"] = float(m.group(1)) * scale
    out["req_per_s"] = float(m.group(3))
    out["bytes_per_s"] = float(m.group(4)) * unit
    m = re.search(
        r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
        r"(\d+) errored, (\d+) timeout",
        text,
    )
    if not m:
        raise ValueError("no 'requests:' line in h2load output")
    for k, v in zip(("total", "started", "done", "succeeded", "failed", "errored", "timeout"), m.groups()):
        out[k] = int(v)
    m = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
    if m:
        out["status_2xx"] = int(m.group(1))
    m = re.search(r"traffic: .*?\((\d+)\) total, .*?\((\d+)\) data", text)
    if m:
        out["traffic_bytes"] = int(m.group(1))
        out["data_bytes"] = int(m.group(2))
    m = re.search(r"time for request:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", text)
    if m:
        out["latency_min"], out["latency_max"], out["latency_mean"], out["latency_sd"] = m.groups()
    return out


# --- report -------------------------------------------------------------------------------------

METRICS = [
    # key, label, format, whether higher is better
    ("unary_c1m1_calls_per_s", "unary calls/s c1m1", "{:,.0f}", True),
    ("unary_c1m32_calls_per_s", "unary calls/s c1m32", "{:,.0f}", True),
    ("stream_msgs_per_s", "stream msgs/s", "{:,.0f}", True),
    ("stream_mib_per_s", "stream MiB/s (wire)", "{:,.1f}", True),
    ("unary_c1m32_cpu_us_per_call", "server CPU us/call c1m32", "{:,.2f}", False),
    ("stream_cpu_ns_per_msg", "server CPU ns/msg stream", "{:,.0f}", False),
    ("peak_rss_mib", "peak RSS MiB", "{:,.1f}", False),
]


def server_metrics(folder: str, count: int) -> dict:
    """Metrics of one server from run.sh's files in `folder`: c1m1.txt, c1m32.txt, stream.txt (h2load
    output) and hwm_kb (VmHWM at the end, in kB). Missing files leave their metrics out."""
    m = {}

    def h2(name):
        path = os.path.join(folder, name)
        return parse_h2load(open(path).read()) if os.path.exists(path) else None

    if (r := h2("c1m1.txt")) is not None:
        m["unary_c1m1_calls_per_s"] = r["req_per_s"]
    def cpu_seconds(name):
        # run.sh's samples of the server's CPU ticks at the start and end of a load's measured window.
        paths = [os.path.join(folder, f"{name}.cpu-{end}") for end in ("start", "end")]
        if not all(os.path.exists(p) for p in paths):
            return None
        start, end = (float(open(p).read().split()[0]) for p in paths)
        return (end - start) / os.sysconf("SC_CLK_TCK")

    if (r := h2("c1m32.txt")) is not None:
        m["unary_c1m32_calls_per_s"] = r["req_per_s"]
        if (cpu := cpu_seconds("c1m32")) is not None and r["succeeded"]:
            m["unary_c1m32_cpu_us_per_call"] = cpu * 1e6 / r["succeeded"]
    if (r := h2("stream.txt")) is not None:
        m["stream_requests"] = r["succeeded"]
        m["stream_seconds"] = r["seconds"]
        m["stream_msgs_per_s"] = r["succeeded"] * count / r["seconds"]
        if "traffic_bytes" in r:
            m["stream_mib_per_s"] = r["traffic_bytes"] / r["seconds"] / 2**20
        if (cpu := cpu_seconds("stream")) is not None and r["succeeded"]:
            m["stream_cpu_ns_per_msg"] = cpu * 1e9 / (r["succeeded"] * count)
    hwm = os.path.join(folder, "hwm_kb")
    if os.path.exists(hwm):
        m["peak_rss_mib"] = int(open(hwm).read().split()[0]) / 1024
    return m


def report(folder: str, out_path: str, names: list, count: int, meta: dict) -> None:
    servers = {n: server_metrics(os.path.join(folder, n), count) for n in names}
    doc = dict(meta)
    doc["servers"] = servers
    ratio = None
    if "hearth" in servers and "grpc-swift" in servers:
        ratio = {}
        for key, *_ in METRICS:
            a, b = servers["hearth"].get(key), servers["grpc-swift"].get(key)
            ratio[key] = round(a / b, 2) if a is not None and b else None
        doc["ratio_hearth_over_grpc_swift"] = ratio

    header = ["metric"] + names + (["hearth/grpc-swift"] if ratio else [])
    rows = []
    for key, label, fmt, _ in METRICS:
        row = [label]
        for n in names:
            v = servers[n].get(key)
            row.append(fmt.format(v) if v is not None else "-")
        if ratio:
            r = ratio[key]
            row.append(f"{r:.2f}x" if r is not None else "-")
        rows.append(row)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    print(line(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    if ratio:
        print("ratio > 1 favours hearth on the throughput rows; < 1 favours it on the CPU and peak RSS rows")
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


# --- command line -------------------------------------------------------------------------------


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)

    for name in ("request", "check", "response-size"):
        s = sub.add_parser(name)
        s.add_argument("method", choices=("get", "expand"))
        if name == "request":
            s.add_argument("out")
        s.add_argument("--text", default="hearth")
        s.add_argument("--count", type=int, default=100000)
        s.add_argument("--payload-size", type=int, default=16)

    s = sub.add_parser("h2load")
    s.add_argument("file")
    s.add_argument("--check", action="store_true",
                   help="exit 1 unless every request succeeded with a 2xx (none failed, errored or timed out)")
    s.add_argument("--data-per-request", type=int,
                   help="with --check: response DATA bytes must be exactly this many per succeeded request")
    s.add_argument("--min-data-per-request", type=int,
                   help="with --check: at least this many per succeeded request (timed runs count warm-up data too)")
    s = sub.add_parser("report")
    s.add_argument("folder")
    s.add_argument("out")
    s.add_argument("--servers", nargs="+", required=True)
    s.add_argument("--count", type=int, required=True, help="messages per Expand call")
    s.add_argument("--meta", default="{}", help="JSON object copied into the output")
    a = p.parse_args()

    if a.cmd == "request":
        if a.method == "get":
            msg = echo_request(a.text, payload_bytes(a.payload_size))
        else:
            msg = expand_request(a.text, a.count, a.payload_size)
        with open(a.out, "wb") as f:
            f.write(grpc_frame(msg))
        return 0

    if a.cmd == "response-size":
        # Bytes of gRPC-framed response messages one call returns (what h2load counts as data).
        if a.method == "get":
            print(len(grpc_frame(echo_response(a.text, payload_bytes(a.payload_size), 0))))
        else:
            print(sum(len(grpc_frame(echo_response(a.text, payload_bytes(a.payload_size, fill=i), i)))
                      for i in range(a.count)))
        return 0

    if a.cmd == "check":
        body = sys.stdin.buffer.read()
        try:
            msgs = [decode_echo_response(m) for m in grpc_messages(body)]
        except (ValueError, IndexError) as e:
            print(f"check {a.method}: bad response body ({e})", file=sys.stderr)
            return 1
        if a.method == "get":
            want = [{"text": a.text, "payload": payload_bytes(a.payload_size), "index": 0}]
        else:
            want = [
                {"text": a.text, "payload": payload_bytes(a.payload_size, fill=i), "index": i}
                for i in range(a.count)
            ]
        if msgs != want:
            print(f"check {a.method}: got {len(msgs)} messages, first {msgs[:2]}; want {len(want)}, first {want[:2]}",
                  file=sys.stderr)
            return 1
        print(f"check {a.method}: {len(msgs)} message(s) as expected")
        return 0

    if a.cmd == "h2load":
        with open(a.file) as f:
            r = parse_h2load(f.read())
        print(json.dumps(r))
        if a.check:
            bad = r["failed"] or r["errored"] or r["timeout"] or not r["succeeded"]
            if bad or r.get("status_2xx", r["succeeded"]) != r["succeeded"]:
                print(f"h2load run not clean: {r['succeeded']} succeeded, {r['failed']} failed, "
                      f"{r['errored']} errored, {r['timeout']} timeout, {r.get('status_2xx')} 2xx", file=sys.stderr)
                return 1
            # A gRPC error is still HTTP 200, but carries no response message: count the data.
            data, n = r.get("data_bytes"), r["succeeded"]
            if a.data_per_request is not None and data != a.data_per_request * n:
                print(f"h2load run: {data} response data bytes, expected {a.data_per_request} x {n} "
                      "(some calls returned no or other messages)", file=sys.stderr)
                return 1
            if a.min_data_per_request is not None and (data is None or data < a.min_data_per_request * n):
                print(f"h2load run: {data} response data bytes, expected at least {a.min_data_per_request} x {n} "
                      "(some calls returned no message)", file=sys.stderr)
                return 1
        return 0

    if a.cmd == "report":
        report(a.folder, a.out, a.servers, a.count, json.loads(a.meta))
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
