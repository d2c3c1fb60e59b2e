#!/usr/bin/env bash
# Tile cache checks beyond the plain and sanitizer ctest runs (issue 13): (1) the tool
# end to end (ci/cache-smoke.sh, --check on every step of the shipped demo events);
# (2) the cache tests in the build without OpenMP and without zstd (ci/tiles.sh's
# build-noomp, configured the same way here: stored tiles, one thread); (3) the parallel
# rebuild under ThreadSanitizer (ci/tiles.sh's build-tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
build=${1:-build}

echo "-- cache: the tool"
bash ci/cache-smoke.sh "$build"

echo "-- cache: build without OpenMP and zstd"
cmake -S . -B build-noomp -DCMAKE_BUILD_TYPE=Release -DOP_WERROR=ON -DOP_BENCH=OFF \
      -DOP_OPENMP=OFF -DOP_ZSTD=OFF -DOP_TOOLS=OFF -DOP_SIMD=OFF >/dev/null
cmake --build build-noomp -j"$jobs" --target test_tile_cache test_io_opcache
ctest --test-dir build-noomp --output-on-failure -R '^(test_tile_cache|test_io_opcache)$'

echo "-- cache: ThreadSanitizer (clang)"
if ! command -v clang >/dev/null; then
  echo "cache: clang not found (bash ci/setup.sh installs it)"; exit 1
fi
CC=clang CXX=clang++ cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOP_WERROR=ON \
      -DOP_BENCH=OFF -DOP_TOOLS=OFF -DOP_SIMD=OFF -DCMAKE_C_FLAGS=-fsanitize=thread \
      -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build build-tsan -j"$jobs" --target test_tile_cache test_io_opcache
archer=$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort -V | tail -1 || true)
for t in test_threads test_update_allocation_failure; do
  OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1" \
    OP_TEST_FILTER=$t build-tsan/test_tile_cache
done
OMP_TOOL_LIBRARIES="$archer" TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1" \
  build-tsan/test_io_opcache
echo "cache: all passed"
