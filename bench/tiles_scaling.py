#!/usr/bin/env python3
"""Tiled-bake measurements of issue 11: thread scaling (tiled and solo), tiling overhead,
the serial part and the speed-up it implies on many cores, large worlds with their peak
memory, and the solo bake's bytes per compact span.

  python3 bench/tiles_scaling.py [--build build] [--sizes 1936,4096] [--reps 5]
                                 [--threads 1,2] [--large 8192,16384] [--large-threads 2]
                                 [--save runs.json]

Everything goes through the tool (`onepath bake --demo ... --json`), whose JSON has wall
times (ms), CPU times of the process (cpu_ms: all threads; they do not grow when a loaded
machine makes the run wait), per-tile CPU times, the library's peak live bytes (the
counting allocator) and getrusage's peak RSS.

1. Scaling and overhead: rounds of solo and tiled (T = 256) runs with each thread count,
   interleaved so the shared machine's changing load falls on all alike; medians of the
   bake's wall time and CPU time (solo: the four stages' wall time, and the process CPU
   after the input was loaded; tiled: op_bake_tiled's), the 1-minute load average before
   each run. Ratios: K threads vs 1 (wall), 1-thread tiled vs 1-thread solo (wall and
   CPU: the tiling overhead), and CPU/wall of the K-thread runs (how many cores the run
   actually got: on a loaded machine a wall ratio is only as good as that).
2. Serial part and projection, from the 1-thread tiled runs' CPU costs (medians): input
   (demo world generation) and output (bake file) and assembly run on one thread; setup
   (validation, bounds, walkable marks) and binning are split over the threads (chunks);
   the tiles run on the team. Projected time on n cores: input + output + assembly +
   (setup + binning) / n + the tile loop, replayed as the library schedules it (dynamic,
   largest binned triangle count first) from each tile's measured CPU time; the
   pessimistic figure keeps setup and binning serial. Speed-up over the 1-thread total.
   The solo bake's stages per thread count, and Amdahl's law for the stages that have
   threads inside the grid (rasterizer, filters, compaction, contours) from the 1-thread
   run.
3. Large worlds (--large): one tiled run per size with --large-threads threads: wall and
   CPU time, peak RSS and the library's peak live bytes, bytes per span.
"""
import argparse
import heapq
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


def tool(binary, size, threads, tile, out_file=False):
    """One `onepath bake --demo` run; returns (json, wall s of the process, its CPU s)."""
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "b.json")
        cmd = [binary, "bake", "--demo", "--demo-size", str(size), "--quiet", "--json", js,
               "--threads", str(threads)]
        if tile:
            cmd += ["--tile-size", str(tile)]
            if out_file:
                cmd += ["--out", os.path.join(d, "b.opbake")]
        t0 = time.monotonic()
        p = subprocess.Popen(cmd)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        if status != 0:
            raise RuntimeError("%s failed (%d)" % (" ".join(cmd), status))
        with open(js) as f:
            return json.load(f), wall, ru.ru_utime + ru.ru_stime


def bake_times(j, tiled):
    """(wall ms, CPU ms) of the bake alone, without generating the input."""
    ms, cpu = j["ms"], j["cpu_ms"]
    if tiled:
        return ms["bake"], cpu["bake"]
    wall = ms["spans"] + ms.get("distance", 0) + ms.get("regions", 0) + ms.get("contours", 0)
    return wall, cpu["process"] - cpu["input"]


def interleaved(binary, sizes, threads, reps, save):
    rows = {}
    for rep in range(reps):
        for s in sizes:
            for tiled in (0, 1):
                for t in threads:
                    l0 = load()
                    j, _, _ = tool(binary, s, t, 256 if tiled else 0)
                    wall, cpu = bake_times(j, tiled)
                    rows.setdefault((s, tiled, t), []).append(
                        {"wall": wall, "cpu": cpu, "load": l0, "json": j})
                    print("  round %d demo%d %s %dt: %.0f ms wall, %.0f ms CPU, load %.1f" % (
                        rep + 1, s, "tiled" if tiled else "solo", t, wall, cpu, l0),
                        file=sys.stderr, flush=True)
    if save:
        with open(save, "w") as f:
            json.dump({"%d/%s/%d" % (k[0], "tiled" if k[1] else "solo", k[2]): v
                       for k, v in rows.items()}, f)
    return rows


