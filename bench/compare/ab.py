#!/usr/bin/env python3
"""Builds and runs onepath_ab: the baseline commit's library and this tree's in one
process, the per-stage cases of the regions chain (erode, distance, watershed, monotone,
layers) alternating on the same field, outputs compared byte for byte (issue 12).

usage: bench/compare/ab.py [--sizes 1936,4096] [--stages erode,distance,...]
                           [--repetitions K] [--only new|base] [--markdown]
                           [--base-dir build/compare-base] [--new-build build]
                           [--out build/compare-ab] [--no-build] [--cpu N]

bench/compare.py runs each tree in its own process; on a shared machine its ratios
swing with the load between the runs. Here a change of load falls on both sides.

Building: the baseline tree is the one bench/compare.py makes (`git worktree add` of
a495c93 into <base-dir>/src, built in <base-dir>/build; made here the same way when
missing). bench/compare/ab_side.c is compiled against each tree's headers; the
baseline's copy and the baseline library are joined into one relocatable object
(`ld -r`, which takes only the archive members it needs) whose global symbols are then
renamed base_* (objcopy --redefine-syms), and linked with ab_main.c, this tree's
ab_side.c and this tree's library into <out>/onepath_ab. Needs a static library in both
trees (the default) and GNU binutils.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def sh(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, **kw)


def build(a):
    base_src = os.path.join(a.base_dir, "src")
    base_bld = os.path.join(a.base_dir, "build")
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

    os.makedirs(a.out, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    cflags = ["-O2", "-g", "-std=c11", "-D_POSIX_C_SOURCE=200809L"]
    side = os.path.join(HERE, "ab_side.c")
    base_obj = os.path.join(a.out, "base_side.o")
    sh([cc] + cflags + ["-I", HERE, "-I", os.path.join(base_src, "include"),
                        "-I", os.path.join(base_bld, "include"), "-c", side, "-o", base_obj])
    joined = os.path.join(a.out, "base_joined.o")
    sh(["ld", "-r", "-o", joined, base_obj, os.path.join(base_bld, "libonepath.a")])
    syms = subprocess.run(["nm", "-g", "--defined-only", joined], check=True,
                          stdout=subprocess.PIPE, text=True).stdout.split("\n")
    names = sorted({l.split()[2] for l in syms if len(l.split()) == 3})
    mapfile = os.path.join(a.out, "base.syms")
    with open(mapfile, "w") as f:
        for n in names:
            f.write(f"{n} base_{n}\n")
    renamed = os.path.join(a.out, "base_renamed.o")
    sh(["objcopy", "--redefine-syms=" + mapfile, joined, renamed])
    exe = os.path.join(a.out, "onepath_ab")
    sh([cc] + cflags + ["-I", HERE, "-I", os.path.join(ROOT, "include"),
                        "-I", os.path.join(a.new_build, "include"),
                        os.path.join(HERE, "ab_main.c"), side, renamed,
                        os.path.join(a.new_build, "libonepath.a"), "-fopenmp", "-lm",
                        "-o", exe])
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1936,4096", help="demo world edges in cells")
    ap.add_argument("--stages", default="erode,distance,watershed,monotone,layers")
    ap.add_argument("--repetitions", type=int, default=9)
    ap.add_argument("--only", choices=["new", "base"], help="one side only (for a profiler)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--cpu", type=int, help="pin to this CPU (taskset)")
    ap.add_argument("--base-commit", default="a495c93")
    ap.add_argument("--base-dir", default=os.path.join(ROOT, "build", "compare-base"))
    ap.add_argument("--new-build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "compare-ab"))
    ap.add_argument("--no-build", action="store_true", help="run <out>/onepath_ab as it is")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    exe = os.path.join(a.out, "onepath_ab") if a.no_build else build(a)
    cmd = [exe, "--stages", a.stages, "--repetitions", str(a.repetitions)]
    for s in a.sizes.split(","):
        if s:
            cmd += ["--demo", s]
    if a.only:
        cmd += ["--only", a.only]
    if a.markdown:
        cmd.append("--markdown")
    if a.cpu is not None:
        cmd = ["taskset", "-c", str(a.cpu)] + cmd
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(cmd, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
