#!/usr/bin/env python3
"""Peak memory per phase of a bake, from the tool's allocation trace (issue 12).

    ONEPATH_MEMTRACE=trace.txt onepath bake --demo --demo-size 1936 --json out.json -q
    tools/memtrace.py trace.txt --spans N     (N: compact spans, from out.json)

The trace (tools/memcount.c) lists allocations, frees and progress reports in order.
Phases follow the progress reports: the spans stage's landmarks (rasterize and filters
until 0.85, compact until 0.9, erode until 0.95, volumes until 1.0), then distance,
regions, contours ("setup": after the input, before the first report). For each phase: its high-water mark of live bytes (the
input's arrays apart, as the JSON's peak_bytes) and the blocks live at that moment,
largest first, in bytes and bytes per compact span. The input is what was live at the
"input" mark."""
import argparse
import sys


def phase_of(stage, frac):
    # The rasterizer's last report may come before 0.8 (reports are per band), so
    # rasterize and filters are one phase.
    if stage == "spans":
        for end, name in ((0.85, "rasterize+filters"), (0.9, "compact"), (0.95, "erode"),
                          (1.0, "volumes")):
            if frac < end - 1e-9:
                return name
        return "spans-done"
    return stage


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--spans", type=int, default=0, help="compact spans (for bytes per span)")
    ap.add_argument("--top", type=int, default=14, help="blocks listed per phase")
    ap.add_argument("--summary", action="store_true", help="one line: each phase's peak")
    a = ap.parse_args()
    live = {}  # ptr -> (size, phase allocated)
    cur = 0
    phase = "setup"
    order = []
    peaks = {}  # phase -> (bytes, snapshot)
    base_live = set()
    input_bytes = None

    def note_peak():
        p = peaks.get(phase)
        if p is None or cur > p[0]:
            peaks[phase] = (cur, dict(live))

    with open(a.trace) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "+":
                live[parts[1]] = (int(parts[2]), phase)
                cur += int(parts[2])
                note_peak()
            elif parts[0] == "-":
                v = live.pop(parts[1], None)
                if v is not None:
                    cur -= v[0]
            elif parts[0] == "@":
                stage, frac = parts[1], float(parts[2])
                if stage == "input":
                    input_bytes = cur
                    base_live = set(live)
                    phase = "setup"
                    order, peaks = ["setup"], {}
                    note_peak()
                    continue
                ph = phase_of(stage, frac)
                if ph != phase:
                    phase = ph
                    if phase not in order:
                        order.append(phase)
                    note_peak()
    if input_bytes is None:
        sys.exit("memtrace: no input mark in the trace")
    n = a.spans

    def per_span(b):
        return f"{b / n:7.2f}" if n else "      -"

    overall = max((peaks[p][0] for p in order if p in peaks), default=0) - input_bytes
    if a.summary:
        print(" ".join(f"{p}={per_span(peaks[p][0] - input_bytes).strip()}" for p in order
                       if p in peaks and p not in ("setup", "spans-done", "done"))
              + f" peak={per_span(overall).strip()}")
        return
    print(f"input {input_bytes} bytes; peak above it {overall} bytes"
          + (f" = {overall / n:.2f} B/span ({n} spans)" if n else ""))
    for p in order:
        if p not in peaks:
            continue
        b, snap = peaks[p]
        print(f"\n{p}: peak {b - input_bytes} bytes = {per_span(b - input_bytes)} B/span")
        blocks = sorted(((sz, ph) for ptr, (sz, ph) in snap.items() if ptr not in base_live),
                        reverse=True)
        for sz, ph in blocks[: a.top]:
            print(f"  {sz:12d}  {per_span(sz)}  (from {ph})")
        rest = blocks[a.top:]
        if rest:
            r = sum(sz for sz, _ in rest)
            print(f"  {r:12d}  {per_span(r)}  ({len(rest)} more blocks)")


if __name__ == "__main__":
    main()
