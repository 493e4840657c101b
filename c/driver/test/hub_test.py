"""The C driver SDK against a real hub, with a stock grpcio client on the other side.

Usage: hub_test.py --hub-bin PATH --build DIR [--case NAME ...]

DIR holds test-driver and hearth-driver-sensors (build/ or build-asan/). Three hubs on loopback (port 0)
and temporary Unix sockets, each in its own temporary data directory:
  1. TCP: announce (with a vendor schema), report, event, command round trip, a failing and a deferred
     command, writes refused by the hub's validation and by the driver, offline/online, a device added and
     removed while connected, a refused token, a second process taking the driver over, a clean stop.
  2. Unix socket, driver on its own thread (--threaded): reconnect after a hub restart (with a value
     reported while the hub was down), a removal the hub never processed (stopped, then killed) made again
     after the reconnect, and the hub killed with SIGKILL in the middle of a report flood.
  3. The example driver (hearth-driver-sensors) supervised by the hub: devices, a command, and it exits
     when the hub is killed.
Prints PASS/FAIL per case; exit 0 only when all pass. Every wait is bounded and ends on what it waits for (a
line, a change seen by a Watch, an exit, a polled status), never after a fixed time; every process started
is killed at exit.
Driver output is scanned for AddressSanitizer/UndefinedBehaviorSanitizer reports.
"""
import argparse
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "interop"))
import grpc  # noqa: E402
from common import client_service_pb2 as cs, client_service_pb2_grpc as csg  # noqa: E402
from common import home_pb2, values_pb2, watch_pb2  # noqa: E402

COUNTER = 0xFFF1FC10
ADMIN = "admin-token"
SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer")
PROCESSES = []


class Failed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failed(message)


