"""Fault and abuse suite for hearth-hub (issue 17, item 6).

Usage: run.py [CASE ...] [--long] [--hub PATH] [--out DIR] [--wait-for-hub SECONDS] [--list]

Each case starts its own hub (a temp data dir, loopback ports chosen by the kernel, a config written here
with a client and two driver tokens), warms it up, runs one attack for a bounded time and count, and checks
explicit criteria:

  * the hub is alive (process running, Health.Check SERVING);
  * a well-behaved grpcio client (workers.py probe, a process of its own: Health.Check + authenticated
    GetHub every 100 ms on one channel, a fresh-connection Health.Check every second) gets every answer
    within 1 s during the attack and after it (p99 and max reported);
  * VmRSS growth over the warmed-up baseline is bounded during and after the attack (64 MiB for floods and
    budgets; 8 MiB after the connection churn);
  * after every client has left, the hub's connection and HTTP/2 session gauges are back to 0 (and
    buffered-bytes gauges too, when the hub has any);
  * the case's own criteria (statuses, rejections, acknowledged state).

Prints a table (case, pass/fail, RSS baseline/peak/after MiB, healthy-client p99/max ms, notes) and writes
results/abuse/<time>/results.json with every check, figure and metric. Exit status: 0 all passed, 1 a case
failed, 2 the suite could not run (no hub binary, bad arguments).
"""
import argparse
import datetime
import json
import os
import queue
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import harness
from harness import (ADMIN_TOKEN, DRIVER2_TOKEN, DRIVER_ID, DRIVER_TOKEN, MIB, CaseResult, Hub, Phases, Probe,
                     Sampler, check_alive, check_drained, python, spawn)
import rawh2
from rawh2 import (CONTINUATION, END_HEADERS, END_STREAM, GET_HUB, HEADERS, HEALTH_CHECK, PREFACE, RENAME_ROOM,
                   WATCH, H2Client, close_with_reset, drain, encode_headers, frame, ping_frame, request_headers,
                   send_all, settings_frame)

import grpc  # noqa: E402  (harness put tools/interop on sys.path)
from common import (client_service_pb2, client_service_pb2_grpc, driver_service_pb2,  # noqa: E402
                    driver_service_pb2_grpc, health_pb2, health_pb2_grpc, home_pb2, watch_pb2)

FLOOD_RSS_MIB = 64  # growth allowed during and after floods and budget cases
CHURN_AFTER_RSS_MIB = 8  # growth allowed after the connection churn


class Context:
    def __init__(self, hub_binary, out_dir, long):
        self.hub_binary = hub_binary
        self.out_dir = out_dir
        self.long = long

    def scale(self, ci, long):
        return long if self.long else ci


class Env:
    """What one case started: hubs, samplers, probes, workers, sockets; close() ends all of them."""

    def __init__(self, ctx, name):
        self.ctx = ctx
        self.name = name
        self.logs = os.path.join(ctx.out_dir, name)
        os.makedirs(self.logs, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix=f"hearth-abuse-{name}-")
        self.hubs, self.samplers, self.probes, self.procs, self.socks, self.clients = [], [], [], [], [], []

    def hub(self, label="hub", data_dir=None):
        hub = Hub(self.ctx.hub_binary, self.logs, label, data_dir=data_dir or os.path.join(self.tmp, label))
        self.hubs.append(hub)
        return hub.start()

    def sampler(self, hub):
        sampler = Sampler(hub).start()
        self.samplers.append(sampler)
        return sampler

    def probe(self, hub, command_device=None):
        probe = Probe(hub, command_device=command_device)
        self.probes.append(probe)
        if not probe.wait_ready():
            raise RuntimeError(f"the healthy client never got an answer (log {hub.workdir}/{hub.name}-probe.log)")
        return probe

    def driver(self, hub, token=DRIVER_TOKEN, devices=10, report_interval=0.05, prefix="lamp-", label="driver"):
        worker = Worker(self, label, ["driver", "--target", hub.target, "--token", token, "--devices", str(devices),
                                      "--report-interval", str(report_interval), "--prefix", prefix])
        self.procs.append(worker)
        return worker

    def close(self):
        for s in self.samplers:
            s.stop()
        for p in self.probes:
            p.close()
        self.dump()
        for w in self.procs:
            w.close()
        for c in self.clients:
            c.close()
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass
        for h in self.hubs:
            h.stop()
        harness.kill_children()
        shutil.rmtree(self.tmp, ignore_errors=True)


    def dump(self):
        """Raw samples for a closer look: probe calls and RSS, one JSON object a line."""
        try:
            for i, p in enumerate(self.probes):
                with open(os.path.join(self.logs, f"probe-{i}.jsonl"), "w") as f:
                    with p.lock:
                        for sample in p.samples:
                            f.write(json.dumps(sample) + "\n")
            for i, s in enumerate(self.samplers):
                with open(os.path.join(self.logs, f"rss-{i}.jsonl"), "w") as f:
                    for t, kib in s.rss:
                        f.write(json.dumps({"t": t, "rss_kib": kib}) + "\n")
        except OSError:
            pass