def replay(costs, triangles, n):
    """The tile loop on n threads: tiles taken in the library's order (most binned
    triangles first, ties by index), each by the first thread free; the makespan."""
    order = sorted(range(len(costs)), key=lambda i: (-triangles[i], i))
    free = [0.0] * n
    heapq.heapify(free)
    for i in order:
        heapq.heappush(free, heapq.heappop(free) + costs[i])
    return max(free)


def part1(rows, sizes, threads):
    print("## 1. Scaling and overhead (medians of interleaved rounds; wall and CPU of the bake "
          "without the input)")
    print()
    print("| world | spans | case | wall ms | CPU ms | CPU/wall | load (1 min) | wall vs 1 thread "
          "| wall vs solo 1t | CPU vs solo 1t |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for s in sizes:
        solo1 = rows.get((s, 0, 1))
        for tiled in (0, 1):
            one = rows.get((s, tiled, 1))
            for t in threads:
                r = rows[(s, tiled, t)]
                w = statistics.median(x["wall"] for x in r)
                c = statistics.median(x["cpu"] for x in r)
                loads = [x["load"] for x in r]
                spans = (r[0]["json"]["spans"]["world"] if tiled else
                         r[0]["json"]["spans"]["compact"])
                vs1 = statistics.median(x["wall"] for x in one) / w if one else float("nan")
                vss = statistics.median(x["wall"] for x in solo1) / w if solo1 else float("nan")
                cvs = c / statistics.median(x["cpu"] for x in solo1) if solo1 else float("nan")
                print("| demo%d | %.1f M | %s %dt | %.0f | %.0f | %.2f | %.1f (%.1f-%.1f) | "
                      "%.2fx | %.2fx | %.3f |" % (
                          s, spans / 1e6, "tiled-256" if tiled else "solo", t, w, c,
                          statistics.median(x["cpu"] / x["wall"] for x in r),
                          statistics.median(loads), min(loads), max(loads), vs1, vss, cvs))
    print()
    print("Solo memory (the library's peak live bytes above the input, counting allocator; "
          "peak RSS of the process):")
    print()
    print("| world | threads | compact spans | peak live bytes | bytes per compact span | "
          "peak RSS MiB |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s in sizes:
        for t in threads:
            r = rows.get((s, 0, t))
            if not r:
                continue
            j = r[0]["json"]
            pk = statistics.median(x["json"]["memory"]["peak_bytes"] for x in r)
            rss = statistics.median(x["json"]["peak_rss_mib"] for x in r)
            n = j["spans"]["compact"]
            print("| demo%d | %d | %d | %.0f | %.1f | %.0f |" % (s, t, n, pk, pk / n, rss))
    print()


SOLO_THREADED = ("rasterize", "filters", "compact", "contours")  # stages with threads
SOLO_SERIAL = ("erode", "volumes", "distance", "regions")


def part1_solo(rows, sizes, threads):
    """The solo bake's stages (wall ms, medians) per thread count, and what the stages
    with threads inside the grid imply on n cores (Amdahl, from the 1-thread run)."""
    print("Solo stages (wall ms, medians; %s have threads inside the grid):" %
          ", ".join(SOLO_THREADED))
    print()
    stages = SOLO_THREADED + SOLO_SERIAL
    print("| world | threads | " + " | ".join(stages) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in stages) + " |")
    for s in sizes:
        for t in threads:
            r = rows.get((s, 0, t))
            if r:
                print("| demo%d | %d | %s |" % (s, t, " | ".join(
                    "%.0f" % statistics.median(x["json"]["ms"].get(k, 0) for x in r)
                    for k in stages)))
    print()
    for s in sizes:
        r = rows.get((s, 0, 1))
        if not r:
            continue
        par = statistics.median(sum(x["json"]["ms"].get(k, 0) for k in SOLO_THREADED) for x in r)
        ser = statistics.median(sum(x["json"]["ms"].get(k, 0) for k in SOLO_SERIAL) for x in r)
        print("demo%d solo, 1 thread: stages with threads %.0f ms (%.0f %%), without %.0f ms; "
              "Amdahl: %s" % (s, par, 100 * par / (par + ser), ser, ", ".join(
                  "%d cores %.2fx" % (n, (par + ser) / (ser + par / n)) for n in (2, 16, 64))))
    print()


def part2(rows, sizes):
    print("## 2. Serial part and projection (1-thread tiled runs, medians of CPU ms)")
    print()
    for s in sizes:
        r = rows.get((s, 1, 1))
        if not r:
            continue
        def med(f):
            return statistics.median(f(x["json"]) for x in r)
        inp = med(lambda j: j["cpu_ms"]["input"])
        out = med(lambda j: j["cpu_ms"]["process"] - j["cpu_ms"]["input"] - j["cpu_ms"]["bake"])
        setup = med(lambda j: j["cpu_ms"]["setup"])
        binning = med(lambda j: j["cpu_ms"]["bin"])
        tiles = med(lambda j: j["cpu_ms"]["tiles"])
        asm = med(lambda j: j["cpu_ms"]["assemble"])
        slow = med(lambda j: j["cpu_ms"]["slowest_tile"])
        j0 = r[len(r) // 2]["json"]
        costs, tris = j0["per_tile"]["cpu_ms"], j0["per_tile"]["triangles"]
        scale = tiles / max(sum(costs), 1e-9)  # that run's tile costs, scaled to the median
        costs = [c * scale for c in costs]
        total = inp + out + setup + binning + tiles + asm
        strict = inp + out + asm
        print("demo%d: %d tiles, %.1f M spans; 1-thread CPU %.0f ms = input %.0f + output and "
              "JSON %.0f + setup %.0f + binning %.0f + tiles %.0f + assembly %.1f; serial "
              "(one thread whatever the count) %.1f %%, setup and binning %.1f %%; slowest "
              "tile %.0f ms, mean tile %.1f ms" % (
                  s, len(costs), j0["spans"]["world"] / 1e6, total, inp, out, setup, binning,
                  tiles, asm, 100 * strict / total, 100 * (setup + binning) / total, slow,
                  tiles / len(costs)))
        print()
        bake = setup + binning + tiles + asm
        print("| cores | tile loop (replayed) ms | projected run ms | speed-up of the run | "
              "pessimistic (setup, binning serial) | speed-up of op_bake_tiled alone |")
        print("| --- | --- | --- | --- | --- | --- |")
        for n in (1, 2, 16, 64):
            loop = replay(costs, tris, n)
            exp = strict + (setup + binning) / n + loop
            pes = strict + setup + binning + loop
            print("| %d | %.0f | %.0f | %.2fx | %.2fx | %.2fx |" % (
                n, loop, exp, total / exp, total / pes, bake / ((setup + binning) / n + loop + asm)))
        print()


def part3(binary, sizes, threads):
    print("## 3. Large worlds (tiled, T = 256, %d threads, one run each)" % threads)
    print()
    print("| world | spans | tiles | wall s (bake) | CPU s (bake) | load | peak RSS MiB | "
          "input MiB | peak live MiB above it | RSS bytes per span |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for s in sizes:
        l0 = load()
        j, wall, cpu = tool(binary, s, threads, 256, out_file=True)
        n = j["spans"]["world"]
        print("| demo%d | %.1f M | %d | %.1f (%.1f) | %.1f (%.1f) | %.1f | %.0f | %.0f | %.0f | "
              "%.1f |" % (
                  s, n / 1e6, j["tiles"]["count"], wall, j["ms"]["bake"] / 1e3, cpu,
                  j["cpu_ms"]["bake"] / 1e3, l0, j["peak_rss_mib"],
                  j["memory"]["input_bytes"] / 1048576, j["memory"]["peak_bytes"] / 1048576,
                  j["peak_rss_mib"] * 1048576 / n), flush=True)
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--sizes", default="1936,4096")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--large", default="")
    ap.add_argument("--large-threads", type=int, default=2)
    ap.add_argument("--save", default="")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",") if s]
    threads = [int(t) for t in a.threads.split(",") if t]
    onepath = os.path.join(a.build, "onepath")
    print("load before: %.2f (%d CPUs)" % (load(), os.cpu_count()))
    print()
    if sizes and a.reps > 0:
        rows = interleaved(onepath, sizes, threads, a.reps, a.save)
        part1(rows, sizes, threads)
        part1_solo(rows, sizes, threads)
        part2(rows, sizes)
    if a.large:
        part3(onepath, [int(x) for x in a.large.split(",") if x], a.large_threads)
    print("load after: %.2f" % load())


if __name__ == "__main__":
    sys.exit(main())
