#!/usr/bin/env python3
"""The hub at scale: registration, memory, load and cold start for N devices (tools/scale/run.sh runs it).

For each device count N, on a fresh data directory:
  1. the hub starts empty (RSS empty);
  2. D lean C drivers (tools/fanout's hearth_pub) announce N devices in all: the time from their start until
     every one has its AnnounceResult is "all online";
  3. idle for a few seconds: RSS idle, and bytes per device = (RSS idle - RSS empty) / N;
  4. K lean C watchers (hearth_sub) take the snapshot, then the drivers report R changes per second in all
     for T seconds: the peak RSS under load (sampled every 100 ms) and the watchers' p99;
  5. the idle hub's memory split by what holds it, from its /metrics gauges: heap in use (malloc), the
     retained change log, SQLite's caches, and the rest of the heap (graph records, trait values, indexes),
     less what the empty hub held;
  6. a clean stop (SIGTERM), then a restart over the same directory: process start to LISTENING, to a fresh
     watcher's full snapshot (its `synced` mark), and the RSS once that snapshot is out.
Prints two Markdown tables and writes them with the raw figures to OUT/table.md and OUT/results.json.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory(port, token):
    """The hub's memory gauges from /metrics on its gRPC port (any client token), in MiB."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={"authorization": f"Bearer {token}"})
    page = urllib.request.urlopen(request, timeout=30).read().decode()
    wanted = {"hearth_memory_heap_in_use_bytes": "heap_in_use", "hearth_memory_heap_free_bytes": "heap_free",
              "hearth_change_log_bytes": "change_log", "hearth_store_memory_bytes": "store"}
    figures = {}
    for line in page.splitlines():
        name, _, value = line.partition(" ")
        if name in wanted:
            figures[wanted[name]] = float(value) / (1024 * 1024)
    return figures


class Hub:
    def __init__(self, binary, config, data, log):
        self.started = time.monotonic()
        self.out = open(log + ".out", "w+")
        self.process = subprocess.Popen(
            [binary, "--config", config, "--data-dir", data, "--listen", "127.0.0.1:0", "--log-level", "warning"],
            stdout=self.out, stderr=open(log, "a"), stdin=subprocess.DEVNULL)
        self.port = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            self.out.seek(0)
            for line in self.out:
                if line.startswith("LISTENING "):
                    self.port = int(line.split()[1].rsplit(":", 1)[1])
                    self.listening = time.monotonic() - self.started
                    return
            if self.process.poll() is not None:
                sys.exit(f"scale: the hub exited ({self.process.returncode}); see {log}")
            time.sleep(0.002)
        sys.exit("scale: the hub printed no LISTENING line in 120 s")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=120)


def wait_ready(processes, marker, timeout):
    """Waits until every process printed `marker` on stderr (read from its log file); returns the time."""
    deadline = time.monotonic() + timeout
    pending = dict(processes)
    while pending:
        for log, process in list(pending.items()):
            with open(log) as f:
                if marker in f.read():
                    del pending[log]
            if process.poll() is not None and log in pending:
                sys.exit(f"scale: {log} exited early:\n" + open(log).read()[-2000:])
        if time.monotonic() > deadline:
            sys.exit(f"scale: {len(pending)} processes not {marker} in {timeout} s")
        time.sleep(0.005)
    return time.monotonic()


