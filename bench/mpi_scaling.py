#!/usr/bin/env python3
"""Bakes beyond one machine (issue 14): bake --mpi and shards on this machine, and a
projection to many nodes.

  python3 bench/mpi_scaling.py [--build build] [--size 4096] [--tile-size 256]
                               [--ranks 1,2,4] [--threads 1] [--reps 3] [--markdown]
                               [--shards 2,4] [--no-spill]
                               [--project 16384] [--nodes 8,64] [--cores 16]
                               [--project-json BAKE.json] [--save RUNS.json] [--load RUNS.json]

1. Rounds of: the one-process tiled bake (--threads T); mpirun -n K ... --mpi --threads T
   for each K; the largest K again with --gather-mib 0 (every tile that arrives before its
   turn goes to the spill file: rank 0's gather memory at its floor); and for each N of
   --shards, the N shards K/N run one after the other (what N machines of a farm run side
   by side) and onepath merge. Interleaved, so the shared machine's changing load falls on
   all alike; each run writes --out (a real file) and --json. Every file must equal the
   one-process bake's byte for byte (cmp), and every digest its digest.
   Medians over the rounds of: the wall time seen from outside (mpirun's start-up
   included) and the CPU time of all its processes (getrusage of the children: CPU/wall
   is how many cores the run actually got, so a loaded machine shows), rank 0's own wall
   (MPI_Init to the end), bytes sent per tile (a tile's section), rank 0's gather time
   (checking, buffering, writing the sections) and what it held in memory and spilled, its
   time before the first tile is handed out and after the last one arrives and the serial
   fraction (those two over the wall), peak RSS of rank 0 and of the largest other rank.
   Shards: the sum of the N shards' walls against the one-process bake (the price of
   splitting: every shard loads the input, sets up and bins the whole world), the largest
   shard (a farm's wall time, with the merge), part sizes, and the merge's time.
2. The projection of a --project world (the demo world at 16384 cells a side is about 280
   M spans) on N nodes of C cores, one rank of C threads each, from the measured CPU
   times of the phases (a loaded machine stretches walls far more than CPU) and rank 0's
   measured gather; what it assumes is printed with it. With --project-json (the --json of
   a one-process bake of the projected world, e.g. `onepath bake --demo --demo-size 16384
   --tile-size 256 --json big.json`) the phases' CPU is that bake's instead of the
   measured world's scaled by area, and both are printed. --save keeps every run's figures,
   --load prints the tables and projection again from them without running.

The machine's load average is printed: on a shared machine, read ratios only alongside
CPU/wall.
"""
import argparse
import filecmp
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
           "OMPI_MCA_rmaps_base_oversubscribe": "1",
           "OMPI_MCA_btl_base_warn_component_unused": "0"}