class Process:
    """A child whose stdout lines are queued (and kept) and whose stderr is kept for the sanitizer scan."""

    def __init__(self, name, argv, stdin=True, env=None):
        self.name, self.lines, self.seen, self.errors = name, queue.Queue(), [], []
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        PROCESSES.append(self)
        self.pumps = [threading.Thread(target=self._pump, args=(self.p.stdout, self.lines, self.seen), daemon=True),
                      threading.Thread(target=self._pump, args=(self.p.stderr, None, self.errors), daemon=True)]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream, lines, kept):
        for line in stream:
            kept.append(line.rstrip("\n"))
            if lines is not None:
                lines.put(line.rstrip("\n"))

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait_line(self, pattern, timeout=15):
        """The first queued line matching `pattern` (a regex); lines before it are consumed."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failed(f"{self.name}: no line matching {pattern!r} in {timeout} s; last lines: {self.seen[-8:]}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            match = re.search(pattern, line)
            if match:
                return match

    def wait_exit(self, timeout=15):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failed(f"{self.name} still running after {timeout} s; last lines: {self.seen[-8:]}")

    def kill(self, sig=signal.SIGKILL):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, sig)
            except ProcessLookupError:
                pass

    def sanitizer_report(self):
        """After the process ended: its stderr read to the end (the pump joined), then scanned."""
        self.pumps[1].join(timeout=10)
        if self.pumps[1].is_alive():
            return f"(stderr still open 10 s after the end; read so far:)\n" + "\n".join(self.errors[-40:])
        bad = [line for line in self.errors if SANITIZER.search(line)]
        return "\n".join(self.errors[-40:]) if bad else None


class Hub:
    def __init__(self, binary, directory, config, socket=None):
        argv = [binary, "--config", config, "--data-dir", os.path.join(directory, "data"), "--listen", "127.0.0.1:0"]
        if socket:
            argv += ["--socket", socket]
        self.process = Process("hub", argv, stdin=False)
        match = self.process.wait_line(r"LISTENING \S*:(\d+)", timeout=60)
        self.port = int(match.group(1))
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = csg.HomeServiceStub(self.channel)

    def stop(self, sig):
        self.channel.close()
        self.process.kill(sig)
        self.process.kill(signal.SIGCONT)  # a stopped hub (case_removal_lost) takes its SIGTERM only then
        self.process.wait_exit(20)


def value_of(value):
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return {f.id: value_of(f.value) for f in value.struct_value.fields}
    if kind == "list_value":
        return [value_of(v) for v in value.list_value.values]
    return None if kind in (None, "null_value") else getattr(value, kind)


def uint(n):
    return values_pb2.Value(uint_value=n)


class Watcher:
    """A Watch from 0 on a background thread: devices, trait states, events and rooms as they are now."""

    def __init__(self, hub):
        self.cond = threading.Condition()
        self.devices, self.traits, self.events, self.rooms, self.removed = {}, {}, [], {}, set()
        self.call = hub.stub.Watch(watch_pb2.WatchRequest(), metadata=[("authorization", f"Bearer {ADMIN}")], timeout=300)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        try:
            for response in self.call:
                with self.cond:
                    for change in response.changes:
                        self._apply(change)
                    self.cond.notify_all()
        except grpc.RpcError:
            pass

    def _apply(self, change):
        kind = change.WhichOneof("kind")
        if kind == "device":
            d = change.device
            self.devices[d.id] = d
            for t in d.types:
                for s in t.traits:
                    self.traits[(d.id, t.endpoint, s.trait_id)] = s
        elif kind == "trait":
            t = change.trait
            self.traits[(t.device_id, t.endpoint, t.state.trait_id)] = t.state
        elif kind == "event":
            self.events.append(change.event)
        elif kind == "room":
            self.rooms[change.room.id] = change.room.name
        elif kind == "device_removed":
            self.devices.pop(change.device_removed, None)
            self.removed.add(change.device_removed)

    def attribute(self, device, trait, attribute, endpoint=1):
        state = self.traits.get((device, endpoint, trait))
        for a in state.attributes if state else []:
            if a.id == attribute:
                return value_of(a.value)
        return None

    def connectivity(self, device, trait, endpoint=1):
        state = self.traits.get((device, endpoint, trait))
        return home_pb2.ConnectivityState.Name(state.connectivity) if state else None

    def wait(self, predicate, what, timeout=15):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Failed(f"watch: {what} not seen in {timeout} s")
                self.cond.wait(left)

    def close(self):
        self.call.cancel()


def call(hub, method, request, timeout=10):
    return getattr(hub.stub, method)(request, metadata=[("authorization", f"Bearer {ADMIN}")], timeout=timeout)


def expect_rpc_error(fn, code, text=None):
    try:
        fn()
    except grpc.RpcError as e:
        expect(e.code() == code, f"expected {code.name}, got {e.code().name}: {e.details()}")
        expect(text is None or text in (e.details() or ""), f"expected {text!r} in {e.details()!r}")
        return
    raise Failed(f"expected {code.name}, the call succeeded")


def write_config(directory, plugins=None):
    config = {"clients": [{"token": ADMIN, "user": "admin", "role": "admin"}],
              "drivers": [{"id": "test", "token": "test-token"}]}
    if plugins:
        config["plugins"] = plugins
    path = os.path.join(directory, "hub.json")
    with open(path, "w") as f:
        json.dump(config, f)
    return path


def start_driver(args, hub_address, token="test-token", threaded=False, name="driver"):
    argv = [os.path.join(args.build, "test-driver"), "--hub", hub_address, "--token", token]
    return Process(name, argv + (["--threaded"] if threaded else []))


# ---- cases on hub 1 (TCP) ------------------------------------------------------------------------------

def case_announce(ctx):
    w = ctx["watch"]
    w.wait(lambda: "test/lamp" in w.devices and "test/counter" in w.devices, "both devices")
    expect(w.devices["test/lamp"].name == "Test lamp", f"lamp name {w.devices['test/lamp'].name!r}")
    w.wait(lambda: w.rooms.get(w.devices["test/counter"].room_id) == "Test room", "the suggested room")
    w.wait(lambda: w.attribute("test/counter", COUNTER, 0) == 0, "the vendor trait's count")
    w.wait(lambda: w.connectivity("test/counter", COUNTER) == "CONNECTIVITY_STATE_ONLINE", "online")
    expect(not any(line.startswith("REJECTED") for line in ctx["driver"].seen), "the hub rejected something")


def case_report(ctx):
    ctx["driver"].send("report counter 1 0xFFF1FC10 0 uint 42")
    ctx["watch"].wait(lambda: ctx["watch"].attribute("test/counter", COUNTER, 0) == 42, "count 42")


def case_event(ctx):
    w = ctx["watch"]
    ctx["driver"].send("event counter 1 0xFFF1FC10 0 7")
    w.wait(lambda: any(e.device_id == "test/counter" and e.trait_id == COUNTER and value_of(
        values_pb2.Value(struct_value=e.fields)) == {0: 7} for e in w.events), "the event")


def case_command(ctx):
    hub, w = ctx["hub"], ctx["watch"]
    request = cs.SendCommandRequest(device_id="test/counter", endpoint=1, trait_id=COUNTER, command_id=0,
                                    fields=values_pb2.StructValue(fields=[values_pb2.Field(id=0, value=uint(5))]))
    response = call(hub, "SendCommand", request)
    expect(value_of(values_pb2.Value(struct_value=response.fields)) == {0: 47}, f"response {response.fields}")
    w.wait(lambda: w.attribute("test/counter", COUNTER, 0) == 47, "count 47")
    call(hub, "SendCommand", cs.SendCommandRequest(device_id="test/lamp", endpoint=1, trait_id=0x0006, command_id=2))
    w.wait(lambda: w.attribute("test/lamp", 0x0006, 0) is True, "the lamp on after toggle")


def case_command_fails(ctx):
    hub = ctx["hub"]
    expect_rpc_error(lambda: call(hub, "SendCommand", cs.SendCommandRequest(
        device_id="test/counter", endpoint=1, trait_id=COUNTER, command_id=1)),
        grpc.StatusCode.FAILED_PRECONDITION, "the counter says no")
    started = time.monotonic()
    call(hub, "SendCommand", cs.SendCommandRequest(device_id="test/counter", endpoint=1, trait_id=COUNTER, command_id=2))
    expect(time.monotonic() - started >= 0.25, "the deferred answer came too early")


def case_write_refused(ctx):
    hub, w, driver = ctx["hub"], ctx["watch"], ctx["driver"]
    before = len(driver.seen)
    write = lambda attribute, value: call(hub, "WriteAttributes", cs.WriteAttributesRequest(  # noqa: E731
        device_id="test/counter", endpoint=1, trait_id=COUNTER, attributes=[home_pb2.Attribute(id=attribute, value=value)]))
    # Refused by the hub's validation (read-only; over maxLength): the driver never sees them.
    expect_rpc_error(lambda: write(0, uint(1)), grpc.StatusCode.INVALID_ARGUMENT, "read-only")
    expect_rpc_error(lambda: write(1, values_pb2.Value(string_value="x" * 40)), grpc.StatusCode.INVALID_ARGUMENT)
    expect(not any("REQUEST write" in line for line in driver.seen[before:]), "a refused write reached the driver")
    # Refused by the driver, then accepted.
    expect_rpc_error(lambda: write(1, values_pb2.Value(string_value="bad")), grpc.StatusCode.INVALID_ARGUMENT,
                     "label refused by the driver")
    write(1, values_pb2.Value(string_value="kitchen"))
    w.wait(lambda: w.attribute("test/counter", COUNTER, 1) == "kitchen", "the written label")


def case_connectivity(ctx):
    w, driver = ctx["watch"], ctx["driver"]
    driver.send("offline counter 1 0xFFF1FC10")
    w.wait(lambda: w.connectivity("test/counter", COUNTER) == "CONNECTIVITY_STATE_OFFLINE", "the trait offline")
    driver.send("report counter 1 0xFFF1FC10 0 uint 50")
    w.wait(lambda: w.connectivity("test/counter", COUNTER) == "CONNECTIVITY_STATE_ONLINE"
           and w.attribute("test/counter", COUNTER, 0) == 50, "online again with 50")


def case_add_remove(ctx):
    w, driver = ctx["watch"], ctx["driver"]
    driver.send("add-late")
    w.wait(lambda: w.attribute("test/late", COUNTER, 1) == "late", "the late device")
    driver.send("remove late")
    w.wait(lambda: "test/late" in w.removed, "the late device removed")


def case_refused_token(ctx):
    bad = start_driver(ctx["args"], f"127.0.0.1:{ctx['hub'].port}", token="wrong-token", name="refused driver")
    bad.wait_line(r"EXIT HEARTH_EREFUSED", timeout=15)
    expect(bad.wait_exit(5) == 3, "a refused driver should exit 3")
    ctx["checked"].append(bad)


def case_replaced(ctx):
    second = start_driver(ctx["args"], f"127.0.0.1:{ctx['hub'].port}", threaded=True, name="second driver")
    second.wait_line(r"STATE connected")
    ctx["driver"].wait_line(r"EXIT HEARTH_EREPLACED", timeout=15)
    expect(ctx["driver"].wait_exit(5) == 4, "a replaced driver should exit 4")
    ctx["checked"].append(ctx["driver"])
    ctx["driver"] = second


def case_clean_stop(ctx):
    w, driver = ctx["watch"], ctx["driver"]
    w.wait(lambda: w.connectivity("test/counter", COUNTER) == "CONNECTIVITY_STATE_ONLINE", "online before the stop")
    driver.send("report counter 1 0xFFF1FC10 0 uint 60")  # sent before the stream closes
    driver.p.stdin.close()  # end of input: the test driver stops the driver
    driver.wait_line(r"EXIT HEARTH_OK", timeout=10)
    expect(driver.wait_exit(5) == 0, "a stopped driver should exit 0")
    w.wait(lambda: w.attribute("test/counter", COUNTER, 0) == 60, "the report queued before the stop")
    w.wait(lambda: w.connectivity("test/counter", COUNTER) == "CONNECTIVITY_STATE_OFFLINE", "offline after the stop")
    ctx["checked"].append(driver)


# ---- cases on hub 2 (Unix socket, restarts) ---------------------------------------------------------------

def case_hub_restart(ctx):
    driver = ctx["driver"]
    driver.send("report counter 1 0xFFF1FC10 0 uint 10")
    ctx["watch"].wait(lambda: ctx["watch"].attribute("test/counter", COUNTER, 0) == 10, "count 10")
    ctx["watch"].close()
    ctx["hub"].stop(signal.SIGTERM)
    driver.wait_line(r"STATE waiting")
    driver.send("report counter 1 0xFFF1FC10 0 uint 77")  # while the hub is away
    ctx["hub"] = ctx["start_hub"]()
    driver.wait_line(r"STATE connected", timeout=20)
    w = ctx["watch"] = Watcher(ctx["hub"])
    w.wait(lambda: w.attribute("test/counter", COUNTER, 0) == 77
           and w.connectivity("test/counter", COUNTER) == "CONNECTIVITY_STATE_ONLINE", "count 77, online, after the restart")


def case_hub_killed(ctx):
    driver = ctx["driver"]
    driver.send("flood-until-lost 60")  # reports until the driver sees the hub gone
    driver.wait_line(r"^FLOODING 50000$")  # five batches in
    ctx["watch"].close()
    ctx["hub"].stop(signal.SIGKILL)
    flooded = driver.wait_line(r"FLOODED \d+ (\d+) (\S+)", timeout=70)
    expect(flooded.group(2) == "lost", f"the flood ended with {flooded.group(2)!r}, not on the lost connection")
    total = int(flooded.group(1))
    ctx["hub"] = ctx["start_hub"]()
    driver.wait_line(r"STATE connected", timeout=20)
    w = ctx["watch"] = Watcher(ctx["hub"])
    w.wait(lambda: w.attribute("test/counter", COUNTER, 0) == total, f"the last flooded count {total}")
    expect(driver.p.poll() is None, "the driver died")
    driver.p.stdin.close()
    expect(driver.wait_exit(10) == 0, "the driver should stop cleanly")
    ctx["checked"].append(driver)


def case_removal_lost(ctx):
    """The hub is stopped (SIGSTOP) while the driver sends a removal, then killed: it never processed it, still
    lists the device in its Welcome after the restart, and the driver removes it again."""
    driver, w = ctx["driver"], ctx["watch"]
    driver.send("add-late")
    w.wait(lambda: w.attribute("test/late", COUNTER, 1) == "late", "the late device")  # committed when seen
    w.close()
    ctx["hub"].process.kill(signal.SIGSTOP)
    driver.send("remove late")
    driver.send("barrier")  # the removal is written to the socket; the stopped hub cannot read it
    driver.wait_line(r"^BARRIER$")
    ctx["hub"].stop(signal.SIGKILL)
    driver.wait_line(r"STATE waiting")
    driver.send("report counter 1 0xFFF1FC10 0 uint 4242")  # carried by the next announcement
    ctx["hub"] = ctx["start_hub"]()
    driver.wait_line(r"STATE connected", timeout=20)
    w = ctx["watch"] = Watcher(ctx["hub"])
    # The removal goes before the announcement, and the hub takes a session's messages in order.
    w.wait(lambda: w.attribute("test/counter", COUNTER, 0) == 4242, "the announcement after the restart")
    expect("test/late" not in w.devices, "the removal the hub never processed was not made again")


# ---- hub 3: the example, supervised --------------------------------------------------------------------

def case_supervised(ctx):
    hub, w = ctx["hub"], ctx["watch"]
    w.wait(lambda: all(f"sensors/{k}-1" in w.devices for k in ("temperature", "humidity", "contact", "occupancy")),
           "the four sensors", timeout=30)
    # A complete BasicInformation, vendor and product ids included, as the Home APIs' guides read it.
    w.wait(lambda: w.attribute("sensors/temperature-1", 0x0028, 0x02) == 0xFFF4
           and w.attribute("sensors/occupancy-1", 0x0028, 0x04) == 0xC004, "BasicInformation with vendor and product ids")
    call(hub, "SendCommand", cs.SendCommandRequest(
        device_id="sensors/temperature-1", endpoint=1, trait_id=0x0003, command_id=0,
        fields=values_pb2.StructValue(fields=[values_pb2.Field(id=0, value=uint(3))])))
    w.wait(lambda: w.attribute("sensors/temperature-1", 0x0003, 0) in (1, 2, 3), "identifying")
    w.wait(lambda: w.attribute("sensors/temperature-1", 0x0003, 0) == 0, "identify counted down", timeout=10)
    expect_rpc_error(lambda: call(hub, "WriteAttributes", cs.WriteAttributesRequest(
        device_id="sensors/occupancy-1", endpoint=1, trait_id=0x0406,
        attributes=[home_pb2.Attribute(id=3, value=uint(500))])), grpc.StatusCode.OUT_OF_RANGE, "holdTime")


def case_supervised_restart(ctx):
    """RestartDriver: SIGTERM to the plugin (a clean stop, its sanitizer report in the hub's log), then a new one."""
    hub, w = ctx["hub"], ctx["watch"]
    old = next(d.pid for d in call(hub, "ListDrivers", cs.ListDriversRequest()).drivers if d.driver_id == "sensors")
    call(hub, "RestartDriver", cs.RestartDriverRequest(driver_id="sensors"))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        status = next(d for d in call(hub, "ListDrivers", cs.ListDriversRequest()).drivers if d.driver_id == "sensors")
        if status.connected and status.pid not in (0, old):
            break
        time.sleep(0.1)
    else:
        raise Failed(f"the plugin did not come back after RestartDriver: {status}")
    expect(status.restarts == 0, f"a requested restart counted as a crash: {status}")
    w.wait(lambda: w.connectivity("sensors/temperature-1", 0x0402) == "CONNECTIVITY_STATE_ONLINE", "online again")


def case_supervised_orphan(ctx):
    drivers = call(ctx["hub"], "ListDrivers", cs.ListDriversRequest()).drivers
    pid = next(d.pid for d in drivers if d.driver_id == "sensors")
    expect(pid > 0, "no pid for the sensors plugin")
    ctx["watch"].close()
    ctx["hub"].stop(signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().split(") ")[1].startswith("Z"):
                    return  # exited; nobody reaped it yet
        except FileNotFoundError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    raise Failed("the plugin kept running after its hub was killed")


def run_cases(cases, ctx, only):
    failed = 0
    for case in cases:
        name = case.__name__[5:]
        if only and name not in only:
            continue
        started = time.monotonic()
        try:
            case(ctx)
            print(f"PASS {name} ({time.monotonic() - started:.1f} s)", flush=True)
        except Failed as e:
            print(f"FAIL {name}: {e}", flush=True)
            failed += 1
    return failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hub-bin", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--case", action="append")
    args = parser.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="hearth-cdriver-") as tmp:
        # Hub 1: TCP.
        d1 = os.path.join(tmp, "one")
        os.makedirs(d1)
        hub = Hub(args.hub_bin, d1, write_config(d1))
        ctx = {"args": args, "hub": hub, "checked": []}
        ctx["driver"] = start_driver(args, f"127.0.0.1:{hub.port}")
        ctx["watch"] = Watcher(hub)
        failed += run_cases([case_announce, case_report, case_event, case_command, case_command_fails,
                             case_write_refused, case_connectivity, case_add_remove, case_refused_token, case_replaced,
                             case_clean_stop], ctx, args.case)
        checked = ctx["checked"] + [ctx["driver"]]
        ctx["watch"].close()
        hub.stop(signal.SIGTERM)

        # Hub 2: a Unix socket, restarted in place.
        d2 = os.path.join(tmp, "two")
        os.makedirs(d2)
        sock, config = os.path.join(d2, "hub.sock"), write_config(d2)
        ctx = {"args": args, "checked": [], "start_hub": lambda: Hub(args.hub_bin, d2, config, socket=sock)}
        ctx["hub"] = ctx["start_hub"]()
        ctx["driver"] = start_driver(args, f"unix:{sock}", threaded=True)
        ctx["driver"].wait_line(r"STATE connected")
        ctx["watch"] = Watcher(ctx["hub"])
        failed += run_cases([case_hub_restart, case_removal_lost, case_hub_killed], ctx, args.case)
        checked += ctx["checked"] + [ctx["driver"]]
        ctx["watch"].close()
        ctx["hub"].stop(signal.SIGTERM)

        # Hub 3: the example driver as a supervised plugin.
        d3 = os.path.join(tmp, "three")
        os.makedirs(d3)
        sensors = os.path.abspath(os.path.join(args.build, "hearth-driver-sensors"))
        config = write_config(d3, [{"id": "sensors", "executable": sensors,
                                    "arguments": ["--devices", "1", "--interval-ms", "100", "--seed", "1"]}])
        hub = Hub(args.hub_bin, d3, config, socket=os.path.join(d3, "hub.sock"))
        ctx = {"args": args, "hub": hub, "watch": Watcher(hub)}
        failed += run_cases([case_supervised, case_supervised_restart, case_supervised_orphan], ctx, args.case)
        ctx["watch"].close()
        hub.stop(signal.SIGKILL)

        for process in checked + [hub.process]:
            process.kill()
            report = process.sanitizer_report()
            if report:
                print(f"FAIL sanitizer ({process.name}):\n{report}", flush=True)
                failed += 1
    print("C driver hub tests:", "all passed" if not failed else f"{failed} failed", flush=True)
    return 1 if failed else 0


def cleanup(*_):
    for process in PROCESSES:
        process.kill()


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: (cleanup(), sys.exit(1)))
    try:
        sys.exit(main())
    finally:
        cleanup()
