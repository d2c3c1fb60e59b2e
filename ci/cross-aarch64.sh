#!/usr/bin/env bash
# AArch64 part of the test command (issues 5, 10): cross-builds with Debian's
# aarch64-linux-gnu-gcc into build-aarch64 (never touching the native build dirs) and
# runs the whole test suite under qemu-aarch64 through CMAKE_CROSSCOMPILING_EMULATOR, so
# ctest drives it as usual. The digest tests pin the same digests as on x86-64, so
# passing them here proves the bake is byte-identical on AArch64 (supplement §5); the
# kernel tests iterate over every variant the build has and the CPU runs (under qemu:
# neon, portable, scalar), which the script prints and requires. OP_TEST_QUICK=1
# (tests/util/quick.h) shrinks the few slowest tests to a same-kind sample under qemu
# (docs/decisions/hardening.md says which); digest and variant tests never shrink.
#
# Environment: OP_CROSS_BUILD_DIR (default build-aarch64), OP_CROSS_JOBS (default nproc),
# OP_CROSS_TESTS (a ctest -R regex to run instead of every test),
# OP_CROSS_SKIP_SETUP=1 to skip ci/setup-cross.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bdir=${OP_CROSS_BUILD_DIR:-build-aarch64}
jobs=${OP_CROSS_JOBS:-$(nproc)}

[ "${OP_CROSS_SKIP_SETUP:-0}" = 1 ] || bash ci/setup-cross.sh

echo "== cross: configure $bdir (aarch64-linux-gnu-gcc, qemu-aarch64)"
# SIMDe is header-only and lives in the host's /usr/include; an include dir holding only
# it keeps -I/usr/include (x86 glibc headers) off the cross compile line.
mkdir -p "$bdir/cross-include"
bdir_abs=$(cd "$bdir" && pwd)
ln -sfn /usr/include/simde "$bdir_abs/cross-include/simde"
cmake -S . -B "$bdir" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-aarch64.cmake" \
      -DOP_SIMDE_INCLUDE_DIR="$bdir_abs/cross-include" \
      -DCMAKE_BUILD_TYPE=Release -DOP_WERROR=ON -DOP_PNG=OFF -DOP_OPENMP=ON \
      -DOP_BENCH=OFF -DOP_TOOLS=OFF -DOP_TESTS=ON >/dev/null

# Every test, or the OP_CROSS_TESTS regex (then every target is still built).
regex=${OP_CROSS_TESTS:-.}
t0=$(date +%s)
cmake --build "$bdir" -j"$jobs"
echo "== cross: built in $(( $(date +%s) - t0 )) s"

# Which variants the AArch64 build contains and qemu's CPU runs.
aarch64-linux-gnu-gcc -std=c11 -O1 -Iinclude -I"$bdir/include" tests/cross/list_variants.c \
  "$bdir/libonepath.a" -fopenmp -lm -o "$bdir/list_variants"
variants=$(qemu-aarch64 "$bdir/list_variants")
echo "== cross: under qemu-aarch64, $variants"
for v in neon portable scalar; do
  case " $variants " in *" $v "*) ;; *) echo "cross: error: variant $v is not in the AArch64 build"; exit 1 ;; esac
done

t0=$(date +%s)
echo "== cross: ctest -R '$regex' under qemu-aarch64"
rc=0
OP_TEST_QUICK=1 ctest --test-dir "$bdir" --output-on-failure -j"$jobs" -R "$regex" || rc=$?
echo "== cross: tests in $(( $(date +%s) - t0 )) s; AArch64 part in $(( $(date +%s) - start )) s"
exit $rc