def run(cmd, env=None):
    """Wall ms seen from outside and CPU ms (user + system) of every process it waited."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = (time.perf_counter() - t0) * 1000.0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000.0
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--tile-size", type=int, default=256)
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--shards", default="2,4", help="shard counts to split into ('' for none)")
    ap.add_argument("--no-spill", action="store_true", help="skip the --gather-mib 0 case")
    ap.add_argument("--project", type=int, default=16384)
    ap.add_argument("--nodes", default="8,64")
    ap.add_argument("--cores", type=int, default=16)
    ap.add_argument("--project-json", help="the --json of a one-process bake of the projected "
                    "world: its CPU per phase instead of the measured world's scaled by area")
    ap.add_argument("--save", help="write every run's figures to this JSON file")
    ap.add_argument("--load", help="read the runs from a --save file instead of running")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    tool = os.path.abspath(os.path.join(a.build, "onepath"))
    ranks = [int(k) for k in a.ranks.split(",")]
    shards = [int(n) for n in a.shards.split(",") if n]
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), **MPI_ENV)
    world = ["--demo", "--demo-size", str(a.size), "--tile-size", str(a.tile_size),
             "--threads", str(a.threads), "--quiet"]
    mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
    tmp = tempfile.mkdtemp(prefix="onepath-mpi-")
    solo_file = os.path.join(tmp, "solo.opbake")
    print("load average before: %.2f (%d cores here)" % (load(), os.cpu_count()))
    spill = None if a.no_spill else "%d spill" % max(ranks)
    cases = ["solo"] + ranks + ([spill] if spill else []) + ["shards %d" % n for n in shards]
    rows = {c: [] for c in cases}
    digest = None

    def same_bytes(path, what):
        if not filecmp.cmp(path, solo_file, shallow=False):
            sys.exit("%s: the file differs from the one-process bake's" % what)

    def check_digest(d, what):
        nonlocal digest
        if digest is None:
            digest = d
        if d != digest:
            sys.exit("%s: digest %s, the one-process bake's %s" % (what, d, digest))

    for rep in range(0 if a.load else a.reps):
        for case in cases:
            out, js = os.path.join(tmp, "w.opbake"), os.path.join(tmp, "w.json")
            if isinstance(case, str) and case.startswith("shards"):
                n = int(case.split()[1])
                r = {"walls": [], "cpus": [], "prep": [], "part_bytes": 0}
                for k in range(1, n + 1):
                    part = os.path.join(tmp, "part%d.opbake" % k)
                    wall, cpu = run([tool, "bake"] + world + ["--tiles", "%d/%d" % (k, n),
                                                              "--out", part, "--json", js], env)
                    j = json.load(open(js))
                    r["walls"].append(wall)
                    r["cpus"].append(cpu)
                    # what every shard repeats: the input, setup and binning of the world
                    r["prep"].append(j["cpu_ms"]["input"] + j["ms"]["setup"] + j["ms"]["bin"])
                    r["part_bytes"] += os.path.getsize(part)
                parts = [os.path.join(tmp, "part%d.opbake" % k) for k in range(1, n + 1)]
                r["merge"], mcpu = run([tool, "merge"] + parts + ["--out", out, "--quiet"])
                same_bytes(out, case)
                for p in parts:
                    os.remove(p)
                r["outside"] = sum(r["walls"]) + r["merge"]
                r["cpu"] = sum(r["cpus"]) + mcpu
                rows[case].append(r)
                continue
            if case == "solo":
                cmd = [tool, "bake"] + world + ["--out", out, "--json", js]
            else:
                k = case if isinstance(case, int) else int(case.split()[0])
                cmd = mpirun + ["-n", str(k), tool, "bake"] + world + [
                    "--mpi", "--out", out, "--json", js]
                if case == spill:
                    cmd += ["--gather-mib", "0"]
            outside, cpu = run(cmd, env)
            j = json.load(open(js))
            check_digest(j["digests"]["tiles"], str(case))
            if case == "solo":
                shutil.copyfile(out, solo_file)
            else:
                same_bytes(out, "%s ranks" % case)
            r = {"outside": outside, "cpu": cpu, "total": j["ms"]["total"],
                 "bytes": os.path.getsize(out), "tiles": j["tiles"]["count"],
                 "spans": j["spans"]["compact"],
                 "busy": sum(j["ms"]["stages_summed_over_threads"].values()),
                 "setup": j["ms"]["setup"], "bin": j["ms"]["bin"],
                 "slowest": j["ms"].get("slowest_tile", 0), "rss0": j["peak_rss_mib"],
                 "rss_other": 0}
            if case == "solo":  # CPU per phase (a loaded machine stretches walls, not CPU)
                cj = j["cpu_ms"]
                r.update({"cpu_input": cj["input"], "cpu_prep": cj["setup"] + cj["bin"],
                          "cpu_tiles": cj["tiles"], "cpu_slowest": cj["slowest_tile"]})
            if case != "solo":
                m = j["mpi"]
                r.update({x: m[x] for x in ("bytes_per_tile", "max_tile_bytes", "gather",
                                            "before_first_tile", "after_last_tile",
                                            "serial_fraction", "wall",
                                            "gather_held_peak_bytes", "gather_spilled_tiles",
                                            "gather_spilled_bytes")})
                pr = m["per_rank"]
                r["busy"] = sum(p["busy_summed_over_threads"] for p in pr)
                r["load"] = pr[0]["load"]
                r["rank_setup"] = pr[0]["setup"] + pr[0]["bin"]
                r["tiles_per_rank"] = [p["tiles"] for p in pr]
                r["rss0"] = pr[0]["peak_rss_mib"]
                r["rss_other"] = max([p["peak_rss_mib"] for p in pr[1:]] or [0])
            rows[case].append(r)
        print("round %d done, load %.2f" % (rep + 1, load()), file=sys.stderr)
    print("load average after: %.2f" % load())
    if a.load:
        saved = json.load(open(a.load))
        rows = {int(k) if k.isdigit() else k: v for k, v in saved["rows"].items()}
        digest = saved["digest"]
        print("runs read from %s (%s)" % (a.load, saved["args"]))
    elif a.save:
        with open(a.save, "w") as f:
            json.dump({"args": " ".join(sys.argv[1:]), "digest": digest,
                       "rows": {str(k): v for k, v in rows.items()}}, f, indent=1)

    def med(case, key):
        return statistics.median(r[key] for r in rows[case])

    def table(head, lines):
        if a.markdown:
            print("| " + " | ".join(head) + " |")
            print("|" + " --- |" * len(head))
            for l in lines:
                print("| " + " | ".join(l) + " |")
        else:
            w = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
            for l in [head] + lines:
                print("  ".join(x.rjust(w[i]) for i, x in enumerate(l)))

    solo = med("solo", "outside")
    s0 = rows["solo"][0]
    print("\ndemo %d, tiles of %d: %d tiles, %d compact spans, file %d bytes, digest %s; "
          "every file below is byte for byte the one-process file; medians of %d rounds" %
          (a.size, a.tile_size, s0["tiles"], s0["spans"], s0["bytes"], digest, a.reps))
    head = ["case", "wall outside ms", "CPU ms", "CPU/wall", "rank 0 wall ms", "vs 1 process",
            "bytes/tile", "gather ms", "gather held MiB", "spilled tiles (MiB)",
            "before 1st tile ms", "after last ms", "serial fraction", "RSS rank 0 / other MiB",
            "tiles per rank"]
    lines = [["1 process, %d thr" % a.threads, "%.0f" % solo, "%.0f" % med("solo", "cpu"),
              "%.2f" % (med("solo", "cpu") / solo), "%.0f" % med("solo", "total"), "1.00",
              "", "", "", "", "", "", "", "%.0f" % med("solo", "rss0"), ""]]
    for c in ranks + ([spill] if spill else []):
        k = c if isinstance(c, int) else int(c.split()[0])
        name = "%d ranks x %d thr" % (k, a.threads) + (", --gather-mib 0" if c == spill else "")
        lines.append([name, "%.0f" % med(c, "outside"), "%.0f" % med(c, "cpu"), "%.2f" % (med(c, "cpu") / med(c, "outside")),
                      "%.0f" % med(c, "wall"), "%.2f" % (solo / med(c, "outside")),
                      "%.0f" % med(c, "bytes_per_tile"), "%.1f" % med(c, "gather"),
                      "%.2f" % (med(c, "gather_held_peak_bytes") / 2**20),
                      "%.0f (%.2f)" % (med(c, "gather_spilled_tiles"),
                                       med(c, "gather_spilled_bytes") / 2**20),
                      "%.0f" % med(c, "before_first_tile"), "%.0f" % med(c, "after_last_tile"),
                      "%.3f" % med(c, "serial_fraction"),
                      "%.0f / %.0f" % (med(c, "rss0"), med(c, "rss_other")),
                      "/".join(str(t) for t in rows[c][-1]["tiles_per_rank"])])
    table(head, lines)

    if shards:
        print("\nshards (K/N one after the other, then onepath merge; CPU: shards and merge; "
              "medians):")
        head = ["N", "sum of shards ms", "vs 1 process", "CPU ms", "CPU vs 1 process",
                "largest shard ms", "1 process / largest",
                "input+setup+bin per shard ms", "parts MiB (whole %.2f)" % (s0["bytes"] / 2**20),
                "merge ms", "merge MiB/s"]
        lines = []
        for n in shards:
            c = "shards %d" % n
            tot = statistics.median(sum(r["walls"]) for r in rows[c])
            big = statistics.median(max(r["walls"]) for r in rows[c])
            prep = statistics.median(statistics.mean(r["prep"]) for r in rows[c])
            mrg = med(c, "merge")
            cpu = med(c, "cpu")
            lines.append(["%d" % n, "%.0f" % tot, "%.2f" % (tot / solo), "%.0f" % cpu,
                          "%.2f" % (cpu / med("solo", "cpu")), "%.0f" % big,
                          "%.2f" % (solo / big), "%.0f" % prep,
                          "%.2f" % (med(c, "part_bytes") / 2**20), "%.0f" % mrg,
                          "%.0f" % (s0["bytes"] / 2**20 / (mrg / 1000.0))])
        table(head, lines)

    # ---- projection -----------------------------------------------------------------
    # From CPU times (the 1-thread one-process bake's phases), which a loaded machine
    # stretches far less than walls; rank 0's gather and tail as measured (walls).
    k1 = ranks[0]
    spans = s0["spans"]
    cpu_input = med("solo", "cpu_input")
    cpu_prep = med("solo", "cpu_prep")
    cpu_tiles = med("solo", "cpu_tiles")
    cpu_slowest = med("solo", "cpu_slowest")
    ovh = med(k1, "cpu") / med("solo", "cpu")  # the MPI path's CPU (mpirun, polling, sends)
    gather_per_byte = med(k1, "gather") / rows[k1][0]["bytes"]
    tail_ms = med(k1, "after_last_tile")
    bytes_tile = med(k1, "bytes_per_tile")
    scale = (a.project / a.size) ** 2
    tiles = (a.project // a.tile_size) ** 2
    p_bytes = bytes_tile * tiles
    p_spans = spans * scale
    # CPU of the projected world's phases: the measured world's scaled by area, or measured.
    p_input, p_prep, p_tiles, p_slowest = (cpu_input * scale, cpu_prep * scale,
                                           cpu_tiles * scale, cpu_slowest)
    if a.project_json:
        pj = json.load(open(a.project_json))
        c = pj["cpu_ms"]
        p_spans, tiles = pj["spans"]["compact"], pj["tiles"]["count"]
        p_bytes = bytes_tile * tiles
        print("\n%s: the projected world measured (CPU ms, %d threads): input %.0f, setup + "
              "binning %.0f, tiles %.0f, slowest tile %.0f; scaled from demo %d by area "
              "they would be %.0f, %.0f, %.0f" % (a.project_json, pj["tiles"]["threads"],
                                                   c["input"], c["setup"] + c["bin"], c["tiles"],
                                                   c["slowest_tile"], a.size, p_input, p_prep,
                                                   p_tiles))
        p_input, p_prep, p_tiles, p_slowest = (c["input"], c["setup"] + c["bin"], c["tiles"],
                                               c["slowest_tile"])
    print("\nprojection: demo %d (%.0f M compact spans, %d tiles of %d), one rank of %d threads "
          "per node" % (a.project, p_spans / 1e6, tiles,
                        pj["tiles"]["tile_size"] if a.project_json else a.tile_size, a.cores))
    print("  measured here (demo %d, 1 thread, CPU medians): input %.0f ms, setup + binning "
          "%.0f ms, tiles %.0f ms (%.3f us per compact span), slowest tile %.0f ms; %d rank(s) "
          "vs 1 process: %.2fx the CPU; %.0f bytes sent per tile; rank 0 gathers %.1f ns per "
          "byte and takes %.0f ms after the last tile (walls)"
          % (a.size, cpu_input, cpu_prep, cpu_tiles, cpu_tiles / spans * 1e3, cpu_slowest, k1,
             ovh, bytes_tile, gather_per_byte * 1e6, tail_ms))
    one_core = p_input + p_prep + p_tiles
    print("  one core: %.0f s (%s)" % (one_core / 1e3, "CPU measured on the projected world"
                                        if a.project_json else "scaled by area"))
    for n in [1] + [int(x) for x in a.nodes.split(",")]:
        cores = n * a.cores
        t_input = p_input  # every rank reads (generates) the whole input
        t_setup = p_prep / a.cores  # validation, marks, binning: threads share
        t_tiles = p_tiles * ovh / cores + p_slowest  # the queue: within a tile
        t_gather = gather_per_byte * p_bytes  # overlapped unless it is the longer
        t_net = p_bytes / 1.0e9 * 1000.0  # rank 0's link at 1 GB/s, overlapped
        t_tail = tail_ms * scale
        total = t_input + t_setup + max(t_tiles, t_gather, t_net) + t_tail
        print("  %3d node%s (%4d cores): input %.1f s + setup/binning %.1f s + tiles %.1f s "
              "(gather %.1f s, network %.2f s, overlapped) + tail %.1f s = %.1f s, %.0fx one "
              "core; serial fraction %.2f"
              % (n, "s" if n > 1 else " ", cores, t_input / 1e3, t_setup / 1e3, t_tiles / 1e3,
                 t_gather / 1e3, t_net / 1e3, t_tail / 1e3, total / 1e3, one_core / total,
                 (t_input + t_setup + t_tail) / total))
    print("  assumes: %sa node's core as fast as this machine's; "
          "setup and binning spread over a node's threads, the input read (generated) on one "
          "thread by every rank side by side (a shared file system that keeps up); the "
          "MPI path's CPU overhead as measured with %d rank(s) here, on the tile work; the "
          "rank-0 queue balances to within the slowest tile; rank 0's gather and a 1 GB/s "
          "link overlap the baking; the tail (WRLD rewrite, fsync, rename) grows with the "
          "world." % ("" if a.project_json else "input, setup, binning and tile work grow "
                      "with the world's area (the demo world's triangles and spans do); ", k1))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
