"""Well-behaved peers of the abuse suite, each run as a process of its own by run.py (so the attacker's
Python threads never delay them through the GIL):

  workers.py probe  --target T --token TOKEN [--interval 0.1] [--fresh-every 1] [--command-device ID]
      The healthy client. Every --interval seconds on one long-lived grpcio channel: Health.Check and an
      authenticated GetHub (and, with --command-device, an OnOff.toggle SendCommand to that device);
      every --fresh-every seconds also a Health.Check on a brand-new channel (a new TCP connection). Prints
      one JSON line per call: {"t": monotonic start, "kind", "ms", "ok", "code", "rev"}.

  workers.py driver --target T --token TOKEN [--devices N] [--report-interval S] [--prefix P]
      A grpcio driver: Hello, announces N on/off lights, then reports every device's OnOff every
      --report-interval seconds and answers OnOff commands. Prints JSON status lines once a second:
      {"t", "welcome", "announced", "reports", "commands", "error"}.

Both stop when standard input closes or after --max-seconds, and never run unbounded.
"""
import argparse
import json
import os
import queue
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "interop"))

import grpc  # noqa: E402

from common import (client_service_pb2, client_service_pb2_grpc, driver_service_pb2,  # noqa: E402
                    driver_service_pb2_grpc, health_pb2, health_pb2_grpc, home_pb2, values_pb2)

ON_OFF = 0x0006
IDENTIFY = 0x0003
ON_OFF_LIGHT = 0x0100
CALL_DEADLINE = 5.0  # a call slower than this is recorded as failed (DEADLINE_EXCEEDED)


def stop_on_stdin_eof(stop):
    def watch():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            pass
        stop.set()
    threading.Thread(target=watch, daemon=True).start()


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


# Probe -------------------------------------------------------------------------------------------------


def timed(kind, fn):
    start = time.monotonic()
    try:
        rev = fn()
        return {"t": start, "kind": kind, "ms": (time.monotonic() - start) * 1000.0, "ok": True, "code": "OK",
                "rev": rev}
    except grpc.RpcError as error:
        return {"t": start, "kind": kind, "ms": (time.monotonic() - start) * 1000.0, "ok": False,
                "code": error.code().name if error.code() else "UNKNOWN", "detail": (error.details() or "")[:200]}
    except Exception as error:  # a harness problem shows up as a failed call, never silently
        return {"t": start, "kind": kind, "ms": (time.monotonic() - start) * 1000.0, "ok": False,
                "code": type(error).__name__, "detail": str(error)[:200]}


def run_probe(args):
    stop = threading.Event()
    stop_on_stdin_eof(stop)
    md = [("authorization", f"Bearer {args.token}")]
    # A channel of its own (local subchannel pool): the probe's connection is not shared with anything.
    options = [("grpc.use_local_subchannel_pool", 1)]
    channel = grpc.insecure_channel(args.target, options=options)
    health = health_pb2_grpc.HealthStub(channel)
    home = client_service_pb2_grpc.HomeServiceStub(channel)
    end = time.monotonic() + args.max_seconds
    next_fresh = time.monotonic()
    on = False

    def fresh_check():
        with grpc.insecure_channel(args.target, options=options) as fresh:
            health_pb2_grpc.HealthStub(fresh).Check(health_pb2.HealthCheckRequest(), timeout=CALL_DEADLINE)

    try:
        while not stop.is_set() and time.monotonic() < end:
            tick = time.monotonic()
            emit(timed("health", lambda: health.Check(health_pb2.HealthCheckRequest(), timeout=CALL_DEADLINE)
                       and None))
            emit(timed("gethub", lambda: home.GetHub(client_service_pb2.GetHubRequest(), metadata=md,
                                                     timeout=CALL_DEADLINE).revision))
            if args.command_device:
                on = not on
                emit(timed("command", lambda: home.SendCommand(client_service_pb2.SendCommandRequest(
                    device_id=args.command_device, endpoint=1, trait_id=ON_OFF, command_id=1 if on else 0),
                    metadata=md, timeout=CALL_DEADLINE) and None))
            if args.fresh_every > 0 and tick >= next_fresh:
                next_fresh = tick + args.fresh_every
                emit(timed("fresh", lambda: fresh_check()))
            stop.wait(max(0.0, args.interval - (time.monotonic() - tick)))
    finally:
        channel.close()
    return 0


# Driver ------------------------------------------------------------------------------------------------


def bool_value(b):
    return values_pb2.Value(bool_value=b)


def announcement(device, name):
    identify = driver_service_pb2.AnnouncedTrait(
        trait_id=IDENTIFY, attributes=[home_pb2.Attribute(id=0, value=values_pb2.Value(uint_value=0))])
    on_off = driver_service_pb2.AnnouncedTrait(
        trait_id=ON_OFF, attributes=[home_pb2.Attribute(id=0, value=bool_value(False))])
    light = driver_service_pb2.AnnouncedType(
        endpoint=1, device_type_id=ON_OFF_LIGHT, primary=True, traits=[identify, on_off])
    return driver_service_pb2.DeviceAnnouncement(id=device, suggested_name=name, is_matter_device=True,
                                                 types=[light])


