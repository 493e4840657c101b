"""Aggregates the fan-out benchmark's phases (see run.sh) and prints the side-by-side table.

    report.py phase OUT SYSTEM RATE K DEVICES DRIVERS SECONDS CLK_TCK QUIET BEFORE AFTER
                                       writes phase.json from run.sh's counter snapshots ("t hub mq server-busy runq client-busy")
    report.py row PHASE_DIR            one JSON line: the phase's figures from phase.json, pub-*.json, sub-*.json
    report.py table ROWS.jsonl META    the table on stdout; META (JSON) gets the rows added and is rewritten
"""
import glob
import json
import os
import sys


def load_lines(pattern):
    out = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    out.append(json.loads(line))
    return out


def phase(args):
    out, system, rate, k, devices, drivers, seconds, clk, quiet, before, after = args
    clk = int(clk)
    t0, hub0, mq0, busy0, runq0, client0 = before.split()
    t1, hub1, mq1, busy1, runq1, client1 = after.split()
    hub, mq = (int(hub1) - int(hub0)) / clk, (int(mq1) - int(mq0)) / clk
    server, other = (hub, mq) if system == "hearth" else (mq, hub)
    with open(out, "w") as f:
        json.dump(dict(system=system, rate=int(rate), watchers=int(k), devices=int(devices), drivers=int(drivers),
                       seconds=int(seconds), wall_s=float(t1) - float(t0), server_cpu_s=server, other_server_cpu_s=other,
                       # whatever else ran on the servers' CPU(s): other people's builds, the kernel's work
                       foreign_cpu_s=(int(busy1) - int(busy0)) / clk - hub - mq,
                       server_runq_s=(int(runq1) - int(runq0)) / 1e9, quiet_wait_s=int(quiet),
                       # everything that ran on the clients' CPU(s): ours and other people's
                       client_core_busy_s=(int(client1) - int(client0)) / clk), f)


def row(phase_dir):
    with open(os.path.join(phase_dir, "phase.json")) as f:
        phase = json.load(f)
    pubs = load_lines(os.path.join(phase_dir, "pub-*.json"))
    subs = load_lines(os.path.join(phase_dir, "sub-*.json"))
    k, d = phase["watchers"], phase["drivers"]
    r = dict(phase)
    r["pubs_reported"], r["subs_reported"] = len(pubs), len(subs)
    r["complete"] = len(pubs) == d and len(subs) == k and all(s["complete"] for s in subs)
    total = sum(s["deliveries"] for s in subs)
    per_watcher = total / k if k else 0
    r["deliveries_total"] = total
    r["deliveries_per_watcher"] = per_watcher
    r["deliveries_per_s_per_watcher"] = sum(s["deliveries_per_s"] for s in subs) / len(subs) if subs else 0
    # Latency: the worst watcher's percentiles (each watcher's list is exact; merging would need the lists).
    for key in ("p50_us", "p99_us", "p999_us", "max_us"):
        r[key] = max((s[key] for s in subs), default=0)
    for key in ("lost", "dup", "coalesced", "foreign", "resets"):
        r[key] = sum(s.get(key, 0) for s in subs)
    cpu_us = phase["server_cpu_s"] * 1e6
    r["server_cpu_us_per_change"] = cpu_us / per_watcher if per_watcher else None
    r["server_cpu_us_per_delivery"] = cpu_us / total if total else None
    wall = phase["wall_s"] or None
    r["server_cpu_pct"] = 100 * phase["server_cpu_s"] / wall if wall else None
    r["server_runq_pct"] = 100 * phase["server_runq_s"] / wall if wall else None
    r["foreign_cpu_pct"] = 100 * max(0.0, phase["foreign_cpu_s"]) / wall if wall else None
    r["server_core_pct"] = 100 * (phase["foreign_cpu_s"] + phase["server_cpu_s"] + phase["other_server_cpu_s"]) / wall \
        if wall else None
    r["sent"] = sum(p["sent"] for p in pubs)
    r["pub_max_lag_us"] = max((p["max_lag_us"] for p in pubs), default=0)
    r["pub_late_batches"] = sum(p["late_batches"] for p in pubs)
    r["pub_rejected"] = sum(p["rejected"] for p in pubs)
    r["pub_cpu_s"] = sum(p["cpu_s"] for p in pubs)
    r["sub_cpu_s"] = sum(s["cpu_s"] for s in subs)
    r["sub_cpu_max_s"] = max((s["cpu_s"] for s in subs), default=0)
    # The clients share their CPU(s): their CPU in percent of one core over the phase.
    r["clients_cpu_pct"] = 100 * (r["pub_cpu_s"] + r["sub_cpu_s"]) / wall if wall else None
    # Time our clients were runnable but not running, summed, in % of the phase: above a few %, they queued
    # for the CPU (theirs to share, or taken by other processes) and delays may be partly theirs.
    r["clients_runq_pct"] = 100 * sum(x.get("runq_s", 0) for x in pubs + subs) / wall if wall else None
    r["client_core_pct"] = 100 * phase["client_core_busy_s"] / wall if wall else None
    r["others_client_cpu_pct"] = max(0.0, r["client_core_pct"] - r["clients_cpu_pct"]) if wall else None
    r["noise_pct"] = round(max(r["foreign_cpu_pct"], r["others_client_cpu_pct"])) if wall else 0
    r["noisy"] = r["noise_pct"] > 20
    r["phase_dir"] = os.path.basename(os.path.normpath(phase_dir))
    return r