def run_one(args, n, out):
    work = tempfile.mkdtemp(prefix=f"hearth-scale-{n}-")
    drivers = args.drivers
    config = os.path.join(work, "hub.json")
    json.dump({"structures": [{"id": "home", "name": "Home"}],
               "clients": [{"token": f"watch-{i}", "user": f"w{i}", "role": "admin"} for i in range(args.watchers + 1)],
               "drivers": [{"id": f"scale{j}", "token": f"drv{j}"} for j in range(drivers)]}, open(config, "w"))
    data = os.path.join(work, "data")
    log = os.path.join(out, f"hub-{n}.log")
    row = {"devices": n, "drivers": drivers}

    hub = Hub(args.hub, config, data, log)
    time.sleep(1)
    row["rss_empty_mib"] = rss_mib(hub.process.pid)
    row["memory_empty"] = memory(hub.port, "watch-0")

    go = os.path.join(work, "go")
    pubs = {}
    started = time.monotonic()
    cpu_before = cpu_seconds(hub.process.pid)
    for j in range(drivers):
        err = os.path.join(work, f"pub-{j}.err")
        pubs[err] = subprocess.Popen(
            [args.pub, "--port", str(hub.port), "--token", f"drv{j}", "--driver-id", f"scale{j}", "--publisher", str(j),
             "--drivers", str(drivers), "--devices", str(n), "--rate", str(args.rate), "--seconds", str(args.seconds),
             "--go", go, "--max-seconds", "1800"],
            stdout=open(os.path.join(work, f"pub-{j}.json"), "w"), stderr=open(err, "w"))
    row["all_online_s"] = wait_ready(pubs, "READY", 1200) - started
    row["registration_hub_cpu_s"] = cpu_seconds(hub.process.pid) - cpu_before
    time.sleep(args.idle)
    row["rss_idle_mib"] = rss_mib(hub.process.pid)
    row["bytes_per_device"] = (row["rss_idle_mib"] - row["rss_empty_mib"]) * 1024 * 1024 / n
    row["memory_idle"] = memory(hub.port, "watch-0")

    if args.watchers > 0 and args.rate > 0:
        subs = {}
        for i in range(args.watchers):
            err = os.path.join(work, f"sub-{i}.err")
            subs[err] = subprocess.Popen(
                [args.sub, "--port", str(hub.port), "--token", f"watch-{i}", "--watcher", str(i), "--devices", str(n),
                 "--rate", str(args.rate), "--seconds", str(args.seconds), "--max-seconds", "1800"],
                stdout=open(os.path.join(work, f"sub-{i}.json"), "w"), stderr=open(err, "w"))
        wait_ready(subs, "READY", 1200)
        peak = rss_mib(hub.process.pid)
        open(go, "w").close()
        deadline = time.monotonic() + args.seconds + 120
        next_gauges = 0.0
        while any(p.poll() is None for p in subs.values()) and time.monotonic() < deadline:
            rss = rss_mib(hub.process.pid)
            if time.monotonic() >= next_gauges:
                # What holds the memory under load, kept from the sample with the highest RSS.
                gauges = memory(hub.port, "watch-0")
                next_gauges = time.monotonic() + 1
                if rss >= row.get("rss_at_gauges", 0):
                    row["rss_at_gauges"], row["memory_load"] = rss, gauges
            peak = max(peak, rss)
            time.sleep(0.1)
        row["rss_load_peak_mib"] = peak
        p99s, lost = [], 0
        for i in range(args.watchers):
            try:
                result = json.loads(open(os.path.join(work, f"sub-{i}.json")).read().strip().splitlines()[-1])
                p99s.append(result.get("p99_us", 0) / 1000)
                lost += result.get("lost", 0)
            except (IndexError, ValueError):
                lost = -1
        row["load_p99_ms"] = max(p99s) if p99s else None
        row["load_lost"] = lost
        for p in subs.values():
            if p.poll() is None:
                p.kill()
    for p in pubs.values():
        p.send_signal(signal.SIGTERM)
    for p in pubs.values():
        p.wait(timeout=60)
    hub.stop()

    restarted = Hub(args.hub, config, data, log)
    row["restart_listening_s"] = restarted.listening
    err = os.path.join(work, "sub-restart.err")
    watcher = subprocess.Popen(
        [args.sub, "--port", str(restarted.port), "--token", f"watch-{args.watchers}", "--watcher", "99",
         "--devices", str(n), "--rate", "1", "--seconds", "1", "--max-seconds", "600"],
        stdout=subprocess.DEVNULL, stderr=open(err, "w"))
    row["restart_snapshot_s"] = wait_ready({err: watcher}, "READY", 600) - restarted.started
    time.sleep(args.idle)
    row["rss_restart_mib"] = rss_mib(restarted.process.pid)
    watcher.kill()
    restarted.stop()
    if args.keep:
        print(f"scale: kept {work} (data directory and config of {n:,} devices)", file=sys.stderr)
    else:
        subprocess.run(["rm", "-rf", work])
    return row


def table(rows, args):
    lines = [
        f"| devices | drivers | all online | hub RSS empty | RSS idle | bytes/device | RSS peak at {args.rate}/s, "
        f"{args.watchers} watchers | watchers' p99 | restart: listening | restart: full snapshot | RSS after restart |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        load = f"{r['rss_load_peak_mib']:.0f} MiB" if "rss_load_peak_mib" in r else "-"
        p99 = f"{r['load_p99_ms']:.1f} ms" if r.get("load_p99_ms") is not None else "-"
        lines.append(
            f"| {r['devices']:,} | {r['drivers']} | {r['all_online_s']:.2f} s | {r['rss_empty_mib']:.0f} MiB | "
            f"{r['rss_idle_mib']:.0f} MiB | {r['bytes_per_device']:,.0f} | {load} | {p99} | "
            f"{r['restart_listening_s'] * 1000:.0f} ms | {r['restart_snapshot_s']:.2f} s | {r['rss_restart_mib']:.0f} MiB |")
    return "\n".join(lines)


def breakdown(rows):
    """Where the idle hub's memory is: the heap split by what the hub can count, the rest by subtraction."""
    lines = [
        "| devices | RSS idle | heap in use | of it: change log | of it: SQLite | of it: graph, indexes, rest "
        "(minus the empty hub's) | per device |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        m, e = r["memory_idle"], r["memory_empty"]
        rest = m["heap_in_use"] - m["change_log"] - m["store"] - (e["heap_in_use"] - e["change_log"] - e["store"])
        lines.append(
            f"| {r['devices']:,} | {r['rss_idle_mib']:.0f} MiB | {m['heap_in_use']:.0f} MiB | {m['change_log']:.1f} MiB | "
            f"{m['store']:.1f} MiB | {rest:.0f} MiB | {rest * 1024 * 1024 / r['devices']:,.0f} B |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hub", required=True)
    parser.add_argument("--pub", required=True)
    parser.add_argument("--sub", required=True)
    parser.add_argument("--devices", default="10000,100000")
    parser.add_argument("--drivers", type=int, default=50)
    parser.add_argument("--watchers", type=int, default=10)
    parser.add_argument("--rate", type=int, default=10000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--idle", type=float, default=3)
    parser.add_argument("--out", required=True)
    parser.add_argument("--keep", action="store_true",
                        help="keep each device count's data directory and config (to profile a restart over it)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for n in (int(x) for x in args.devices.split(",")):
        if n % args.drivers:
            sys.exit(f"scale: {n} devices is not a multiple of {args.drivers} drivers")
        print(f"scale: {n:,} devices from {args.drivers} drivers", file=sys.stderr, flush=True)
        rows.append(run_one(args, n, args.out))
        print(table(rows[-1:], args).splitlines()[-1], file=sys.stderr, flush=True)
    text = table(rows, args) + "\n\n" + breakdown(rows)
    print(text)
    open(os.path.join(args.out, "table.md"), "w").write(text + "\n")
    json.dump(rows, open(os.path.join(args.out, "results.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
