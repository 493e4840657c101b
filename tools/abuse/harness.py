"""The abuse suite's harness: hub processes on temp dirs, the healthy-client probe, RSS and metrics sampling,
per-case results and the cleanup that kills every process the suite started.

Nothing here attacks anything; the attacks live in run.py (one function per case) and rawh2.py (frames).
"""
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INTEROP = os.path.join(ROOT, "tools", "interop")
sys.path.insert(0, INTEROP)

MIB = 1024 * 1024
ADMIN_TOKEN = "abuse-admin"
VIEWER_TOKEN = "abuse-viewer"
DRIVER_ID = "drv"
DRIVER_TOKEN = "abuse-driver"
DRIVER2_ID = "drv2"
DRIVER2_TOKEN = "abuse-driver-2"

# A reply slower than this, or any failed call, fails the healthy-client check.
ANSWER_WITHIN_MS = 1000.0

# Every child process the suite started, so that any exit path kills them (by pid, one by one).
_children = []
_children_lock = threading.Lock()


def register_child(proc):
    with _children_lock:
        _children.append(proc)
    return proc


def kill_children():
    """SIGKILL every child still running and reap it. Safe to call more than once."""
    with _children_lock:
        procs = list(_children)
        _children.clear()
    for proc in procs:
        if proc.poll() is None:
            try:
                proc.kill()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def spawn(argv, **kwargs):
    """Popen under `setpriv --pdeathsig KILL` (the child dies with this process even when it is SIGKILLed;
    setpriv execs, so the pid is the child's own), in a session of its own (a Ctrl-C at the terminal
    reaches only this script, which then kills it)."""
    prefix = ["setpriv", "--pdeathsig", "KILL"] if _has_setpriv() else []
    proc = subprocess.Popen(prefix + list(argv), start_new_session=True, **kwargs)
    return register_child(proc)


_setpriv = None


def _has_setpriv():
    global _setpriv
    if _setpriv is None:
        _setpriv = any(os.access(os.path.join(d, "setpriv"), os.X_OK)
                       for d in os.environ.get("PATH", "/usr/bin:/bin").split(":"))
    return _setpriv


def python():
    return os.path.join(INTEROP, ".venv", "bin", "python")


# ---------------------------------------------------------------------------------------------------------
# The hub process


def default_config():
    return {
        "metrics_listen": "127.0.0.1:0",
        "structures": [{"id": "home", "name": "Home"}],
        "clients": [
            {"token": ADMIN_TOKEN, "user": "admin", "role": "admin", "structures": ["*"]},
            {"token": VIEWER_TOKEN, "user": "guest", "role": "viewer", "structures": ["home"]},
        ],
        "drivers": [
            {"id": DRIVER_ID, "token": DRIVER_TOKEN},
            {"id": DRIVER2_ID, "token": DRIVER2_TOKEN},
        ],
        "progress_interval_ms": 5000,
        "command_timeout_ms": 10000,
    }


def _port_of(address):
    """The port of a SocketAddress as the hub prints it: `[IPv4]127.0.0.1/127.0.0.1:40123`."""
    match = re.search(r":(\d+)$", address)
    if not match:
        raise RuntimeError(f"cannot read a port from {address!r}")
    return int(match.group(1))



def stop_worker(proc):
    """Ends a worker that reads its commands from stdin: close stdin (its cue to finish), wait 8 s, then kill."""
    if proc.poll() is None:
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=8)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

