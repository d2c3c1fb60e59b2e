#!/usr/bin/env bash
# Tiled bake checks beyond the plain and sanitizer ctest runs (issue 11), small on
# purpose: (1) the tool end to end (ci/tiles-smoke.sh); (2) a build without OpenMP
# (-DOP_OPENMP=OFF), where the tiles tests run the same loop on one thread; (3) the
# parallel tile loop under ThreadSanitizer with clang and libomp (Archer supplies
# OpenMP's synchronisation to TSan; reports inside the uninstrumented runtime itself are
# ignored, races in onepath's code are not: halt_on_error). Both extra builds leave the
# SIMD variants out (scalar kernels only): they check the tile loop, not the kernels,
# and compile in a fraction of the time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
build=${1:-build}

echo "-- tiles: the tool"
bash ci/tiles-smoke.sh "$build"

echo "-- tiles: build without OpenMP"
# (also without zstd: ci/cache.sh runs the tile cache tests in this build)
cmake -S . -B build-noomp -DCMAKE_BUILD_TYPE=Release -DOP_WERROR=ON -DOP_BENCH=OFF \
      -DOP_OPENMP=OFF -DOP_ZSTD=OFF -DOP_TOOLS=OFF -DOP_SIMD=OFF >/dev/null
cmake --build build-noomp -j"$jobs" --target test_tiles_bake test_io_opbake test_contours_threads test_tiles_progress
ctest --test-dir build-noomp --output-on-failure -R '^(test_tiles_bake|test_io_opbake|test_contours_threads|test_tiles_progress)$'

echo "-- tiles: ThreadSanitizer (clang)"
if ! command -v clang >/dev/null; then
  echo "tiles: clang not found (bash ci/setup.sh installs it)"; exit 1
fi
CC=clang CXX=clang++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOP_WERROR=ON \
      -DOP_BENCH=OFF -DOP_TOOLS=OFF -DOP_SIMD=OFF -DCMAKE_C_FLAGS=-fsanitize=thread \
      -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build build-tsan -j"$jobs" --target test_tiles_bake test_spans_threads test_contours_threads \
      test_tiles_progress test_tiles_shard
archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort -V | tail -1 || true)
for t in test_threads_random test_small_tiles test_smallest_failing_tile test_assembly_empty_tiles; do
  OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1" \
    OP_TEST_FILTER=$t build-tsan/test_tiles_bake
done
# The hooks of shards and distributed bakes (issue 14): next, done, drop on the team.
for t in test_cuts_random test_hooks; do
  OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1" \
    OP_TEST_FILTER=$t build-tsan/test_tiles_shard
done
# Threads inside one grid (the rasterizer's bands, filters and compaction by rows).
OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1" \
  build-tsan/test_spans_threads
# contours by segments and regions on 2, 3 and 8 threads (issue 11, threads inside a grid)
OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1" \
  build-tsan/test_contours_threads
# progress reported on the calling thread while workers publish finished tiles
OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1" \
  build-tsan/test_tiles_progress
echo "tiles: all passed"
