#!/usr/bin/env python3
"""Times the same per-stage cases on a build of the baseline commit and on this tree, in
one run, interleaved, and prints both columns and the ratio (issue 12).

usage: bench/compare.py [--sizes 1936,4096] [--cases rasterize,filters,...] [--holes 1000,10000]
                        [--repetitions K] [--rounds R] [--real] [--cpu N]
                        [--base-commit a495c93] [--base-dir build/compare-base]
                        [--base-bench PATH] [--new-build build] [--new-bench PATH]
                        [--no-build] [--quick] [--markdown] [--json OUT]
                        [--in-process [--base-src DIR] [--base-build DIR] [--ab-out DIR]
                                      [--shared-heap]]

Both sides run bench/compare/stages.c (onepath_compare_bench), compiled against each
tree's own library with that tree's own flags. The baseline is recreated from a clean
checkout when missing: `git worktree add --detach <base-dir>/src <commit>`, configured
with this tree's bench/compare/inject.cmake as CMAKE_PROJECT_INCLUDE (which adds the
bench target at the end of the baseline's CMakeLists.txt), and built in
<base-dir>/build. This tree's bench is built in --new-build (configured Release with
OP_BENCH=ON if it has no CMakeCache.txt yet).

Each (tree, case, size) is one process (`--benchmark_repetitions=K`); for every case the
two trees alternate, base first in odd rounds and new first in even rounds, so slow
drifts of a shared machine fall on both. A column is the median over all repetitions
of all rounds; the ratio is base ÷ new (> 1: the current tree is faster). Times are the
benchmark thread's CPU time by default (a loaded machine inflates wall time at random;
every case runs on one thread, OMP_NUM_THREADS=1), wall time with --real.

--in-process: both trees in one process instead (bench/compare/ab.py builds
<ab-out>/onepath_ab from the baseline's library, its symbols renamed, and this tree's;
the same cases, bench/compare/cases.c, as onepath_compare_bench), the two sides
alternating every repetition (which goes first alternates too), so that a change of the
machine's load falls on both. It needs the baseline's and this tree's static library
(built as above; --base-src/--base-build name another built baseline tree, used as it
is) instead of the two benches. A repetition there is one iteration (or as many as
--min-time seconds of CPU time take, their mean) where the separate benches' is Google
Benchmark's (iterations for at least 0.5 s wall time, their mean); --rounds multiplies
the repetitions; CPU time only. --no-build: run <ab-out>/onepath_ab as it is.

Every case also reports a hash of its output: "same" says both trees made the same
bytes (exit status 1 otherwise, or when a run failed). The bake case reports the peak
of live heap bytes during one bake (wrapped malloc, the same count on both sides) and
bytes per compact span.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

CASES = ["rasterize", "filters", "compact", "erode", "spans", "distance", "watershed",
         "monotone", "layers", "contours", "bake"]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def sh(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, **kw)


def build_base(a):
    src = os.path.join(a.base_dir, "src")
    bld = os.path.join(a.base_dir, "build")
    if not os.path.exists(os.path.join(src, "CMakeLists.txt")):
        sh(["git", "-C", ROOT, "worktree", "prune"])
        sh(["git", "-C", ROOT, "worktree", "add", "--detach", src, a.base_commit])
    if not os.path.exists(os.path.join(bld, "CMakeCache.txt")):
        sh(["cmake", "-S", src, "-B", bld, "-DCMAKE_BUILD_TYPE=Release", "-DOP_TESTS=OFF",
            "-DOP_BENCH=OFF", "-DOP_TOOLS=OFF",
            "-DCMAKE_PROJECT_INCLUDE=" + os.path.join(HERE, "compare", "inject.cmake")],
           stdout=subprocess.DEVNULL)
    sh(["cmake", "--build", bld, "--target", "onepath_compare_bench", "-j", str(a.jobs)])
    return os.path.join(bld, "onepath_compare_bench")


def build_new(a):
    bld = a.new_build
    if not os.path.exists(os.path.join(bld, "CMakeCache.txt")):
        sh(["cmake", "-S", ROOT, "-B", bld, "-DCMAKE_BUILD_TYPE=Release", "-DOP_BENCH=ON"],
           stdout=subprocess.DEVNULL)
    sh(["cmake", "--build", bld, "--target", "onepath_compare_bench", "-j", str(a.jobs)])
    return os.path.join(bld, "bench", "onepath_compare_bench")


def label_of(size):
    return size if str(size).startswith("holes-") else f"demo-{size}"


def run_one(a, bench, case, size):
    """size: a demo edge (int), or "holes-H" for the contour case on H holes."""
    field = ["--holes", size[6:]] if str(size).startswith("holes-") else ["--demo", str(size)]
    label = label_of(size)
    cmd = [bench] + field + ["--benchmark_format=json",
           f"--benchmark_filter=^compare/{case}/{label}(/|$)",
           f"--benchmark_repetitions={a.repetitions}"]
    if a.min_time:
        cmd.append(f"--benchmark_min_time={a.min_time}")
    if a.cpu is not None:
        cmd = ["taskset", "-c", str(a.cpu)] + cmd
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        data = json.loads(p.stdout)
    except ValueError:
        return {"error": f"exit {p.returncode}: {p.stderr.strip()[-300:]}"}
    out = {"times": [], "digest": None, "counters": {}}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        if b.get("error_occurred"):
            return {"error": b.get("error_message", "error")}
        out["times"].append(b["real_time"] if a.real else b["cpu_time"])
        out["digest"] = (int(b.get("digest_hi", -1)), int(b.get("digest_lo", -1)))
        for k in ("spans", "peak_bytes", "input_bytes"):
            if k in b:
                out["counters"][k] = b[k]
    if not out["times"]:
        return {"error": f"no result (exit {p.returncode}): {p.stderr.strip()[-300:]}"}
    return out


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1936,4096", help="demo world edges in cells")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ",".join(CASES))
    ap.add_argument("--holes", default="",
                    help="also the contour case on one region with this many holes (H,H,...)")
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--min-time", type=float, default=0.0, help="seconds per repetition")
    ap.add_argument("--real", action="store_true", help="wall time instead of CPU time")
    ap.add_argument("--cpu", type=int, help="pin both benches to this CPU (taskset)")
    ap.add_argument("--base-commit", default="a495c93")
    ap.add_argument("--base-dir", default=os.path.join(ROOT, "build", "compare-base"))
    ap.add_argument("--base-bench", help="a built baseline onepath_compare_bench (no build)")
    ap.add_argument("--new-build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--new-bench", help="a built onepath_compare_bench of this tree")
    ap.add_argument("--no-build", action="store_true", help="use the benches as they are")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: demo 512, every case once, short minimum time")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--json", metavar="OUT", help="save every measurement here")
    ap.add_argument("--in-process", action="store_true",
                    help="both trees in one program (a worker process per side and case), sides "
                         "alternating every repetition (bench/compare/ab.py)")
    ap.add_argument("--base-src", help="--in-process: a baseline source tree (headers)")
    ap.add_argument("--base-build", help="--in-process: its build, used as it is")
    ap.add_argument("--shared-heap", action="store_true",
                    help="--in-process: both sides in one process and heap, not a worker each")
    ap.add_argument("--ab-out", default=os.path.join(ROOT, "build", "compare-ab"),
                    help="--in-process: where onepath_ab is built")
    a = ap.parse_args(argv)
    if a.quick:
        a.sizes, a.repetitions, a.min_time = "512", 1, a.min_time or 0.05
    if a.in_process and (a.real or a.base_bench or a.new_bench):
        ap.error("--in-process times CPU time of the libraries: no --real, no benches")
    if bool(a.base_src) != bool(a.base_build):
        ap.error("--base-src and --base-build go together")
    a.sizes_list = [int(s) for s in a.sizes.split(",") if s]
    a.case_list = [c for c in a.cases.split(",") if c]
    a.holes_list = [f"holes-{int(h)}" for h in a.holes.split(",") if h]
    a.field_list = a.sizes_list + a.holes_list
    for c in a.case_list:
        if c not in CASES:
            ap.error(f"unknown case {c}")
    return a


def main(argv=None):
    a = parse(argv)
    sizes, cases, holes = a.sizes_list, a.case_list, a.holes_list
    pairs = [(size, case) for size in sizes for case in cases] + [(h, "contours") for h in holes]
    if a.in_process:
        sys.path.insert(0, os.path.join(HERE, "compare"))
        import ab
        exe = ab.exe_path(a) if a.no_build else ab.build(a)
        res = ab.measure(a, exe, pairs)
    else:
        res = measure(a, pairs)
    return report(a, pairs, res)


def base_label(a):
    """What the base column is: a given bench names itself by its path, a given source tree
    (--in-process) by its path and commit, else the commit compare.py built."""
    if a.base_bench:
        return a.base_bench
    if not (a.in_process and a.base_src):
        return a.base_commit
    try:
        rev = subprocess.run(["git", "-C", a.base_src, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        rev = ""
    return f"{a.base_src} ({rev})" if rev else a.base_src


def measure(a, pairs):
    """Separate processes: {(case, size, side): [run, ...]}."""
    base = a.base_bench or (os.path.join(a.base_dir, "build", "onepath_compare_bench")
                            if a.no_build else build_base(a))
    new = a.new_bench or (os.path.join(a.new_build, "bench", "onepath_compare_bench")
                          if a.no_build else build_new(a))
    res = {}  # (case, size, side) -> list of runs
    for r in range(a.rounds):
        for size, case in pairs:
            if True:
                order = [("base", base), ("new", new)]
                if r % 2:
                    order.reverse()
                for side, bench in order:
                    print(f"round {r + 1}/{a.rounds}: {case} {label_of(size)} {side}",
                          file=sys.stderr, flush=True)
                    res.setdefault((case, size, side), []).append(run_one(a, bench, case, size))
    return res


def report(a, pairs, res):
    failed = False
    rows = []
    for size, case in pairs:
        if True:
            row = {"case": case, "size": size}
            for side in ("base", "new"):
                runs = res.get((case, size, side), [{"error": "no result"}])
                errs = [x["error"] for x in runs if "error" in x]
                if errs:
                    row[side] = None
                    row[side + "_error"] = errs[0]
                    failed = True
                    continue
                row[side] = statistics.median([t for x in runs for t in x["times"]])
                row[side + "_digest"] = runs[-1]["digest"]
                row[side + "_digests"] = {x["digest"] for x in runs}
                row[side + "_counters"] = runs[-1]["counters"]
            same = (row.get("base") is not None and row.get("new") is not None and
                    len(row["base_digests"]) == 1 and row["base_digests"] == row["new_digests"])
            row["same"] = same
            failed |= not same
            rows.append(row)

    unit = "wall ms" if a.real else "CPU ms"
    hdr = ["stage", "field", f"base {unit}", f"new {unit}", "base/new", "bytes",
           "base peak MiB", "new peak MiB", "base B/span", "new B/span"]
    lines = []
    for row in rows:
        def ms(v):
            return "failed" if v is None else f"{v:.1f}"
        ratio = (f"{row['base'] / row['new']:.2f}x" if row.get("base") and row.get("new")
                 else "-")
        mem = ["", "", "", ""]
        if row["case"] == "bake" and row.get("base") is not None and row.get("new") is not None:
            cells = []
            for side in ("base", "new"):
                c = row[side + "_counters"]
                pk = c.get("peak_bytes", -1)
                cells.append(f"{pk / 2**20:.1f}" if pk >= 0 else "n/a")
            for side in ("base", "new"):
                c = row[side + "_counters"]
                pk, sp = c.get("peak_bytes", -1), c.get("spans", 0)
                cells.append(f"{pk / sp:.1f}" if pk >= 0 and sp else "n/a")
            mem = cells
        lines.append([row["case"], label_of(row['size']), ms(row.get("base")),
                      ms(row.get("new")), ratio, "same" if row["same"] else "DIFFER"] + mem)
    if a.markdown:
        print("| " + " | ".join(hdr) + " |")
        print("|" + "---|" * len(hdr))
        for l in lines:
            print("| " + " | ".join(l) + " |")
    else:
        w = [max(len(h), *(len(l[i]) for l in lines)) for i, h in enumerate(hdr)]
        print("  ".join(h.ljust(w[i]) for i, h in enumerate(hdr)))
        for l in lines:
            print("  ".join(v.ljust(w[i]) for i, v in enumerate(l)))
    for row in rows:
        for side in ("base", "new"):
            if row.get(side + "_error"):
                print(f"{row['case']} {label_of(row['size'])} {side}: {row[side + '_error']}",
                      file=sys.stderr)
    how = ("one program, sides alternating" + (" in one heap" if a.shared_heap else
                                                " in a worker process each")
           if a.in_process else "separate processes, interleaved")
    print(f"medians of {a.repetitions} repetitions x {a.rounds} rounds per side ({how}); "
          f"base = {base_label(a)}", file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"args": vars(a), "rows": [
                {k: (sorted(v) if isinstance(v, set) else v) for k, v in r.items()}
                for r in rows]}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
