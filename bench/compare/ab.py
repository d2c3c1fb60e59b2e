#!/usr/bin/env python3
"""Builds and runs onepath_ab: the baseline commit's library and this tree's in one
process, every per-stage case of bench/compare.py alternating between the two, outputs
compared by hash every repetition (issue 12).

usage: bench/compare/ab.py [--sizes 1936,4096] [--cases erode,distance,...] [--holes H,...]
                           [--repetitions K] [--min-time S] [--only new|base] [--markdown]
                           [--json OUT] [--base-dir build/compare-base] [--base-src DIR]
                           [--base-build DIR] [--new-build build] [--out build/compare-ab]
                           [--no-build] [--cpu N]

This is `bench/compare.py --in-process` (same options, same table); --stages is an old
name of --cases, and --only runs one side alone (for a profiler, nothing compared).

bench/compare.py runs each tree in its own process; on a shared machine its ratios
swing with the load between the runs. Here a change of load falls on both sides.

Building: the cases are bench/compare/cases.c, the same source that
onepath_compare_bench (compare.py's separate processes) runs. It is compiled against
each tree's headers; the baseline's copy and the baseline library are joined into one
relocatable object (`ld -r`, which takes only the archive members it needs) whose global
symbols are then renamed base_* (objcopy --redefine-syms), and linked with ab_main.c,
heap.c (the peak-heap counter, one for both sides), this tree's cases.c and this tree's
library into <out>/onepath_ab, malloc & co. wrapped at link time as in
onepath_compare_bench. The baseline tree is the one compare.py makes (`git worktree add`
of a495c93 into <base-dir>/src, built in <base-dir>/build; made here the same way when
missing); --base-src/--base-build name another built tree instead (its library is then
used as it is, not rebuilt). Needs a static library in both trees (the default) and GNU
binutils.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))

WRAP = ["malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign"]


def sh(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, **kw)


def base_paths(a):
    src = a.base_src or os.path.join(a.base_dir, "src")
    bld = a.base_build or os.path.join(a.base_dir, "build")
    return src, bld


def exe_path(a):
    return os.path.join(a.ab_out, "onepath_ab")


def build(a):
    """Builds both libraries (unless --base-build names a built tree) and links
    <out>/onepath_ab; returns its path."""
    base_src, base_bld = base_paths(a)
    if not a.base_build:
        if not os.path.exists(os.path.join(base_src, "CMakeLists.txt")):
            sh(["git", "-C", ROOT, "worktree", "prune"])
            sh(["git", "-C", ROOT, "worktree", "add", "--detach", base_src, a.base_commit])
        if not os.path.exists(os.path.join(base_bld, "CMakeCache.txt")):
            sh(["cmake", "-S", base_src, "-B", base_bld, "-DCMAKE_BUILD_TYPE=Release",
                "-DOP_TESTS=OFF", "-DOP_BENCH=OFF", "-DOP_TOOLS=OFF",
                "-DCMAKE_PROJECT_INCLUDE=" + os.path.join(HERE, "inject.cmake")],
               stdout=subprocess.DEVNULL)
        sh(["cmake", "--build", base_bld, "--target", "onepath", "-j", str(a.jobs)])
    if not os.path.exists(os.path.join(a.new_build, "CMakeCache.txt")):
        sh(["cmake", "-S", ROOT, "-B", a.new_build, "-DCMAKE_BUILD_TYPE=Release",
            "-DOP_BENCH=ON"], stdout=subprocess.DEVNULL)
    sh(["cmake", "--build", a.new_build, "--target", "onepath", "-j", str(a.jobs)])

    out = a.ab_out
    os.makedirs(out, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    cflags = ["-O2", "-g", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra"]
    cases = os.path.join(HERE, "cases.c")
    base_obj = os.path.join(out, "base_cases.o")
    sh([cc] + cflags + ["-I", HERE, "-I", os.path.join(base_src, "include"),
                        "-I", os.path.join(base_bld, "include"), "-c", cases, "-o", base_obj])
    joined = os.path.join(out, "base_joined.o")
    sh(["ld", "-r", "-o", joined, base_obj, os.path.join(base_bld, "libonepath.a")])
    syms = subprocess.run(["nm", "-g", "--defined-only", joined], check=True,
                          stdout=subprocess.PIPE, text=True).stdout.split("\n")
    names = sorted({l.split()[2] for l in syms if len(l.split()) == 3})
    mapfile = os.path.join(out, "base.syms")
    with open(mapfile, "w") as f:
        for n in names:
            f.write(f"{n} base_{n}\n")
    renamed = os.path.join(out, "base_renamed.o")
    sh(["objcopy", "--redefine-syms=" + mapfile, joined, renamed])
    exe = exe_path(a)
    wrap = ["-Wl," + ",".join(f"--wrap={n}" for n in WRAP)]
    sh([cc] + cflags + ["-DOP_COMPARE_WRAP=1", "-I", HERE, "-I", os.path.join(ROOT, "include"),
                        "-I", os.path.join(a.new_build, "include"),
                        os.path.join(HERE, "ab_main.c"), os.path.join(HERE, "heap.c"), cases,
                        renamed, os.path.join(a.new_build, "libonepath.a"), "-fopenmp", "-lm"]
       + wrap + ["-o", exe])
    return exe


def command(a, exe, cases, fields, reps):
    """fields: demo edges (int) and "holes-H" labels."""
    cmd = [exe, "--cases", ",".join(cases), "--repetitions", str(reps)]
    for f in fields:
        cmd += ["--holes", f[6:]] if str(f).startswith("holes-") else ["--demo", str(f)]
    if a.min_time:
        cmd += ["--min-time", str(a.min_time)]
    if a.shared_heap:
        cmd.append("--shared-heap")
    if a.cpu is not None:
        cmd = ["taskset", "-c", str(a.cpu)] + cmd
    return cmd


def measure(a, exe, pairs):
    """Runs every (field, case) pair; returns {(case, field, side): [run, ...]} in
    compare.py's form, one run per repetition (its time, its output's hash, the
    counters), or an error run for every pair when onepath_ab failed."""
    fields, cases = [], []
    for size, case in pairs:
        fields += [size] if size not in fields else []
        cases += [case] if case not in cases else []
    reps = a.repetitions * a.rounds
    env = dict(os.environ, OMP_NUM_THREADS="1")
    cmd = command(a, exe, cases, fields, reps) + ["--json"]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
    res = {}
    key = {(str(s) if str(s).startswith("holes-") else f"demo-{s}"): s for s in fields}
    for line in p.stdout.splitlines():
        if not line.startswith("{"):
            continue
        o = json.loads(line)
        for side in ("base", "new"):
            s = o[side]
            counters = {"spans": s["spans"], "peak_bytes": s["peak_bytes"],
                        "input_bytes": s["input_bytes"]}
            res[(o["case"], key[o["field"]], side)] = [
                {"times": [t], "digest": (int(d, 16) >> 32, int(d, 16) & 0xffffffff),
                 "counters": counters} for t, d in zip(s["times"], s["digests"])]
    if p.returncode not in (0, 1):
        err = {"error": f"onepath_ab exit {p.returncode}"}
        for size, case in pairs:
            for side in ("base", "new"):
                res.setdefault((case, size, side), [err])
    return res


def main():
    import compare
    argv = sys.argv[1:]
    argv = ["--cases" if x == "--stages" else x for x in argv]
    argv = [("--cases=" + x[len("--stages="):]) if x.startswith("--stages=") else x
            for x in argv]
    argv = ["--ab-out" if x == "--out" else x for x in argv]
    if "--only" in argv:
        i = argv.index("--only")
        only = argv[i + 1]
        del argv[i:i + 2]
        a = compare.parse(["--in-process"] + argv)
        exe = exe_path(a) if a.no_build else build(a)
        cmd = command(a, exe, a.case_list, a.field_list, a.repetitions * a.rounds)
        env = dict(os.environ, OMP_NUM_THREADS="1")
        return subprocess.run(cmd + ["--only", only], env=env).returncode
    return compare.main(["--in-process"] + argv)


if __name__ == "__main__":
    sys.exit(main())
