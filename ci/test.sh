#!/usr/bin/env bash
# Newcomer command 2 and CI (.ci/run): set up, build and run the whole test suite:
# plain build (warnings fatal, with MPI: bake --mpi under mpirun in ctest), sanitizer
# build (ASan + UBSan, bake --mpi too), the command-line tool on the demo world, shards and
# merge, the installed package with its consumers and the shared library, the AArch64
# cross build under qemu (every test), and the golden digests on big-endian s390x under qemu.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
jobs=$(nproc)
bash ci/setup.sh

echo "== plain build (Release, -Werror)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DOP_WERROR=ON -DOP_BENCH=ON -DOP_MPI=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== sanitizer build (ASan + UBSan)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOP_SANITIZE=ON -DOP_WERROR=ON \
      -DOP_BENCH=OFF -DOP_MPI=ON >/dev/null
cmake --build build-asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs" -E "${OP_ASAN_EXCLUDE:-^$}"

echo "== command-line tool"
bash ci/cli-smoke.sh build
bash ci/topology-smoke.sh build

echo "== tiled bake: tool, build without OpenMP, ThreadSanitizer"
bash ci/tiles.sh build

echo "== shards, merge and MPI (bake --tiles, onepath merge; mpirun ran in ctest's mpi_bake)"
bash ci/shard-smoke.sh build
bash ci/mpi.sh build

echo "== tile cache: tool, build without OpenMP and zstd, ThreadSanitizer"
bash ci/cache.sh build

echo "== package: install, consumers (find_package, pkg-config, add_subdirectory), shared library"
bash ci/consumers.sh build

if [ -f ci/cross-aarch64.sh ]; then
  echo "== AArch64 cross build under qemu"
  bash ci/cross-aarch64.sh
fi

echo "== big-endian (s390x) golden digests under qemu"
OP_BE_SKIP_SETUP=1 bash ci/cross-bigendian.sh
echo "== all done in $(( $(date +%s) - start )) s"
