#!/usr/bin/env python3
"""Tiled-bake measurements of issue 11: thread scaling, tiling overhead, the serial part
and the speed-up it implies on many cores, and large worlds with their peak memory.

  python3 bench/tiles_scaling.py [--build build] [--sizes 1936,4096] [--reps 5]
                                 [--threads 1,2] [--large 8192,16384] [--markdown]

1. Scaling and overhead (the tool, rounds of solo, tiled 1 thread, tiled 2 threads...
   interleaved so the shared machine's changing load falls on all alike): medians of the
   bake's wall time without the input (solo: the four stages; tiled: op_bake_tiled).
   Ratios: K threads vs 1 (tiled), and each vs solo (1-thread tiled vs solo is the tiling
   overhead; above 1 means faster than solo). The solo bake has no threads inside one
   grid yet (another issue's work), so its scaling is not measured here. The Google
   Benchmark cases of bench/bench_tiles.c time the same bakes (`onepath_bench
   --no-kernels --benchmark_filter=stage/tiled --tiled-demo=N`).
2. Serial part and projection (the tool's JSON, 1 thread, median of --reps runs): input
   (demo world generation) and output (the bake file), setup (validation, bounds,
   walkable marks), binning, the tile loop, assembly. Projected time on n cores:
   input + output + assembly (one thread) + (setup + binning) (/ n, or not at all for
   the pessimistic figure) + max(tile loop / n, slowest tile), and the speed-up over the
   1-thread total, for 2, 16 and 64 cores.
3. Large worlds (--large): the tool once per size with the largest thread count, wall
   time and peak RSS (getrusage, in the JSON).

The machine's load average (1 minute) is printed before and after each part: on a
shared machine, read ratios only from runs with a low load.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def bench(binary, sizes, threads, reps):
    filt = "stage/(tiled-256|solo)/.*/demo(%s)(/|$)" % "|".join(str(s) for s in sizes)
    cmd = [binary, "--no-kernels", "--benchmark_filter=" + filt,
           "--benchmark_repetitions=%d" % reps, "--benchmark_format=json",
           "--benchmark_report_aggregates_only=false"]
    cmd += ["--tiled-demo=%d" % s for s in sizes]
    cmd += ["--tiled-threads=%d" % t for t in threads]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    runs = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"].split("/min_time")[0].replace("/real_time", "")
        runs.setdefault(name, []).append(b["real_time"] / (1e6 if b["time_unit"] == "ns" else
                                                            1e3 if b["time_unit"] == "us" else 1))
    return {k: statistics.median(v) for k, v in runs.items()}, runs


def tool(binary, size, threads, out_file=None, tile=256):
    """One `onepath bake --demo` run; returns (json, wall s, cpu s of the child)."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "b.json")
        cmd = [binary, "bake", "--demo", "--demo-size", str(size), "--quiet", "--json", js]
        if tile:
            cmd += ["--tile-size", str(tile), "--threads", str(threads)]
        if out_file and tile:
            cmd += ["--out", os.path.join(d, "b.opbake")]
        t0 = time.monotonic()
        p = subprocess.Popen(cmd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        if status != 0:
            raise RuntimeError("%s failed (%d)" % (" ".join(cmd), status))
        with open(js) as f:
            return json.load(f), wall, ru.ru_utime + ru.ru_stime


def interleaved(binary, sizes, threads, reps):
    """Solo, then tiled with each thread count, repeated reps times in that order, so the
    machine's changing load falls on every case alike. Times are the JSON's: the solo
    bake's stages (spans..contours) and the tiled bake's op_bake_tiled wall time, both
    without generating the demo world; CPU seconds of the whole process besides."""
    rows = {}
    for s in sizes:
        for _ in range(reps):
            for t in [0] + threads:
                j, wall, cpu = tool(binary, s, t, tile=256 if t else 0)
                ms = j["ms"]
                bake = (ms["bake"] if t else
                        ms["spans"] + ms.get("distance", 0) + ms.get("regions", 0) +
                        ms.get("contours", 0))
                rows.setdefault((s, t), []).append((bake, cpu, load()))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--sizes", default="1936,4096")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--large", default="")
    ap.add_argument("--skip-bench", action="store_true")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",") if s]
    threads = [int(t) for t in a.threads.split(",") if t]
    onepath = os.path.join(a.build, "onepath")
    ob = os.path.join(a.build, "bench", "onepath_bench")

    if not a.skip_bench:
        rows = interleaved(onepath, sizes, threads, a.reps)
        print("## 1. Scaling and overhead (`onepath bake --demo`, %d interleaved rounds; "
              "medians)" % a.reps)
        print("| world | case | bake ms (median) | runs | CPU s | load during | vs 1-thread "
              "tiled | vs solo |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for s in sizes:
            med = {t: statistics.median(r[0] for r in rows[(s, t)]) for t in [0] + threads}
            for t in [0] + threads:
                r = rows[(s, t)]
                name = "solo" if t == 0 else "tiled-256/%dt" % t
                loads = [x[2] for x in r]
                print("| demo%d | %s | %.0f | %s | %.1f | %.1f-%.1f | %s | %.3f |" % (
                    s, name, med[t], " ".join("%.0f" % x[0] for x in r),
                    statistics.median(x[1] for x in r), min(loads), max(loads),
                    "%.3f" % (med[1] / med[t]) if t and 1 in med else "",
                    med[0] / med[t]))
        print()
    print("## 2. Serial part and projection (1 thread, median of %d tool runs)" % a.reps)
    for s in sizes:
        l0 = load()
        js = [tool(onepath, s, 1, out_file=True)[0] for _ in range(a.reps)]
        l1 = load()
        def m(path):
            vals = []
            for j in js:
                v = j
                for p in path:
                    v = v[p]
                vals.append(v)
            return statistics.median(vals)
        total = m(["ms", "total"])
        bake = m(["ms", "bake"])
        setup, binning, tiles, asm = (m(["ms", k]) for k in ("setup", "bin", "tiles", "assemble"))
        inp = total - bake  # demo generation and the bake file (outside op_bake_tiled)
        big = js[0]["tiles"]["largest"]
        count = js[0]["tiles"]["count"]
        print("demo%d (load %.2f -> %.2f): %d spans, %d tiles; total %.0f ms = input+output "
              "%.0f + setup %.0f + binning %.0f + tiles %.0f + assembly %.1f" % (
                  s, l0, l1, js[0]["spans"]["world"], count, total, inp, setup, binning,
                  tiles, asm))
        slow = m(["ms", "slowest_tile"])
        strict = inp + asm             # one thread whatever the count
        shared = setup + binning       # split over the threads (chunks), memory-bound
        for n in (2, 16, 64):
            # Pessimistic: setup and binning serial too. Expected: they split over the
            # threads. Either way the tile loop cannot be shorter than its slowest tile.
            pes = strict + shared + max(tiles / n, slow)
            exp = strict + shared / n + max(tiles / n, slow)
            print("  projected on %2d cores: %.1fx to %.1fx (%.0f to %.0f ms; serial %.0f ms "
                  "[input and output %.0f, assembly %.1f] + setup and binning %.0f ms + tiles "
                  "%.0f ms / n, at least the slowest tile %.0f ms)" % (
                      n, total / pes, total / exp, pes, exp, strict, inp, asm, shared, tiles, slow))
        print("  largest tile (%d, %d): %d spans, %d triangles" % (
            big["tx"], big["tz"], big["spans"], big["triangles"]))
    print()

    if a.large:
        print("## 3. Large worlds (%d threads)" % max(threads))
        for s in [int(x) for x in a.large.split(",") if x]:
            l0 = load()
            j, wall, cpu = tool(onepath, s, max(threads), out_file=True)
            print("demo%d (load %.2f): %d spans in %d tiles, %.1f s total (bake %.1f s), peak "
                  "RSS %.0f MiB (%.1f bytes per span)" % (
                      s, l0, j["spans"]["world"], j["tiles"]["count"], j["ms"]["total"] / 1e3,
                      j["ms"]["bake"] / 1e3, j["peak_rss_mib"],
                      j["peak_rss_mib"] * 1048576 / j["spans"]["world"]))


if __name__ == "__main__":
    sys.exit(main())
