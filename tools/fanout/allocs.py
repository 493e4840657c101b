#!/usr/bin/env python3
"""Allocation figures for tools/fanout/run.sh with FANOUT_ALLOCS=1.

  allocs.py count STAT_CSV PHASE_DIR        -> JSON: allocation calls of the server in the phase, per change
  allocs.py sites PERF_SCRIPT[.gz] PHASE_DIR TOP -> text: where the server's malloc calls came from, per change
  allocs.py table ROWS_JSONL                 -> text: the per-phase allocation table

The counts come from uprobes on libc's allocation functions (`perf stat -e probe_libc:*` attached to the
server for the phase); the sites from `perf record -e probe_libc:malloc --call-graph fp` of the same phase.
"""
import collections
import glob
import gzip
import json
import os
import re
import subprocess
import sys

ALLOCATORS = ("malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc")
# Frames that only pass an allocation on: the allocator, the Swift runtime's allocation entry points, and the
# standard library's buffer growth. The site is the first frame past these.
RUNTIME = (
    "libc_malloc", "libc_calloc", "libc_realloc", "posix_memalign", "aligned_alloc", "malloc", "calloc", "realloc",
    "swift_slowAlloc", "swift_allocObject", "swift_allocBox", "swift_initStackObject", "operator new",
)


def changes_of(phase_dir):
    """Changes the publishers sent in the phase (each is delivered once to every watcher)."""
    sent = 0
    for path in glob.glob(os.path.join(phase_dir, "pub-*.json")):
        for line in open(path):
            if line.startswith("{"):
                sent += json.loads(line).get("sent", 0)
    return max(1, sent)


def count(stat_csv, phase_dir):
    totals = collections.Counter()
    for line in open(stat_csv):
        parts = line.strip().split(",")
        if len(parts) < 3 or not parts[0].replace(".", "").isdigit():
            continue
        event = parts[2].split(":")[-1]
        totals[event] += int(float(parts[0]))
    changes = changes_of(phase_dir)
    calls = sum(totals[name] for name in ALLOCATORS)
    print(json.dumps({"allocations": calls, "by_function": dict(totals), "changes": changes,
                      "per_change": round(calls / changes, 2)}))


def demangle(symbols):
    """Full demangled names (module-qualified), or the symbols themselves when that fails."""
    names = list(symbols)
    if not names:
        return {}
    try:
        out = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(names),
                             capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        out = names
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


PREFIXES = re.compile(r"^(?:(?:implicit )?closure #\d+ (?:\([^)]*\) )?in |partial apply for |protocol witness for "
                      r"|merged |reabstraction thunk helper .*? from |outlined \w+ of |async function pointer to "
                      r"|\(extension in \w+\):|dispatch thunk of |static |type metadata accessor for )")


def owner(name):
    """The function's own module: `generic specialization <…> of Swift.Array.append` belongs to Swift."""
    while True:
        for lead in ("generic specialization ", "function signature specialization "):
            if name.startswith(lead):
                depth, i = 0, len(lead)
                while i < len(name):
                    depth += {"<": 1, ">": -1}.get(name[i], 0)
                    i += 1
                    if depth == 0:
                        break
                name = name[i:].removeprefix(" of ")
                break
        else:
            stripped = PREFIXES.sub("", name, count=1)
            if stripped == name:
                break
            name = stripped
    match = re.match(r"([A-Za-z_]\w*)\.", name)
    return match.group(1) if match else ("nghttp2" if name.startswith("nghttp2_") else "")


def short(name, width=110):
    return name if len(name) <= width else name[: width - 1] + "…"


def samples(path):
    """Yields each sample's frames as symbols, innermost first."""
    frames = []
    opener = gzip.open if path.endswith(".gz") else open
    for line in opener(path, "rt", errors="replace"):
        if not line.strip():
            if frames:
                yield frames
            frames = []
            continue
        if not line.startswith((" ", "\t")):
            continue
        parts = line.split(None, 1)
        if len(parts) < 2:
            continue
        symbol = parts[1].rstrip().rpartition(" (")[0].rsplit("+0x", 1)[0]
        frames.append(symbol)
    if frames:
        yield frames


def sites(script_path, phase_dir, top):
    """Per change: the first frame outside libc, the Swift runtime and the standard library (what allocated),
    and the first frame of Hearth's own modules above it (why)."""
    changes = changes_of(phase_dir)
    stacks = [frames for frames in samples(script_path)]
    names = demangle({f for frames in stacks for f in frames})
    by_site, by_pair = collections.Counter(), collections.Counter()
    for frames in stacks:
        full = [names.get(f, f) for f in frames]
        site = next((f for f in full if owner(f) not in ("", "Swift", "_Concurrency") and not any(r in f for r in RUNTIME)),
                    full[-1] if full else "?")
        mine = next((f for f in full if owner(f).startswith("Hearth") or owner(f) == "nghttp2"), "(no Hearth frame)")
        by_site[site] += 1
        by_pair[(mine, site)] += 1
    # The stacks are a sample (two seconds); the phase's exact malloc count scales their shares.
    counted = json.load(open(os.path.join(phase_dir, "allocs.json")))
    per_change = counted["by_function"].get("malloc", 0) / changes
    unit = per_change / max(len(stacks), 1)
    print(f"{per_change:.1f} malloc calls per change ({changes} changes); shares from {len(stacks)} sampled stacks")
    print(f"\nTop {top} allocating functions (first frame outside libc, the Swift runtime and the standard library):")
    for name, n in by_site.most_common(top):
        print(f"  {n * unit:6.2f}/change {100 * n / max(len(stacks), 1):5.1f}%  {short(name)}")
    print(f"\nTop {top} by the first Hearth (or nghttp2) frame, with what allocated under it:")
    for (mine, site), n in by_pair.most_common(top):
        print(f"  {n * unit:6.2f}/change {100 * n / max(len(stacks), 1):5.1f}%  {short(mine)}")
        if site != mine:
            print(f"{'':24}<- {short(site, 100)}")


def table(rows_path):
    rows = [json.loads(line) for line in open(rows_path) if line.strip()]
    print("| system | rate/s | watchers | allocation calls | changes | per change |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['system']} | {r['rate']} | {r['watchers']} | {r['allocations']:,} | {r['changes']:,} |"
              f" {r['per_change']:.2f} |")


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "count":
        count(sys.argv[2], sys.argv[3])
    elif command == "sites":
        sites(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif command == "table":
        table(sys.argv[2])
    else:
        sys.exit(__doc__)