class Worker:
    """A workers.py process printing JSON status lines; `last` is the newest."""

    def __init__(self, env, label, argv):
        self.proc = spawn([python(), os.path.join(harness.HERE, "workers.py")] + argv, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=open(os.path.join(env.logs, f"{label}.log"), "ab"))
        self.lines = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            with self.lock:
                self.lines.append(line)

    @property
    def last(self):
        with self.lock:
            return self.lines[-1] if self.lines else {}

    def wait(self, predicate, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate(self.last):
                return True
            if self.proc.poll() is not None:
                time.sleep(0.2)
                return predicate(self.last)
            time.sleep(0.1)
        return False

    def close(self):
        harness.stop_worker(self.proc)

    def kill9(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)


# ---------------------------------------------------------------------------------------------------------
# Shared steps


def standard_start(env, result, command_device=None, driver=None):
    """Hub, sampler, probe (and optionally a driver), then a warm-up: raw h2 calls on 50 connections and one
    grpcio watch until synced."""
    hub = env.hub()
    result.figures["hub_start_s"] = round(hub.start_seconds, 2)
    sampler = env.sampler(hub)
    worker = None
    if driver:
        worker = env.driver(hub, **driver)
        if not worker.wait(lambda s: s.get("announced"), 30):
            raise RuntimeError(f"the driver did not announce its devices: {worker.last}")
    probe = env.probe(hub, command_device=command_device)
    warm_up(hub)
    return hub, sampler, probe, worker


def warm_up(hub, connections=50):
    for i in range(connections):
        c = H2Client(hub.port)
        try:
            c.handshake()
            c.call(HEALTH_CHECK, b"")
            c.call(GET_HUB, b"", token=ADMIN_TOKEN)
        finally:
            c.goaway_and_close()
    with grpc.insecure_channel(hub.target) as channel:
        stub = client_service_pb2_grpc.HomeServiceStub(channel)
        call = stub.Watch(watch_pb2.WatchRequest(), metadata=[("authorization", f"Bearer {ADMIN_TOKEN}")],
                          timeout=15)
        for response in call:
            if response.synced:
                call.cancel()
                break


def finish(result, hub, phases, probe, peak_limit, after_limit, workers=()):
    """The shared criteria: RSS, the healthy client, the hub alive, and sessions drained once every client
    (the probe and any driver worker too) has left."""
    phases.judge(peak_limit, after_limit)
    check_alive(result, hub)
    probe.close()
    for worker in workers:
        worker.close()
    check_drained(result, hub)


def run_threads(count, target, args=()):
    threads = [threading.Thread(target=target, args=(i,) + tuple(args), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    return threads


def join_all(threads, deadline):
    for t in threads:
        t.join(timeout=max(0.1, deadline - time.monotonic()))
    return sum(1 for t in threads if t.is_alive())


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}

    def add(self, key, n=1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + n

    def get(self, key):
        with self.lock:
            return self.counts.get(key, 0)

    def snapshot(self):
        with self.lock:
            return dict(sorted(self.counts.items()))


# ---------------------------------------------------------------------------------------------------------
# 1. Connection churn


def case_churn(ctx, result, env):
    """Connection churn: well-behaved calls, bare connects and preface-then-RST, N connections in all."""
    total = ctx.scale(3000, 10000)
    hub, sampler, probe, _ = standard_start(env, result)
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    counts = Counter()
    next_index = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + ctx.scale(90, 240)
    preface = PREFACE + settings_frame()

    def worker(_):
        while time.monotonic() < deadline:
            with lock:
                i = next_index[0]
                if i >= total:
                    return
                next_index[0] += 1
            kind = ("call", "bare", "rst")[i % 3]
            try:
                if kind == "call":
                    c = H2Client(hub.port)
                    try:
                        status, detail = c.call(HEALTH_CHECK, b"", seconds=5)
                        counts.add("call ok" if status == 0 else f"call failed: {status} {detail}")
                    finally:
                        c.goaway_and_close()
                elif kind == "bare":
                    s = rawh2.connect(hub.port)
                    s.close()
                    counts.add("bare")
                else:
                    s = rawh2.connect(hub.port)
                    s.sendall(preface)
                    close_with_reset(s)
                    counts.add("rst")
            except OSError as error:
                counts.add(f"{kind} error: {type(error).__name__}")

    phases.begin_attack()
    threads = run_threads(8, worker)
    join_all(threads, deadline + 10)
    phases.end_attack()
    done = sum(counts.snapshot().values())
    result.figures["connections"] = counts.snapshot()
    result.figures["connections_per_s"] = round(done / max(0.001, phases.attack_end - phases.attack_start), 1)
    result.check("churn_completed", done == total, f"{done} of {total} connections within the time bound")
    calls = (total + 2) // 3
    result.check("churn_calls_ok", counts.get("call ok") == calls,
                 f"{counts.get('call ok')} of {calls} well-behaved calls answered OK")
    phases.after(settle=3.0)
    finish(result, hub, phases, probe, FLOOD_RSS_MIB, CHURN_AFTER_RSS_MIB)


# ---------------------------------------------------------------------------------------------------------
# 2. Slowloris


def case_slowloris(ctx, result, env):
    """Slowloris: many connections trickling the preface and a request's headers one byte every 300 ms."""
    count = ctx.scale(500, 2000)
    duration = ctx.scale(12, 30)
    hub, sampler, probe, _ = standard_start(env, result)
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    request = frame(HEADERS, END_HEADERS | END_STREAM, 1, encode_headers(request_headers(HEALTH_CHECK)))
    # Half trickle from the first byte of the preface; half send preface + SETTINGS at once and trickle HEADERS.
    payloads = [PREFACE + settings_frame() + request, request]
    phases.begin_attack()
    socks = []
    connect_deadline = time.monotonic() + 20
    for i in range(count):
        if time.monotonic() > connect_deadline:
            break
        try:
            s = rawh2.connect(hub.port, timeout=2)
        except OSError as error:
            result.note(f"connect {i} failed: {error}")
            break
        if i % 2:
            s.sendall(PREFACE + settings_frame())
        s.setblocking(False)
        socks.append([s, payloads[i % 2], 0, None])  # socket, payload, bytes sent, closed at
        env.socks.append(s)
    result.figures["connections"] = len(socks)
    start = time.monotonic()
    end = start + duration
    while time.monotonic() < end:
        tick = time.monotonic()
        for entry in socks:
            s, payload, sent, closed = entry
            if closed is not None:
                continue
            _, peer_closed = drain(s)
            if not peer_closed and sent < len(payload):
                try:
                    s.send(payload[sent:sent + 1])
                    entry[2] += 1
                except BlockingIOError:
                    pass
                except OSError:
                    peer_closed = True
            if peer_closed:
                entry[3] = time.monotonic() - start
        time.sleep(max(0.0, 0.3 - (time.monotonic() - tick)))
    phases.end_attack()
    closed = sorted(e[3] for e in socks if e[3] is not None)
    result.figures["closed_by_hub"] = len(closed)
    if closed:
        result.figures["closed_by_hub_median_s"] = round(closed[len(closed) // 2], 1)
    result.figures["bytes_sent_max"] = max((e[2] for e in socks), default=0)
    result.note(f"{len(closed)} of {len(socks)} trickling connections closed by the hub within {duration} s")
    for e in socks:
        e[0].close()
    phases.after()
    finish(result, hub, phases, probe, FLOOD_RSS_MIB, FLOOD_RSS_MIB)


# ---------------------------------------------------------------------------------------------------------
# 3. Oversize header list and oversize message


def case_oversize(ctx, result, env):
    """Oversize header list (64 KiB of metadata) and oversize message (5 MiB > 4 MiB): RESOURCE_EXHAUSTED."""
    header_requests = ctx.scale(60, 300)
    message_requests = ctx.scale(10, 40)
    hub, sampler, probe, _ = standard_start(env, result)
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    pad = [(f"x-pad-{i:02d}", "".join(random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(1000)))
           for i in range(64)]
    phases.begin_attack()

    # Raw HTTP/2: 64 KiB of metadata on Health.Check and on an authenticated GetHub, 10 requests a connection,
    # then a normal call on the same connection.
    statuses, followups = Counter(), Counter()
    for batch in range(0, header_requests, 10):
        c = H2Client(hub.port)
        try:
            c.handshake()
            for i in range(batch, min(batch + 10, header_requests)):
                path, token = (HEALTH_CHECK, None) if i % 2 == 0 else (GET_HUB, ADMIN_TOKEN)
                try:
                    status, detail = c.call(path, b"", token=token, extra=pad, seconds=5)
                except (OSError, TimeoutError) as error:
                    status, detail = None, f"{type(error).__name__}"
                statuses.add(f"{status}" if status is not None else f"none: {detail}")
                if c.terminated:
                    break
            if c.terminated:
                followups.add(f"connection ended: {c.terminated}")
            else:
                status, detail = c.call(HEALTH_CHECK, b"", seconds=5)
                followups.add("ok" if status == 0 else f"{status} {detail}")
        except OSError as error:
            statuses.add(f"connection error: {type(error).__name__}")
        finally:
            c.close()
    raw = statuses.snapshot()
    result.figures["raw_header_statuses"] = raw
    result.figures["raw_header_followups"] = followups.snapshot()
    result.check("header_list_resource_exhausted", raw.get("8", 0) == header_requests,
                 f"raw 64 KiB header lists: {raw} (grpc-status 8 = RESOURCE_EXHAUSTED wanted for all "
                 f"{header_requests})")
    result.note(f"after oversize headers the same connection: {followups.snapshot()}")

    md = [("authorization", f"Bearer {ADMIN_TOKEN}")]
    with grpc.insecure_channel(hub.target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        home = client_service_pb2_grpc.HomeServiceStub(channel)
        # A stock client with 64 KiB of metadata (grpcio may refuse it itself: noted, not judged).
        try:
            health.Check(health_pb2.HealthCheckRequest(), metadata=pad, timeout=5)
            result.note("grpcio 64 KiB metadata: answered OK (not refused)")
        except grpc.RpcError as error:
            result.note(f"grpcio 64 KiB metadata: {error.code().name}: {(error.details() or '')[:120]}")
        # 5 MiB messages on Health.Check and an authenticated RenameRoom; the channel must keep serving.
        codes, after = Counter(), Counter()
        big = "m" * (5 * MIB)
        for i in range(message_requests):
            try:
                if i % 2 == 0:
                    health.Check(health_pb2.HealthCheckRequest(service=big), timeout=10)
                else:
                    home.RenameRoom(client_service_pb2.RenameRoomRequest(room_id="nope", name=big), metadata=md,
                                    timeout=10)
                codes.add("OK")
            except grpc.RpcError as error:
                codes.add(error.code().name)
            try:
                health.Check(health_pb2.HealthCheckRequest(), timeout=5)
                after.add("OK")
            except grpc.RpcError as error:
                after.add(error.code().name)
    result.figures["message_statuses"] = codes.snapshot()
    result.check("message_resource_exhausted", codes.get("RESOURCE_EXHAUSTED") == message_requests,
                 f"5 MiB messages: {codes.snapshot()} (RESOURCE_EXHAUSTED wanted for all {message_requests})")
    result.check("message_connection_keeps_serving", after.get("OK") == message_requests,
                 f"Health.Check on the same channel after each: {after.snapshot()}")
    phases.end_attack()
    phases.after()
    finish(result, hub, phases, probe, FLOOD_RSS_MIB, FLOOD_RSS_MIB)


# ---------------------------------------------------------------------------------------------------------
# 4. CONTINUATION, SETTINGS and PING floods


def flood_payloads():
    block = encode_headers(request_headers(HEALTH_CHECK) +
                           [(f"x-flood-{i:05d}", "v" * 48) for i in range(8000)])
    pieces = [block[i:i + 1024] for i in range(0, len(block), 1024)][:500]
    continuation = frame(HEADERS, 0, 1, pieces[0]) + b"".join(frame(CONTINUATION, 0, 1, p) for p in pieces[1:])
    settings = b"".join(settings_frame([(rawh2.SETTINGS_ENABLE_PUSH, 0)]) for _ in range(10000))
    pings = b"".join(ping_frame(struct.pack(">Q", i)) for i in range(10000))
    return {"continuation": continuation, "settings": settings, "ping": pings}


def hub_reaction(sock, seconds):
    """Reads for up to `seconds`: 'GOAWAY <code>' if the hub sent one, else 'closed' or 'left it open'."""
    reader = rawh2.FrameReader()
    goaway = None
    deadline = time.monotonic() + seconds
    closed = False
    while time.monotonic() < deadline and not closed:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(1 << 16)
        except socket.timeout:
            break
        except OSError:
            closed = True
            break
        if not data:
            closed = True
            break
        for kind, _, _, payload in reader.feed(data):
            if kind == rawh2.GOAWAY and len(payload) >= 8:
                goaway = int.from_bytes(payload[4:8], "big")
    if goaway is not None:
        return f"sent GOAWAY {rawh2.H2_ERRORS.get(goaway, goaway)}" + (" and closed" if closed else "")
    return "closed it" if closed else "left it open"


def case_floods(ctx, result, env):
    """CONTINUATION, SETTINGS and PING floods over many short connections that never read."""
    total = ctx.scale(2000, 10000)
    hub, sampler, probe, _ = standard_start(env, result)
    payloads = flood_payloads()
    result.figures["bytes_per_connection"] = {k: len(v) for k, v in payloads.items()}
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    kinds = list(payloads)
    counts = Counter()
    next_index = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + ctx.scale(90, 300)
    opening = PREFACE + settings_frame()

    def worker(_):
        while time.monotonic() < deadline:
            with lock:
                i = next_index[0]
                if i >= total:
                    return
                next_index[0] += 1
            kind = kinds[i % len(kinds)]
            try:
                s = rawh2.connect(hub.port, timeout=3)
            except OSError as error:
                counts.add(f"{kind}: connect {type(error).__name__}")
                continue
            try:
                outcome = send_all(s, opening + payloads[kind], time.monotonic() + 3.0)
                counts.add(f"{kind}: {outcome}")
                if i % 10 < 3 and outcome == "ok":
                    # One connection in ten: what did the hub make of it (GOAWAY, closed, still open)?
                    counts.add(f"{kind}: sampled, hub {hub_reaction(s, 0.3)}")
            except OSError as error:
                counts.add(f"{kind}: {type(error).__name__}")
            finally:
                if i % 2:
                    close_with_reset(s)
                else:
                    s.close()

    phases.begin_attack()
    threads = run_threads(8, worker)
    join_all(threads, deadline + 10)
    phases.end_attack()
    done = sum(v for k, v in counts.snapshot().items() if "sampled" not in k)
    result.figures["outcomes"] = counts.snapshot()
    result.note("outcome per connection: ok = every byte written to the socket, closed = the hub reset "
                "it first, timeout = the hub stopped reading; 'sampled' = what the hub did next (3 in 10)")
    result.check("floods_completed", done == total, f"{done} of {total} connections within the time bound")
    phases.after()
    finish(result, hub, phases, probe, FLOOD_RSS_MIB, FLOOD_RSS_MIB)


# ---------------------------------------------------------------------------------------------------------
# 5. Partial messages


def partial_connection(port, streams, stop, counts, clients, max_streams=1000):
    """Keeps `streams` authenticated RenameRoom streams open on one connection, each announcing a 4 MiB
    message and sending 4 MiB - 1 KiB of it as flow control allows, never finishing. A stream the hub ends
    is replaced by a new one (at most `max_streams` in all), as a persistent attacker would; holds them
    until `stop`."""
    c = H2Client(port)
    clients.append(c)
    if not c.handshake():
        counts.add("no server SETTINGS")
        return
    limit = min(streams, c.conn.remote_settings.max_concurrent_streams or streams)
    remaining = {}
    opened = [0]

    def open_stream():
        try:
            stream = c.start_call(RENAME_ROOM, token=ADMIN_TOKEN)
            c.conn.send_data(stream, b"\0" + struct.pack(">I", 4 * MIB))
        except Exception as error:  # the connection refuses new streams: note it and stop opening
            counts.add(f"open failed: {type(error).__name__}")
            return False
        remaining[stream] = 4 * MIB - 1024
        opened[0] += 1
        counts.add("streams opened")
        return True

    for _ in range(limit):
        if not open_stream():
            break
    c.flush()
    zeros = bytes(16384)
    to_replace = 0
    while not stop.is_set() and c.terminated is None:
        progressed = False
        # Replacements wait for connection window for their 5-byte prefix.
        while to_replace and opened[0] < max_streams and c.conn.outbound_flow_control_window >= 5:
            to_replace -= 1
            if not open_stream():
                to_replace = 0
        for stream in list(remaining):
            if c.done(stream):
                reset = c.responses[stream]["reset"]
                counts.add(f"stream ended by the hub: grpc-status {c.status(stream)}"
                           + (f", RST_STREAM {getattr(reset, 'name', reset)}" if reset is not None else ""))
                del remaining[stream]
                to_replace += 1
                continue
            try:
                window = min(c.conn.local_flow_control_window(stream), c.conn.max_outbound_frame_size,
                             remaining[stream])
            except h2_errors():
                del remaining[stream]
                continue
            if window > 0:
                c.conn.send_data(stream, zeros[:window])
                remaining[stream] -= window
                counts.add("bytes sent", window)
                progressed = True
        if c.flush(time.monotonic() + 2.0) != "ok":
            counts.add("send blocked or closed")
            break
        c.pump(0.0 if progressed else 0.2)
    counts.add("streams held open at the end", sum(1 for s in remaining if not c.done(s)))
    counts.add("streams fully sent (4 MiB - 1 KiB)", sum(1 for s, r in remaining.items() if r == 0))
    if c.terminated:
        counts.add(f"connection ended: {c.terminated}")


def h2_errors():
    import h2.exceptions
    return (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError, KeyError)


def case_partial(ctx, result, env):
    """Partial messages: 100 streams on one connection, then more connections, each stream announcing
    4 MiB and sending almost all of it, never finishing."""
    duration = ctx.scale(12, 30)
    extra_connections = ctx.scale(4, 16)
    hub, sampler, probe, _ = standard_start(env, result)
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    stop = threading.Event()
    counts = Counter()
    phases.begin_attack()
    threads = [threading.Thread(target=partial_connection, args=(hub.port, 100, stop, counts, env.clients),
                                daemon=True)]
    threads[0].start()
    time.sleep(duration * 0.4)
    result.figures["bytes_after_one_connection_mib"] = round(counts.get("bytes sent") / MIB, 1)
    more = [threading.Thread(target=partial_connection, args=(hub.port, 100, stop, counts, env.clients),
                             daemon=True) for _ in range(extra_connections)]
    for t in more:
        t.start()
    threads += more
    time.sleep(duration * 0.6)
    stop.set()
    join_all(threads, time.monotonic() + 15)
    phases.end_attack()
    figures = counts.snapshot()
    figures["bytes sent"] = f"{figures.get('bytes sent', 0) / MIB:.1f} MiB"
    result.figures["partial"] = figures
    result.note(f"1 + {extra_connections} connections x 100 streams; sent {figures['bytes sent']} "
                f"of partial messages")
    for c in env.clients:
        c.close()
    env.clients.clear()
    phases.after()
    finish(result, hub, phases, probe, FLOOD_RSS_MIB, FLOOD_RSS_MIB)


# ---------------------------------------------------------------------------------------------------------
# 6. Stalled watchers


def open_watchers(port, streams, mode, counts):
    """One connection with `streams` Watch streams from 0. mode 'tiny': a 16-byte stream window never
    replenished (the socket is read and discarded); 'noread': huge windows and a socket never read."""
    big = 2 ** 31 - 1
    c = H2Client(port, initial_window=16 if mode == "tiny" else big)
    if mode == "noread":
        c.conn.increment_flow_control_window(big - 65535)
        c.flush()
    if not c.handshake():
        counts.add(f"{mode}: no SETTINGS exchange")
    limit = min(streams, c.conn.remote_settings.max_concurrent_streams or streams)
    request = watch_pb2.WatchRequest(from_revision=0).SerializeToString()
    opened = 0
    for _ in range(limit):
        try:
            stream = c.start_call(WATCH, token=ADMIN_TOKEN)
            c.conn.send_data(stream, rawh2.grpc_message(request), end_stream=True)
            opened += 1
        except Exception as error:
            counts.add(f"open failed: {type(error).__name__}")
            break
        if mode == "tiny":
            c.flush()
    c.flush()
    counts.add(f"{mode} streams opened", opened)
    return c


def case_watchers(ctx, result, env):
    """Stalled watchers: 1,000 Watch streams that never read while a grpcio driver reports changes."""
    streams = 1000
    duration = ctx.scale(12, 30)
    hub, sampler, probe, driver = standard_start(
        env, result, command_device=f"{DRIVER_ID}/lamp-0",
        driver={"devices": 20, "report_interval": 0.05})
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    counts = Counter()
    reports_before = driver.last.get("reports", 0)
    phases.begin_attack()
    tiny, noread = [], []
    per_connection = 100
    for i in range(streams // per_connection):
        mode = "tiny" if i % 2 == 0 else "noread"
        c = open_watchers(hub.port, per_connection, mode, counts)
        env.clients.append(c)
        (tiny if mode == "tiny" else noread).append(c)
    end = time.monotonic() + duration
    # Read (and discard, never returning window) on the tiny-window connections only.
    while time.monotonic() < end:
        for c in tiny:
            if c.terminated is None:
                c.pump(0.0, ack_data=False)
        time.sleep(0.1)
    phases.end_attack()
    reports_during = driver.last.get("reports", 0) - reports_before
    result.figures["watchers"] = counts.snapshot()
    result.figures["connections_ended_by_hub"] = sum(1 for c in tiny + noread if c.terminated)
    result.figures["driver_reports_during"] = reports_during
    peak_watch = max((m.get("hearth_watch_streams", 0) for m in sampler.metrics_between(
        phases.attack_start, phases.attack_end)), default=None)
    result.figures["hearth_watch_streams_peak"] = peak_watch
    result.note(f"{sum(v for k, v in counts.snapshot().items() if 'opened' in k)} watch streams opened "
                f"(hearth_watch_streams peak {peak_watch}); driver sent {reports_during} reports during the attack")
    for c in env.clients:
        close_with_reset(c.sock)
    env.clients.clear()
    # The driver is unaffected: its stream stayed up, and its reports kept landing (the hub revision
    # advanced in every second of the attack).
    state = driver.last
    result.check("driver_stream_up", driver.proc.poll() is None and not state.get("error") and
                 not state.get("ended"), f"driver state {state}")
    # The driver reports every 50 ms, so the hub revision (GetHub, every 100 ms) must keep moving: the
    # longest time it stood still during the attack is how long the driver's reports waited to land.
    stall, at = revision_stall(probe.between(phases.attack_start - 1.0, phases.attack_end), phases.attack_start,
                               phases.attack_end)
    result.figures["revision_stall_max_s"] = round(stall, 2)
    result.check("driver_reports_land", stall <= harness.ANSWER_WITHIN_MS / 1000.0,
                 f"the hub revision stood still at most {stall:.2f} s (from +{at:.1f} s into the attack) while "
                 f"the driver reported every 50 ms")
    phases.after()
    finish(result, hub, phases, probe, FLOOD_RSS_MIB, FLOOD_RSS_MIB, workers=[driver])


def revision_stall(samples, start, end):
    """The longest span within [start, end] in which no answered GetHub showed a newer revision, in seconds,
    and when (seconds after start) it began. Sampling every 100 ms makes it up to ~0.1 s long."""
    answered = sorted((s["t"] + s["ms"] / 1000.0, s["rev"]) for s in samples if s["kind"] == "gethub" and s["ok"])
    prior = [rev for t, rev in answered if t < start]
    last_rev = max(prior) if prior else None
    last_change = start
    worst, worst_at = 0.0, 0.0
    for t, rev in answered:
        if t < start or t > end:
            continue
        if last_rev is None or rev > last_rev:
            if t - last_change > worst:
                worst, worst_at = t - last_change, last_change - start
            last_change, last_rev = t, rev
    if end - last_change > worst:
        worst, worst_at = end - last_change, last_change - start
    return worst, worst_at


# ---------------------------------------------------------------------------------------------------------
# 7. Unauthenticated streams


def case_unauth(ctx, result, env):
    """Unauthenticated streams: 42 connections x 100 header-only calls, no token, no body, held open."""
    connections, per_connection = 42, 100
    duration = ctx.scale(10, 30)
    hub, sampler, probe, _ = standard_start(env, result)
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    counts = Counter()
    clients = []
    phases.begin_attack()
    for i in range(connections):
        try:
            c = H2Client(hub.port)
        except OSError as error:
            counts.add(f"connect failed: {type(error).__name__}")
            continue
        clients.append(c)
        env.clients.append(c)
        if not c.handshake(3.0):
            counts.add("no server SETTINGS")
            continue
        limit = min(per_connection, c.conn.remote_settings.max_concurrent_streams or per_connection)
        for j in range(limit):
            try:
                c.start_call(GET_HUB if j % 2 else WATCH)
                counts.add("streams opened")
            except Exception as error:
                counts.add(f"open failed: {type(error).__name__}")
                break
        c.flush()
    end = time.monotonic() + duration
    while time.monotonic() < end:
        for c in clients:
            if c.terminated is None:
                c.pump(0.0)
        time.sleep(0.1)
    phases.end_attack()
    statuses = Counter()
    for c in clients:
        for stream, r in c.responses.items():
            status = c.status(stream)
            if status is not None:
                statuses.add(f"grpc-status {status}" + (f" {c.message(stream)[:60]!r}" if status else ""))
            elif r["reset"] is not None:
                statuses.add(f"RST_STREAM {getattr(r['reset'], 'name', r['reset'])} without a status")
            else:
                statuses.add("still open, unanswered")
        if c.terminated:
            statuses.add(f"connection ended: {c.terminated}")
    result.figures["attack"] = counts.snapshot()
    result.figures["stream_outcomes"] = statuses.snapshot()
    result.note(f"unauthenticated streams: {statuses.snapshot()}")
    for c in clients:
        c.close()
    env.clients.clear()
    phases.after()
    finish(result, hub, phases, probe, FLOOD_RSS_MIB, FLOOD_RSS_MIB)


# ---------------------------------------------------------------------------------------------------------
# 8. Deeply nested vendor trait schemas


def vendor_schema(attribute_type, default_json=None):
    """A TraitSchema JSON (HearthModel's Codable form) with one attribute; built as text, since the nesting
    is deeper than any JSON library here will write."""
    default = "" if default_json is None else f', "defaultValue": {default_json}'
    return ('{"id": 4294114320, "name": "Nested", "namespace": "vendor:Abuse", "revision": 1, '
            '"description": "abuse suite", "enums": [], "bitmaps": [], "structs": [], '
            '"attributes": [{"id": 0, "name": "deep", "type": ' + json.dumps(attribute_type) +
            ', "access": "read", "nullable": false, "isOptional": false' + default +
            ', "constraints": {}, "description": ""}], '
            '"commands": [], "responses": [], "events": []}')


def announce_schema(target, token, schema_json, seconds=20.0):
    """Hello, Welcome, Announce(vendor_trait_schemas_json=[schema]); returns what came back:
    ("result", AnnounceResult) | ("failed", code name, details) | ("timeout", what was seen)."""
    outbox = queue.Queue()

    def requests():
        yield driver_service_pb2.DriverMessage(hello=driver_service_pb2.Hello(driver_version="abuse-nested"))
        while True:
            message = outbox.get()
            if message is None:
                return
            yield message

    with grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1),
                                                ("grpc.max_send_message_length", 16 * MIB)]) as channel:
        stub = driver_service_pb2_grpc.DriverServiceStub(channel)
        call = stub.Connect(requests(), metadata=[("authorization", f"Bearer {token}")], timeout=seconds)
        seen = []
        try:
            for message in call:
                kind = message.WhichOneof("kind")
                seen.append(kind)
                if kind == "welcome":
                    outbox.put(driver_service_pb2.DriverMessage(announce=driver_service_pb2.Announce(
                        vendor_trait_schemas_json=[schema_json])))
                elif kind == "announce_result":
                    return ("result", message.announce_result)
                elif kind == "rejection":
                    return ("rejection", message.rejection)
            return ("timeout", f"stream ended OK after {seen}")
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                return ("timeout", f"no answer within {seconds:.0f} s after {seen}")
            return ("failed", error.code().name, error.details())
        finally:
            outbox.put(None)
            call.cancel()


def case_nested_schema(ctx, result, env):
    """Deeply nested vendor trait schemas from a driver: `list:` x 100,000 as a type, a default value
    100,000 arrays deep (raw JSON arrays, and Value lists), and both again under 256 KiB: each rejected
    (INVALID_ARGUMENT in the announce result, or a failed stream), the hub stays up."""
    depth = 100_000
    attacks = [
        ("type list: x100k", vendor_schema("list:" * depth + "bool")),
        ("default [[...]] 100k deep", vendor_schema("list:bool", "[" * depth + "]" * depth)),
        ("default {list:[...]} 100k deep", vendor_schema("list:bool", '{"list": [' * depth + "]}" * depth)),
        # The same nesting kept under 256 KiB of JSON, so that a size limit alone cannot be what stops it:
        # the type parser's and the value decoder's own depth is tested too.
        ("type list: x50k (250 KB)", vendor_schema("list:" * 50_000 + "bool")),
        ("default {list:[...]} 20k deep (240 KB)", vendor_schema("list:bool", '{"list": [' * 20_000 + "]}" * 20_000)),
    ]
    hub, sampler, probe, _ = standard_start(env, result)
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    phases.begin_attack()
    crashed = False
    for label, schema in attacks:
        if not hub.alive():
            result.note(f"hub restarted (fresh data dir) before '{label}'")
            hub = env.hub(label=f"hub-{len(env.hubs)}")
        outcome = announce_schema(hub.target, DRIVER2_TOKEN, schema)
        if outcome[0] == "result":
            rejected = [r for r in outcome[1].rejected if r.subject == "vendor trait schema"]
            codes = sorted({r.code for r in rejected})
            ok = bool(rejected) and all(code == grpc.StatusCode.INVALID_ARGUMENT.value[0] for code in codes)
            detail = (f"announce result rejected it with code {codes}: {rejected[0].message[:100]!r}" if rejected
                      else "announce result accepted it (no rejection)")
        elif outcome[0] == "failed":
            ok = outcome[1] in ("INVALID_ARGUMENT", "RESOURCE_EXHAUSTED")
            detail = f"stream failed {outcome[1]}: {(outcome[2] or '')[:100]}"
        elif outcome[0] == "rejection":
            ok = outcome[1].code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
            detail = f"rejection {outcome[1].code}: {outcome[1].message[:100]}"
        else:
            ok, detail = False, outcome[1]
        time.sleep(0.5)
        alive = hub.alive()
        if not alive:
            crashed = True
            detail += f"; hub {hub.exit_description()} ({harness.tail(hub.log_path, 2)})"
        result.check(f"rejected: {label}", ok and alive, detail)
    phases.end_attack()
    if crashed:
        result.note("the hub died during the attack; RSS and healthy-client figures cover the first hub")
        hub = env.hubs[0]
    phases.after()
    finish(result, hub, phases, probe, FLOOD_RSS_MIB, FLOOD_RSS_MIB)


# ---------------------------------------------------------------------------------------------------------
# 9. kill -9 of a driver mid-stream, and of the hub during acknowledged renames


class DeviceWatch:
    """A grpcio watch from 0 on a thread, keeping each device's connectivity."""

    def __init__(self, target):
        self.connectivity = {}
        self.synced = threading.Event()
        self.cond = threading.Condition()
        self.channel = grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        stub = client_service_pb2_grpc.HomeServiceStub(self.channel)
        self.call = stub.Watch(watch_pb2.WatchRequest(), metadata=[("authorization", f"Bearer {ADMIN_TOKEN}")],
                               timeout=120)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        try:
            for response in self.call:
                with self.cond:
                    for change in response.changes:
                        if change.WhichOneof("kind") == "device":
                            self.connectivity[change.device.id] = change.device.connectivity
                    if response.synced:
                        self.synced.set()
                    self.cond.notify_all()
        except grpc.RpcError:
            pass

    def wait(self, predicate, seconds):
        with self.cond:
            return self.cond.wait_for(lambda: predicate(self.connectivity), timeout=seconds)

    def close(self):
        self.call.cancel()
        self.channel.close()


def case_kill9(ctx, result, env):
    """kill -9 of a driver mid-stream (its devices go offline, the hub fine) and of the hub during
    acknowledged renames (after a restart on the same data dir every acknowledged rename is there)."""
    devices = 10
    hub, sampler, probe, driver = standard_start(env, result, driver={"devices": devices, "report_interval": 0.05})
    ids = [f"{DRIVER_ID}/lamp-{i}" for i in range(devices)]
    phases = Phases(result, hub, sampler, probe)
    phases.mark_baseline()
    watch = DeviceWatch(hub.target)
    try:
        online = watch.wait(lambda c: all(c.get(d) == home_pb2.CONNECTIVITY_STATE_ONLINE for d in ids), 15)
        result.check("driver_devices_online", online, f"{devices} devices online before the kill")
        phases.begin_attack()
        driver.kill9()
        killed_at = time.monotonic()
        offline = watch.wait(lambda c: all(c.get(d) == home_pb2.CONNECTIVITY_STATE_OFFLINE for d in ids), 5)
        result.figures["devices_offline_after_s"] = round(time.monotonic() - killed_at, 3) if offline else None
        with watch.cond:
            states = {home_pb2.ConnectivityState.Name(v) for d, v in watch.connectivity.items() if d in ids}
        result.check("driver_devices_offline", offline,
                     f"all {devices} devices OFFLINE {result.figures['devices_offline_after_s']} s after kill -9"
                     if offline else f"after 5 s the devices are {states}")
        time.sleep(2.0)
        phases.end_attack()
    finally:
        watch.close()
    phases.after()
    phases.judge(None, None)
    check_alive(result, hub)
    probe.close()
    kill_hub_during_renames(ctx, result, env, hub)


def kill_hub_during_renames(ctx, result, env, hub):
    wanted_acks = ctx.scale(200, 2000)
    md = [("authorization", f"Bearer {ADMIN_TOKEN}")]
    with grpc.insecure_channel(hub.target) as channel:
        stub = client_service_pb2_grpc.HomeServiceStub(channel)
        rooms = [stub.CreateRoom(client_service_pb2.CreateRoomRequest(structure_id="home", name=f"room {i}"),
                                 metadata=md, timeout=10).id for i in range(40)]
    acked = {}
    acks = [0]
    lock = threading.Lock()
    stop = threading.Event()

    def writer(w):
        with grpc.insecure_channel(hub.target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
            stub = client_service_pb2_grpc.HomeServiceStub(channel)
            for rnd in range(100_000):
                if stop.is_set():
                    return
                room = rooms[(rnd * 4 + w) % len(rooms)]  # rooms of writer w: i % 4 == w
                name = f"w{w}-r{rnd}"
                try:
                    stored = stub.RenameRoom(client_service_pb2.RenameRoomRequest(room_id=room, name=name),
                                             metadata=md, timeout=5)
                except grpc.RpcError:
                    return  # the hub is gone
                with lock:
                    acked[room] = stored.name
                    acks[0] += 1

    threads = run_threads(4, writer)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with lock:
            if acks[0] >= wanted_acks:
                break
        time.sleep(0.01)
    hub.kill()
    result.note(f"hub killed by SIGKILL after {acks[0]} acknowledged renames")
    join_all(threads, time.monotonic() + 15)
    stop.set()
    with lock:
        acked_names = dict(acked)
        count = acks[0]
    result.check("renames_before_kill", count >= wanted_acks and len(acked_names) >= 20,
                 f"{count} renames acknowledged over {len(acked_names)} rooms before the kill")
    second = env.hub(label="hub-restarted", data_dir=hub.data_dir)
    result.figures["restart_s"] = round(second.start_seconds, 2)
    names = {}
    with grpc.insecure_channel(second.target) as channel:
        stub = client_service_pb2_grpc.HomeServiceStub(channel)
        call = stub.Watch(watch_pb2.WatchRequest(), metadata=md, timeout=30)
        try:
            for response in call:
                for change in response.changes:
                    if change.WhichOneof("kind") == "room":
                        names[change.room.id] = change.room.name
                if response.synced:
                    call.cancel()
                    break
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                result.check("restart_snapshot", False, f"watch after restart: {error.code().name}")
    lost = []
    for room, name in acked_names.items():
        stored = names.get(room)
        # A rename sent but not acknowledged before the kill may also have landed: same writer, later round.
        ok = False
        if stored and stored.startswith("w") and "-r" in stored:
            writer, _, rnd = stored.partition("-r")
            acked_writer, _, acked_rnd = name.partition("-r")
            ok = writer == acked_writer and int(rnd) >= int(acked_rnd)
        if not ok:
            lost.append(f"{room}: acked {name}, stored {stored}")
    result.check("acknowledged_renames_survive", not lost and len(names) >= 40,
                 f"all {len(acked_names)} acknowledged names present after restart ({len(names)} rooms)"
                 if not lost else f"{len(lost)} lost, e.g. {lost[:3]}")
    check_alive(result, second, "restarted_hub_alive")


# ---------------------------------------------------------------------------------------------------------

CASES = {
    "churn": case_churn,
    "slowloris": case_slowloris,
    "oversize": case_oversize,
    "floods": case_floods,
    "partial": case_partial,
    "watchers": case_watchers,
    "unauth": case_unauth,
    "nested-schema": case_nested_schema,
    "kill9": case_kill9,
}


def summary(fn):
    """A case's docstring's first paragraph, on one line."""
    return " ".join(fn.__doc__.strip().split("\n\n")[0].split())


def run_case(ctx, name):
    fn = CASES[name]
    result = CaseResult(name, summary(fn))
    env = Env(ctx, name)
    started = time.monotonic()
    print(f"== {name}: {result.description}", flush=True)
    try:
        fn(ctx, result, env)
    except KeyboardInterrupt:
        result.error = "interrupted"
        raise
    except Exception as error:
        result.error = f"{type(error).__name__}: {error}"
        with open(os.path.join(env.logs, "traceback.txt"), "w") as f:
            traceback.print_exc(file=f)
    finally:
        env.close()
        result.seconds = round(time.monotonic() - started, 1)
    for check, ok, detail in result.checks:
        print(f"   {'PASS' if ok else 'FAIL'} {check}: {detail}", flush=True)
    for note in result.notes:
        print(f"   note: {note}", flush=True)
    if result.error:
        print(f"   ERROR {result.error} (traceback in {env.logs}/traceback.txt)", flush=True)
    print(f"   -> {'PASS' if result.passed else 'FAIL'} in {result.seconds} s", flush=True)
    return result


def fmt(value):
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def short(text, limit=90):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def table(results):
    header = ("case", "result", "RSS base/peak/after MiB", "healthy p99/max ms", "notes")
    rows = []
    for r in results:
        during = r.probe.get("during") or {}
        rss = r.rss
        notes = "; ".join([f"{n}: {short(d)}" for n, d in r.failed_checks()] + ([short(r.error)] if r.error else []))
        rows.append((r.name, "PASS" if r.passed else "FAIL",
                     f"{fmt(rss.get('baseline_mib'))}/{fmt(rss.get('peak_mib'))}/{fmt(rss.get('after_mib'))}",
                     f"{fmt(during.get('p99_ms'))}/{fmt(during.get('max_ms'))}", notes or "all criteria met"))
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(4)]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(header[:4], widths)) + "  " + header[4]]
    lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 5)
    for row in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row[:4], widths)) + "  " + row[4])
    return "\n".join(lines)