class Hub:
    """One hearth-hub process on a data dir of its own, loopback only, ports chosen by the kernel (port 0,
    read back from its METRICS and LISTENING lines)."""

    def __init__(self, binary, workdir, name, data_dir=None, config=None):
        self.binary = binary
        self.workdir = workdir
        self.name = name
        self.data_dir = data_dir or os.path.join(workdir, f"{name}-data")
        self.config = config or default_config()
        self.proc = None
        self.port = None
        self.metrics_port = None
        self.log_path = os.path.join(workdir, f"{name}.log")
        self.started_at = None

    @property
    def target(self):
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def start(self, timeout=30.0):
        os.makedirs(self.data_dir, exist_ok=True)
        config_path = os.path.join(self.workdir, f"{self.name}.json")
        with open(config_path, "w") as f:
            json.dump(self.config, f, indent=2)
        log = open(self.log_path, "ab")
        self.proc = spawn(
            [self.binary, "--config", config_path, "--data-dir", self.data_dir, "--listen", "127.0.0.1:0",
             "--log-level", "warning"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log)
        log.close()
        lines = []
        ready = threading.Event()

        def read_stdout():
            out = open(self.log_path, "ab", buffering=0)
            try:
                for raw in self.proc.stdout:
                    line = raw.decode(errors="replace").rstrip("\n")
                    out.write(b"stdout: " + raw)
                    if not ready.is_set():
                        lines.append(line)
                        if line.startswith("LISTENING "):
                            ready.set()
            finally:
                ready.set()
                out.close()

        threading.Thread(target=read_stdout, daemon=True, name=f"{self.name}-stdout").start()
        started = time.monotonic()
        ready.wait(timeout)
        if not any(line.startswith("LISTENING ") for line in lines):
            self.kill()
            raise RuntimeError(f"hub {self.name} did not print LISTENING within {timeout:.0f} s "
                               f"(exit {self.proc.poll()}; log {self.log_path}: {tail(self.log_path)})")
        for line in lines:
            if line.startswith("METRICS "):
                self.metrics_port = _port_of(line.split()[1])
            elif line.startswith("LISTENING "):
                self.port = _port_of(line.split()[1])
        self.started_at = time.monotonic()
        self.start_seconds = self.started_at - started
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def exit_description(self):
        code = self.proc.poll() if self.proc else None
        if code is None:
            return "running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    def rss_kib(self):
        return rss_kib(self.pid) if self.alive() else None

    def kill(self):
        """SIGKILL (no shutdown code runs) and reap."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
        if self.proc:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass

    def stop(self, grace=8.0):
        """SIGTERM, then SIGKILL after `grace` seconds."""
        if not self.proc or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()

    def metrics(self):
        return scrape_metrics(self.metrics_port) if self.metrics_port and self.alive() else None


def tail(path, lines=5):
    try:
        with open(path, "rb") as f:
            data = f.read()[-4000:].decode(errors="replace")
        return " | ".join(data.strip().splitlines()[-lines:])
    except OSError:
        return "(no log)"


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


# ---------------------------------------------------------------------------------------------------------
# Metrics


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)")


def scrape_metrics(port, timeout=2.0):
    """GET /metrics; {series: value} (series = name with its label set), or None when unreachable."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=timeout) as reply:
            text = reply.read().decode(errors="replace")
    except Exception:
        return None
    series = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = _SAMPLE.match(line)
        if match:
            try:
                series[match.group(1)] = float(match.group(2))
            except ValueError:
                pass
    return series


def session_series(metrics):
    """Gauges of live HTTP/2 sessions or connections: anything named like `session` except the driver
    sessions, plus `hearth_connections` (Docs/Hub.md: open HTTP/2 connections)."""
    if not metrics:
        return {}
    return {k: v for k, v in metrics.items()
            if ("session" in k and not k.startswith("hearth_driver_sessions")) or k == "hearth_connections"}


def buffered_series(metrics):
    """Gauges of bytes the hub holds for peers (partial messages, queued output): discovered by name."""
    if not metrics:
        return {}
    return {k: v for k, v in metrics.items()
            if k.startswith("hearth_") and "bytes" in k and not k.endswith(("_bucket", "_sum", "_count"))
            and any(word in k for word in ("buffer", "partial", "queued", "pending", "outbound", "inbound"))}


def wire_series(metrics):
    """Every hearth_wire_* series (reported in results.json as is)."""
    if not metrics:
        return {}
    return {k: v for k, v in metrics.items() if k.startswith("hearth_wire_")}


# ---------------------------------------------------------------------------------------------------------
# Sampling: RSS every 100 ms, metrics every second


class Sampler:
    """Samples the hub's VmRSS every `interval` s and its metrics every `metrics_every` s on a thread."""

    def __init__(self, hub, interval=0.1, metrics_every=1.0):
        self.hub = hub
        self.interval = interval
        self.metrics_every = metrics_every
        self.rss = []  # (monotonic, KiB)
        self.metrics = []  # (monotonic, {series: value})
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="sampler")

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self):
        next_metrics = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            kib = self.hub.rss_kib()
            if kib is not None:
                self.rss.append((now, kib))
            if now >= next_metrics:
                next_metrics = now + self.metrics_every
                m = self.hub.metrics()
                if m is not None:
                    self.metrics.append((time.monotonic(), m))
            self._stop.wait(self.interval)

    def rss_between(self, start, end):
        return [kib for t, kib in self.rss if start <= t < end]

    def metrics_between(self, start, end):
        return [m for t, m in self.metrics if start <= t < end]


