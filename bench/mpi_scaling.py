#!/usr/bin/env python3
"""Bakes beyond one machine (issue 14): bake --mpi on this machine, and a projection to
many nodes.

  python3 bench/mpi_scaling.py [--build build] [--size 4096] [--tile-size 256]
                               [--ranks 1,2,4] [--threads 1] [--reps 3] [--markdown]
                               [--project 16384] [--nodes 8,64] [--cores 16]

1. Rounds of: the one-process tiled bake (--threads T), then mpirun -n K ... --mpi
   --threads T for each K, interleaved so the shared machine's changing load falls on all
   alike; each writes --out (a real file) and --json. Medians over the rounds of: the
   wall time seen from outside (mpirun's start-up included) and rank 0's own (from
   MPI_Init to the end), bytes sent per tile (a tile's section), rank 0's gather time
   (checking, buffering, writing the sections), its time before the first tile is handed
   out and after the last one arrives, and the serial fraction (those two over the wall).
   Every run's build3d/tiles digest must equal the one-process bake's.
2. The projection of a --project world (the demo world at 16384 cells a side is about 280
   M spans) on N nodes of C cores, from the measured figures; what it assumes is printed
   with it.

The machine's load average is printed: on a shared machine, read ratios only from runs
with a low load.
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


MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
           "OMPI_MCA_rmaps_base_oversubscribe": "1",
           "OMPI_MCA_btl_base_warn_component_unused": "0"}


def run(cmd, env=None):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--tile-size", type=int, default=256)
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--project", type=int, default=16384)
    ap.add_argument("--nodes", default="8,64")
    ap.add_argument("--cores", type=int, default=16)
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    tool = os.path.abspath(os.path.join(a.build, "onepath"))
    ranks = [int(k) for k in a.ranks.split(",")]
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), **MPI_ENV)
    world = ["--demo", "--demo-size", str(a.size), "--tile-size", str(a.tile_size),
             "--threads", str(a.threads), "--quiet"]
    tmp = tempfile.mkdtemp(prefix="onepath-mpi-")
    print("load average before: %.2f (%d cores here)" % (load(), os.cpu_count()))
    rows = {"solo": []}
    for k in ranks:
        rows[k] = []
    digest = None
    for rep in range(a.reps):
        cases = ["solo"] + ranks
        for case in cases:
            out, js = os.path.join(tmp, "w.opbake"), os.path.join(tmp, "w.json")
            if case == "solo":
                cmd = [tool, "bake"] + world + ["--out", out, "--json", js]
            else:
                cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", str(case),
                       tool, "bake"] + world + ["--mpi", "--out", out, "--json", js]
            outside = run(cmd, env)
            j = json.load(open(js))
            d = j["digests"]["tiles"]
            if digest is None:
                digest = d
            if d != digest:
                sys.exit("digest of %s differs: %s vs %s" % (case, d, digest))
            r = {"outside": outside, "total": j["ms"]["total"], "bytes": os.path.getsize(out),
                 "tiles": j["tiles"]["count"], "spans": j["spans"]["compact"],
                 "busy": sum(j["ms"]["stages_summed_over_threads"].values()),
                 "setup": j["ms"]["setup"], "bin": j["ms"]["bin"],
                 "slowest": j["ms"].get("slowest_tile", 0)}
            if case != "solo":
                m = j["mpi"]
                r.update({k: m[k] for k in ("bytes_per_tile", "max_tile_bytes", "gather",
                                            "before_first_tile", "after_last_tile",
                                            "serial_fraction", "wall")})
                r["busy"] = sum(p["busy_summed_over_threads"] for p in m["per_rank"])
                r["load"] = m["per_rank"][0]["load"]
                r["rank_setup"] = m["per_rank"][0]["setup"] + m["per_rank"][0]["bin"]
                r["tiles_per_rank"] = [p["tiles"] for p in m["per_rank"]]
            rows[case].append(r)
        print("round %d done, load %.2f" % (rep + 1, load()), file=sys.stderr)
    print("load average after: %.2f" % load())

    def med(case, key):
        return statistics.median(r[key] for r in rows[case])

    solo = med("solo", "outside")
    print("\ndemo %d, tiles of %d: %d tiles, %d compact spans, file %d bytes, digest %s" %
          (a.size, a.tile_size, rows["solo"][0]["tiles"], rows["solo"][0]["spans"],
           rows["solo"][0]["bytes"], digest))
    head = ["case", "wall outside ms", "rank 0 wall ms", "vs 1 process", "bytes/tile",
            "gather ms", "before 1st tile ms", "after last ms", "serial fraction",
            "tiles per rank"]
    lines = [["1 process, %d thr" % a.threads, "%.0f" % solo, "%.0f" % med("solo", "total"),
              "1.00", "", "", "", "", "", ""]]
    for k in ranks:
        lines.append(["%d ranks x %d thr" % (k, a.threads), "%.0f" % med(k, "outside"),
                      "%.0f" % med(k, "wall"), "%.2f" % (solo / med(k, "outside")),
                      "%.0f" % med(k, "bytes_per_tile"), "%.1f" % med(k, "gather"),
                      "%.0f" % med(k, "before_first_tile"), "%.0f" % med(k, "after_last_tile"),
                      "%.3f" % med(k, "serial_fraction"),
                      "/".join(str(t) for t in rows[k][-1]["tiles_per_rank"])])
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for l in lines:
            print("| " + " | ".join(l) + " |")
    else:
        w = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]
        for l in [head] + lines:
            print("  ".join(x.rjust(w[i]) for i, x in enumerate(l)))

    # ---- projection -----------------------------------------------------------------
    k1 = ranks[0]
    spans = rows["solo"][0]["spans"]
    busy_per_span = statistics.median(r["busy"] / r["spans"] for r in rows["solo"])  # ms
    gather_per_byte = med(k1, "gather") / rows[k1][0]["bytes"]
    load_ms = med(k1, "load")
    setup_ms = med(k1, "rank_setup")
    tail_ms = med(k1, "after_last_tile")
    bytes_tile = med(k1, "bytes_per_tile")
    scale = (a.project / a.size) ** 2
    tiles = (a.project // a.tile_size) ** 2
    p_spans = spans * scale
    p_busy = busy_per_span * p_spans
    p_bytes = bytes_tile * tiles
    slowest = statistics.median(r["slowest"] for r in rows["solo"])
    print("\nprojection: demo %d (%.0f M compact spans, %d tiles of %d) on nodes of %d cores"
          % (a.project, p_spans / 1e6, tiles, a.tile_size, a.cores))
    print("  measured here (demo %d, medians): tile work %.3f us per compact span (one "
          "thread), slowest tile %.0f ms, input %.0f ms and setup + binning %.0f ms per rank "
          "(%d thread), %.0f bytes sent per tile, rank 0 gathers %.1f ns per byte, %.0f ms "
          "after the last tile" % (a.size, busy_per_span * 1e3, slowest, load_ms, setup_ms,
                                   a.threads, bytes_tile, gather_per_byte * 1e6, tail_ms))
    for n in [int(x) for x in a.nodes.split(",")]:
        cores = n * a.cores
        t_input = load_ms * scale  # every rank reads (generates) the whole input
        t_setup = setup_ms * scale / a.cores  # validation, marks, binning: threads share
        t_tiles = p_busy / cores + slowest  # the queue balances to within one tile
        t_gather = gather_per_byte * p_bytes  # overlapped unless it is the longer
        t_net = p_bytes / 1.0e9 * 1000.0 / 1  # rank 0's link at 1 GB/s, overlapped
        t_tail = tail_ms * scale
        total = t_input + t_setup + max(t_tiles, t_gather, t_net) + t_tail
        print("  %3d nodes (%4d cores): input %.1f s + setup/binning %.1f s + tiles %.1f s "
              "(gather %.1f s, network %.1f s, overlapped) + tail %.1f s = %.1f s; serial "
              "fraction %.2f" % (n, cores, t_input / 1e3, t_setup / 1e3, t_tiles / 1e3,
                                 t_gather / 1e3, t_net / 1e3, t_tail / 1e3, total / 1e3,
                                 (t_input + t_setup + t_tail) / total))
    print("  assumes: tile work and input time grow with the world's area (spans, triangles); "
          "the same per-span cost as this machine's core; setup and binning spread over the "
          "node's cores; the rank-0 queue balances to within one tile plus the slowest tile; "
          "rank 0's gather and a 1 GB/s link overlap the baking; input read (or generated) "
          "by every rank at the same speed as here (a shared file system that keeps up); "
          "the file's tail (WRLD rewrite, fsync, rename) grows with its size.")


if __name__ == "__main__":
    main()