def git(*args):
    try:
        return subprocess.run(["git", "-C", harness.ROOT] + list(args), capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except Exception:
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog="cases: " + ", ".join(CASES),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help="case names or numbers 1-9 (default: all)")
    parser.add_argument("--long", action="store_true", help="the issue's full figures (10,000 connections, ...)")
    parser.add_argument("--hub", default=os.environ.get("HEARTH_HUB",
                                                        os.path.join(harness.ROOT, ".build/debug/hearth-hub")))
    parser.add_argument("--out", help="results directory (default results/abuse/<time>)")
    parser.add_argument("--wait-for-hub", type=float, default=0, metavar="SECONDS",
                        help="wait up to SECONDS for the hub binary to appear (a build in progress)")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args()
    names = list(CASES)
    if args.list:
        for i, name in enumerate(names, 1):
            print(f"{i}. {name}: {summary(CASES[name])}")
        return 0
    selected = []
    for c in args.cases or names:
        if c.isdigit() and 1 <= int(c) <= len(names):
            c = names[int(c) - 1]
        if c not in CASES:
            parser.error(f"unknown case {c!r} (cases: {', '.join(names)})")
        selected.append(c)
    deadline = time.monotonic() + args.wait_for_hub
    while not os.access(args.hub, os.X_OK) and time.monotonic() < deadline:
        time.sleep(2)
    if not os.access(args.hub, os.X_OK):
        print(f"abuse: no hub binary at {args.hub} (swift build first, or --hub PATH / HEARTH_HUB)", file=sys.stderr)
        return 2
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = args.out or os.path.join(harness.ROOT, "results", "abuse", stamp)
    os.makedirs(out, exist_ok=True)
    ctx = Context(os.path.abspath(args.hub), out, args.long)
    environment = {
        "hub": ctx.hub_binary,
        "hub_mtime": datetime.datetime.fromtimestamp(os.path.getmtime(ctx.hub_binary)).isoformat(),
        "git_head": git("rev-parse", "HEAD"),
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "long": args.long,
        "cases": selected,
        "cpus": os.cpu_count(),
        "started": datetime.datetime.now().isoformat(),
    }
    print(f"abuse suite: {len(selected)} case(s) against {ctx.hub_binary} (built {environment['hub_mtime']}), "
          f"{'long' if args.long else 'CI'} figures; results in {out}", flush=True)
    results = []
    started = time.monotonic()

    def write():
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump({"environment": environment, "seconds": round(time.monotonic() - started, 1),
                       "passed": all(r.passed for r in results) and len(results) == len(selected),
                       "results": [r.to_json() for r in results]}, f, indent=2)

    try:
        for name in selected:
            results.append(run_case(ctx, name))
            write()
    except KeyboardInterrupt:
        print("abuse: interrupted; every process the suite started is killed", file=sys.stderr)
        write()
        return 130
    finally:
        harness.kill_children()
    print()
    print(table(results))
    failed = [r.name for r in results if not r.passed]
    print(f"\n{len(results) - len(failed)} passed, {len(failed)} failed ({round(time.monotonic() - started)} s); "
          f"results: {os.path.join(out, 'results.json')}")
    return 1 if failed else 0


def _terminate(signum, _frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _terminate)
    try:
        code = main()
    finally:
        harness.kill_children()
    sys.exit(code)