def ms(us):
    if us is None:
        return "-"
    value = us / 1000
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def num(x, digits=1):
    return "-" if x is None else f"{x:,.{digits}f}"


def ratio(a, b):
    return "-" if a is None or b in (None, 0) else f"{a / b:.2f}×"


def table(rows_path, meta_path):
    rows = load_lines(rows_path)
    with open(meta_path) as f:
        meta = json.load(f)
    head = ["rate/s", "K", "system", "deliv/s/watcher", "p50 ms", "p99 ms", "p99.9 ms", "max ms",
            "srv CPU %", "srv µs/change", "srv µs/delivery", "lost", "dup", "coalesced", "resets", "pub lag ms",
            "srv runq %", "others on srv CPU %", "clients CPU %", "clients runq %", "others on clients' CPU %"]
    lines = []
    keyed = {}
    for r in rows:
        keyed[(r["rate"], r["watchers"], r["system"])] = r
        flag = ("" if r["complete"] or r["system"] == "mosquitto" else " (incomplete)") + (" †" if r["noisy"] else "")
        lines.append([f"{r['rate']:,}", str(r["watchers"]), r["system"] + flag, num(r["deliveries_per_s_per_watcher"], 0),
                      ms(r["p50_us"]), ms(r["p99_us"]), ms(r["p999_us"]), ms(r["max_us"]),
                      num(r["server_cpu_pct"], 0), num(r["server_cpu_us_per_change"], 2),
                      num(r["server_cpu_us_per_delivery"], 2), f"{r['lost']:,}", f"{r['dup']:,}",
                      f"{r['coalesced']:,}", f"{r['resets']:,}", ms(r["pub_max_lag_us"]), num(r["server_runq_pct"], 0),
                      num(r["foreign_cpu_pct"], 0), num(r["clients_cpu_pct"], 0), num(r["clients_runq_pct"], 0),
                      num(r["others_client_cpu_pct"], 0)])
        h, m = keyed.get((r["rate"], r["watchers"], "hearth")), keyed.get((r["rate"], r["watchers"], "mosquitto"))
        if r["system"] in ("hearth", "mosquitto") and h and m:
            lines.append(["", "", "hearth/mosquitto",
                          ratio(h["deliveries_per_s_per_watcher"], m["deliveries_per_s_per_watcher"]),
                          ratio(h["p50_us"], m["p50_us"]), ratio(h["p99_us"], m["p99_us"]),
                          ratio(h["p999_us"], m["p999_us"]), ratio(h["max_us"], m["max_us"]),
                          ratio(h["server_cpu_pct"], m["server_cpu_pct"]),
                          ratio(h["server_cpu_us_per_change"], m["server_cpu_us_per_change"]),
                          ratio(h["server_cpu_us_per_delivery"], m["server_cpu_us_per_delivery"]),
                          "", "", "", "", "", "", "", "", "", ""])
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |",
           "|" + "|".join(("-" * (w + 1) + ":" if i not in (2,) else "-" * (w + 2)) for i, w in enumerate(widths)) + "|"]
    for x in lines:
        out.append("| " + " | ".join((c.ljust(w) if i == 2 else c.rjust(w)) for i, (c, w) in enumerate(zip(x, widths))) + " |")
    print("\n".join(out))
    meta["rows"] = rows
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=2)


def main():
    if len(sys.argv) == 13 and sys.argv[1] == "phase":
        phase(sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "row":
        print(json.dumps(row(sys.argv[2])))
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