# ---------------------------------------------------------------------------------------------------------
# The healthy client: a grpcio process of its own (workers.py probe), so the attacker's Python threads
# never delay its calls through the GIL.


class Probe:
    def __init__(self, hub, command_device=None, fresh_every=1.0, interval=0.1, max_seconds=600):
        self.hub = hub
        argv = [python(), os.path.join(HERE, "workers.py"), "probe", "--target", hub.target, "--token", ADMIN_TOKEN,
                "--interval", str(interval), "--fresh-every", str(fresh_every), "--max-seconds", str(max_seconds)]
        if command_device:
            argv += ["--command-device", command_device]
        self.samples = []  # dicts: t (monotonic start), kind, ms, ok, code, rev
        self.lock = threading.Lock()
        self.proc = spawn(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=open(os.path.join(hub.workdir, f"{hub.name}-probe.log"), "ab"))
        self._reader = threading.Thread(target=self._read, daemon=True, name="probe-reader")
        self._reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            try:
                sample = json.loads(raw)
            except ValueError:
                continue
            with self.lock:
                self.samples.append(sample)

    def wait_ready(self, timeout=15.0):
        """Until the first successful health answer (the channel is up)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if any(s["ok"] for s in self.samples):
                    return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def close(self):
        stop_worker(self.proc)
        self._reader.join(timeout=5)

    def between(self, start, end):
        with self.lock:
            return [s for s in self.samples if start <= s["t"] < end]


def latency_summary(samples):
    """p99/max of answered calls in ms, failures, and the slowest failures' descriptions."""
    ms = sorted(s["ms"] for s in samples)
    failures = [s for s in samples if not s["ok"]]
    slow = [s for s in samples if s["ok"] and s["ms"] > ANSWER_WITHIN_MS]
    summary = {
        "calls": len(samples),
        "p50_ms": round(percentile(ms, 50), 1) if ms else None,
        "p99_ms": round(percentile(ms, 99), 1) if ms else None,
        "max_ms": round(ms[-1], 1) if ms else None,
        "failed": len(failures),
        "over_1s": len(slow),
        "by_kind": {},
    }
    for kind in sorted({s["kind"] for s in samples}):
        kms = sorted(s["ms"] for s in samples if s["kind"] == kind)
        summary["by_kind"][kind] = {"calls": len(kms), "p99_ms": round(percentile(kms, 99), 1),
                                    "max_ms": round(kms[-1], 1),
                                    "failed": sum(1 for s in samples if s["kind"] == kind and not s["ok"])}
    codes = {}
    for s in failures:
        codes[f'{s["kind"]}:{s.get("code")}'] = codes.get(f'{s["kind"]}:{s.get("code")}', 0) + 1
    summary["failure_codes"] = codes
    return summary


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def median(values):
    return statistics.median(values) if values else None


