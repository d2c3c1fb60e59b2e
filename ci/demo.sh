#!/usr/bin/env bash
# Newcomer command 1: set up, build, and bake the built-in demo world.
set -euo pipefail
cd "$(dirname "$0")/.."
OP_SETUP_CROSS=0 bash ci/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DOP_BENCH=ON >/dev/null
cmake --build build -j"$(nproc)"
mkdir -p out
./build/onepath bake --demo --json out/demo.json --png out/demo.png --out-contours out/demo-contours.json "$@"
echo "demo: summary in out/demo.json, picture in out/demo.png, contours in out/demo-contours.json"