def run_driver(args):
    stop = threading.Event()
    stop_on_stdin_eof(stop)
    devices = [f"{args.prefix}{i}" for i in range(args.devices)]
    state = {"welcome": False, "announced": 0, "reports": 0, "commands": 0, "error": None, "ended": False}
    lock = threading.Lock()
    outbox = queue.Queue(maxsize=64)  # bounded: a stalled hub holds the reporter back instead of our memory
    end = time.monotonic() + args.max_seconds

    def requests():
        yield driver_service_pb2.DriverMessage(hello=driver_service_pb2.Hello(driver_version="abuse-1"))
        while True:
            try:
                message = outbox.get(timeout=0.5)
            except queue.Empty:
                if stop.is_set() or time.monotonic() > end:
                    return
                continue
            if message is None:
                return
            yield message

    def put(message):
        while not stop.is_set():
            try:
                outbox.put(message, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False

    channel = grpc.insecure_channel(args.target, options=[("grpc.use_local_subchannel_pool", 1)])
    stub = driver_service_pb2_grpc.DriverServiceStub(channel)
    responses = stub.Connect(requests(), metadata=[("authorization", f"Bearer {args.token}")])
    announced = threading.Event()

    def read():
        try:
            for message in responses:
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    with lock:
                        state["welcome"] = True
                    put(driver_service_pb2.DriverMessage(announce=driver_service_pb2.Announce(
                        devices=[announcement(d, f"Abuse lamp {d}") for d in devices])))
                elif kind == "announce_result":
                    with lock:
                        state["announced"] = len(message.announce_result.accepted)
                        if message.announce_result.rejected:
                            r = message.announce_result.rejected[0]
                            state["error"] = f"announce rejected {r.subject}: {r.code} {r.message}"
                    announced.set()
                elif kind == "command":
                    command = message.command
                    result = driver_service_pb2.CommandResult(correlation_id=command.correlation_id)
                    if command.trait_id == ON_OFF and command.command_id in (0, 1, 2):
                        put(report([command.device_id], command.command_id == 1))
                    else:
                        result.error_code = grpc.StatusCode.UNIMPLEMENTED.value[0]
                    put(driver_service_pb2.DriverMessage(result=result))
                    with lock:
                        state["commands"] += 1
                elif kind == "write":
                    put(driver_service_pb2.DriverMessage(result=driver_service_pb2.CommandResult(
                        correlation_id=message.write.correlation_id)))
        except grpc.RpcError as error:
            if not stop.is_set():
                with lock:
                    state["error"] = f"{error.code().name}: {error.details()}"
        finally:
            with lock:
                state["ended"] = True
            announced.set()
            stop.set()

    def report(ids, on):
        return driver_service_pb2.DriverMessage(report=driver_service_pb2.Report(traits=[
            driver_service_pb2.TraitReport(device_id=d, endpoint=1, trait_id=ON_OFF,
                                           attributes=[home_pb2.Attribute(id=0, value=bool_value(on))])
            for d in ids]))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    next_status = time.monotonic()
    on = False
    try:
        announced.wait(timeout=30)
        while not stop.is_set() and time.monotonic() < end:
            tick = time.monotonic()
            if args.report_interval > 0 and state["announced"]:
                on = not on
                if put(report(devices, on)):
                    with lock:
                        state["reports"] += 1
            if tick >= next_status:
                next_status = tick + 1.0
                with lock:
                    emit({"t": time.monotonic(), **state})
            stop.wait(max(0.0, (args.report_interval or 0.2) - (time.monotonic() - tick)))
    finally:
        stop.set()
        try:
            outbox.put_nowait(None)
        except queue.Full:
            pass
        responses.cancel()
        reader.join(timeout=5)
        with lock:
            emit({"t": time.monotonic(), **state})
        channel.close()
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="worker", required=True)
    p = sub.add_parser("probe")
    p.add_argument("--target", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--interval", type=float, default=0.1)
    p.add_argument("--fresh-every", type=float, default=1.0)
    p.add_argument("--command-device")
    p.add_argument("--max-seconds", type=float, default=600)
    d = sub.add_parser("driver")
    d.add_argument("--target", required=True)
    d.add_argument("--token", required=True)
    d.add_argument("--devices", type=int, default=10)
    d.add_argument("--prefix", default="lamp-")
    d.add_argument("--report-interval", type=float, default=0.05)
    d.add_argument("--max-seconds", type=float, default=600)
    args = parser.parse_args()
    return run_probe(args) if args.worker == "probe" else run_driver(args)


if __name__ == "__main__":
    sys.exit(main())