# ---------------------------------------------------------------------------------------------------------
# Results


class CaseResult:
    def __init__(self, name, description):
        self.name = name
        self.description = description
        self.checks = []  # (name, ok, detail)
        self.notes = []
        self.rss = {"baseline_mib": None, "peak_mib": None, "after_mib": None}
        self.probe = {}
        self.metrics = {}
        self.figures = {}
        self.error = None
        self.seconds = None

    def check(self, name, ok, detail=""):
        self.checks.append((name, bool(ok), detail))
        return ok

    def skip(self, name, why):
        self.notes.append(f"skipped {name}: {why}")

    def note(self, text):
        self.notes.append(text)

    @property
    def passed(self):
        return self.error is None and bool(self.checks) and all(ok for _, ok, _ in self.checks)

    def failed_checks(self):
        return [(n, d) for n, ok, d in self.checks if not ok]

    def to_json(self):
        return {
            "case": self.name,
            "description": self.description,
            "passed": self.passed,
            "seconds": self.seconds,
            "error": self.error,
            "checks": [{"name": n, "ok": ok, "detail": d} for n, ok, d in self.checks],
            "notes": self.notes,
            "rss": self.rss,
            "healthy_client": self.probe,
            "metrics": self.metrics,
            "figures": self.figures,
        }


def mib(kib):
    return None if kib is None else round(kib / 1024.0, 1)


class Phases:
    """Times of one case's phases (monotonic) and the criteria shared by every case: the hub is alive and
    answers Health.Check, the probe's calls during and after the attack answered within 1 s, RSS growth
    during and after the attack within the case's bounds, and HTTP/2 sessions drained after all clients
    left."""

    def __init__(self, result, hub, sampler, probe):
        self.result = result
        self.hub = hub
        self.sampler = sampler
        self.probe = probe
        self.baseline_start = None
        self.attack_start = None
        self.attack_end = None
        self.after_start = None
        self.after_end = None
        self.baseline_metrics = None

    def mark_baseline(self, seconds=1.5):
        """Warm-up done: the baseline is the median RSS over the next `seconds`."""
        self.baseline_start = time.monotonic()
        time.sleep(seconds)
        self.baseline_metrics = self.hub.metrics()

    def begin_attack(self):
        self.attack_start = time.monotonic()

    def end_attack(self):
        self.attack_end = time.monotonic()

    def after(self, settle=2.0, seconds=1.5):
        """The attack's connections are closed: wait `settle`, then observe `seconds` of 'after'."""
        time.sleep(settle)
        self.after_start = time.monotonic()
        time.sleep(seconds)
        self.after_end = time.monotonic()

    def judge(self, peak_limit_mib, after_limit_mib, require_probe=True):
        r = self.result
        base = median(self.sampler.rss_between(self.baseline_start, self.attack_start))
        during = self.sampler.rss_between(self.attack_start, self.after_start or self.attack_end)
        after = median(self.sampler.rss_between(self.after_start, self.after_end)) if self.after_start else None
        peak = max(during) if during else None
        r.rss = {"baseline_mib": mib(base), "peak_mib": mib(peak), "after_mib": mib(after),
                 "peak_growth_mib": mib(peak - base) if peak is not None and base is not None else None,
                 "after_growth_mib": mib(after - base) if after is not None and base is not None else None,
                 "peak_limit_mib": peak_limit_mib, "after_limit_mib": after_limit_mib}
        if base is None:
            r.check("rss", False, "no baseline RSS sample (hub not running?)")
        else:
            if peak_limit_mib is not None:
                if peak is None:
                    r.check("rss_peak", False, "no RSS sample during the attack (hub gone?)")
                else:
                    growth = (peak - base) / 1024.0
                    r.check("rss_peak", growth <= peak_limit_mib,
                            f"peak growth {growth:.1f} MiB (limit {peak_limit_mib} MiB)")
            if after_limit_mib is not None:
                if after is None:
                    r.check("rss_after", False, "no RSS sample after the attack (hub gone?)")
                else:
                    growth = (after - base) / 1024.0
                    r.check("rss_after", growth <= after_limit_mib,
                            f"growth after {growth:.1f} MiB (limit {after_limit_mib} MiB)")
        if self.probe is not None and require_probe:
            during_s = self.probe.between(self.attack_start, self.after_start or self.attack_end)
            after_s = self.probe.between(self.after_start, self.after_end) if self.after_start else []
            d, a = latency_summary(during_s), latency_summary(after_s)
            r.probe = {"during": d, "after": a}
            self._probe_check("healthy_during", d)
            self._probe_check("healthy_after", a)
        # Metrics peaks for the record.
        during_m = self.sampler.metrics_between(self.attack_start, self.after_start or self.attack_end)
        r.metrics["baseline"] = {**session_series(self.baseline_metrics), **buffered_series(self.baseline_metrics),
                                 **wire_series(self.baseline_metrics)}
        peaks = {}
        for m in during_m:
            for k, v in {**session_series(m), **buffered_series(m), **wire_series(m)}.items():
                peaks[k] = max(peaks.get(k, v), v)
        r.metrics["peak_during"] = peaks

    def _probe_check(self, name, summary):
        r = self.result
        if summary["calls"] == 0:
            r.check(name, False, "the healthy client made no call in this window (probe stuck or dead)")
            return
        ok = summary["failed"] == 0 and summary["max_ms"] <= ANSWER_WITHIN_MS
        detail = (f"{summary['calls']} calls, p99 {summary['p99_ms']} ms, max {summary['max_ms']} ms, "
                  f"{summary['failed']} failed")
        if summary["failure_codes"]:
            detail += f" {summary['failure_codes']}"
        r.check(name, ok, detail)


