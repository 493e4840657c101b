"""Renames devices of a running fan-out phase at an open-loop rate and measures how long the hub takes to
acknowledge each rename (a metadata mutation: committed durably before the answer).

    renamer.py --port P --token T --devices N --drivers D --rate 100 --seconds S --go FILE

Starts when FILE exists (the publishers' start signal). Every 1/rate s it sends RenameDevice for the next
fan-out device (`fanout<j>/d<i>`, as hearth_pub announces them) without waiting for earlier calls, and the
same number of gRPC health checks (no disk) in between, so that the client's own cost per call (grpcio in
Python) can be read beside the rename's. Latency is from the call's due time to its answer. Prints one JSON
object: renames and health checks with p50/p99/max in ms, and errors.
"""
import argparse
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
import grpc  # noqa: E402
from common import client_service_pb2, client_service_pb2_grpc, health_pb2, health_pb2_grpc  # noqa: E402


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def summary(latencies, errors):
    ms = [v * 1000 for v in latencies]
    rounded = lambda v: None if v is None else round(v, 3)  # noqa: E731
    return {"count": len(ms), "errors": errors[0], "p50_ms": rounded(percentile(ms, 50)),
            "p99_ms": rounded(percentile(ms, 99)), "max_ms": rounded(max(ms) if ms else None)}


def main():
    parser = argparse.ArgumentParser()
    for name in ("port", "devices", "drivers", "rate"):
        parser.add_argument(f"--{name}", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--go", required=True)
    args = parser.parse_args()

    channel = grpc.insecure_channel(f"127.0.0.1:{args.port}")
    grpc.channel_ready_future(channel).result(timeout=30)
    home = client_service_pb2_grpc.HomeServiceStub(channel)
    health = health_pb2_grpc.HealthStub(channel)
    metadata = [("authorization", f"Bearer {args.token}")]
    lock = threading.Lock()
    results = {"rename": ([], [0]), "health": ([], [0])}

    def done(kind, due):
        def callback(future):
            with lock:
                latencies, errors = results[kind]
                if future.exception() is not None:
                    errors[0] += 1
                    if errors[0] <= 3:
                        print(f"renamer: {kind} failed: {future.exception()}", file=sys.stderr)
                else:
                    latencies.append(time.monotonic() - due)
        return callback

    print("READY", file=sys.stderr, flush=True)
    while not os.path.exists(args.go):
        time.sleep(0.005)
    interval = 1.0 / args.rate
    start = time.monotonic()
    pending = []
    n = 0
    while True:
        due = start + n * interval
        if due - start >= args.seconds:
            break
        # The health check goes half an interval after the rename, between two renames.
        for kind, at in (("rename", due), ("health", due + interval / 2)):
            delay = at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if kind == "rename":
                local = n % args.devices
                request = client_service_pb2.RenameDeviceRequest(
                    device_id=f"fanout{local % args.drivers}/d{local}", name=f"Renamed {n}")
                future = home.RenameDevice.future(request, metadata=metadata, timeout=10)
            else:
                future = health.Check.future(health_pb2.HealthCheckRequest(service=""), timeout=10)
            future.add_done_callback(done(kind, at))
            pending.append(future)
        n += 1
    for future in pending:
        try:
            future.result(timeout=15)
        except Exception:  # counted by the callback
            pass
    with lock:
        print(json.dumps({"rate": args.rate, "renames": summary(*results["rename"]),
                          "health_checks": summary(*results["health"])}))


if __name__ == "__main__":
    main()