def health_check(target, timeout=2.0):
    """A fresh channel's Health.Check: (ok, detail)."""
    import grpc
    from common import health_pb2, health_pb2_grpc
    with grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=timeout)
        except grpc.RpcError as error:
            return False, f"{error.code().name}: {error.details()}"
    name = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return name == "SERVING", name


def check_alive(result, hub, label="hub_alive"):
    if not hub.alive():
        result.check(label, False, f"hub process {hub.exit_description()} (log: {tail(hub.log_path, 3)})")
        return False
    ok, detail = health_check(hub.target)
    result.check(label, ok, f"process running, Health.Check {detail}")
    return ok


def check_drained(result, hub, timeout=10.0):
    """After every client has gone: the open-connection and HTTP/2 session gauges return to 0."""
    if not hub.alive():
        result.check("sessions_drained", False, "hub not running")
        return
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = hub.metrics()
        if last is not None:
            live = session_series(last)
            if live and all(v == 0 for v in live.values()):
                break
        time.sleep(0.25)
    live = session_series(last)
    if last is None:
        result.check("sessions_drained", False, "metrics endpoint did not answer")
        return
    if not any("session" in k for k in live):
        result.skip("wire session gauge", "no HTTP/2 session gauge on /metrics (grep 'session'); checked "
                    "hearth_connections only")
    buffered = buffered_series(last)
    if not buffered:
        result.skip("buffered bytes gauge", "no buffered-bytes gauge on /metrics")
    else:
        result.metrics["buffered_after"] = buffered
        result.check("buffers_drained", all(v == 0 for v in buffered.values()),
                     ", ".join(f"{k}={v:g}" for k, v in sorted(buffered.items())))
    result.metrics["sessions_after"] = live
    result.check("sessions_drained", bool(live) and all(v == 0 for v in live.values()),
                 ", ".join(f"{k}={v:g}" for k, v in sorted(live.items())) + f" (waited up to {timeout:.0f} s after the last "
                 "client left)" if live else "no connection or session gauge on /metrics")
