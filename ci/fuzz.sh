#!/usr/bin/env bash
# ci/fuzz.sh SECONDS [NAME...]: builds the libFuzzer harnesses of tests/fuzz with clang
# (into build-fuzz, everything instrumented, ASan + UBSan) and runs each (or the NAMEs
# given: opchf obj heightmap bake ...) for SECONDS, one process, niced. The working
# corpus build-fuzz/fuzz-corpus/NAME grows from the committed seeds and is kept between
# runs, so several short runs add up; the kept crash reproducers (tests/fuzz/crashes/NAME)
# are read first too, so clang's sanitizers see them again (gcc's UBSan, in the ctest
# replay, misses some, e.g. an offset applied to a null pointer). Findings land in build-fuzz/fuzz-artifacts/NAME;
# minimise one (fuzz_NAME -minimize_crash=1 FILE), fix it, and commit it to
# tests/fuzz/crashes/NAME so the replay test keeps it fixed. Prints the executions per
# harness and in all; exits 1 when anything was found.
# Environment: OP_FUZZ_BUILD_DIR (build-fuzz), OP_FUZZ_JOBS (build jobs, nproc),
# OP_FUZZ_ARGS (more libFuzzer options).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:?usage: ci/fuzz.sh SECONDS [NAME...]}
shift
bdir=${OP_FUZZ_BUILD_DIR:-build-fuzz}
jobs=${OP_FUZZ_JOBS:-$(nproc)}
command -v clang >/dev/null || { echo "fuzz: clang not found (bash ci/setup.sh installs it)"; exit 1; }

CC=clang CXX=clang++ cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOP_FUZZ=ON \
  -DOP_BENCH=OFF -DOP_TOOLS=OFF -DOP_TESTS=ON -DOP_INSTALL=OFF >/dev/null
names=("$@")
[ ${#names[@]} -gt 0 ] || mapfile -t names < <(grep -v '^$' "$bdir/tests/fuzz/harnesses.txt")
cmake --build "$bdir" -j"$jobs" --target "${names[@]/#/fuzz_}"

total=0 found=0
for n in "${names[@]}"; do
  work="$bdir/fuzz-corpus/$n" art="$bdir/fuzz-artifacts/$n"
  mkdir -p "$work" "$art"
  extra=()
  [ -f "tests/fuzz/$n.dict" ] && extra+=(-dict="tests/fuzz/$n.dict")
  log="$bdir/fuzz-$n.log"
  rc=0
  # shellcheck disable=SC2086
  nice -n 10 "$bdir/tests/fuzz/fuzz_$n" -max_total_time="$secs" -print_final_stats=1 \
    -artifact_prefix="$art/" -rss_limit_mb=2048 -timeout=60 "${extra[@]}" ${OP_FUZZ_ARGS:-} \
    "$work" "tests/fuzz/corpus/$n" $( [ -d "tests/fuzz/crashes/$n" ] && echo "tests/fuzz/crashes/$n" ) \
    >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  execs=${execs:-0}
  arts=$(find "$art" -type f | wc -l)
  total=$((total + execs))
  found=$((found + arts))
  echo "fuzz: $n: $execs executions in ${secs} s, corpus $(find "$work" -type f | wc -l) files, exit $rc, $arts artifacts"
  if [ "$rc" != 0 ] || [ "$arts" != 0 ]; then
    tail -40 "$log"
  fi
done
echo "fuzz: $total executions in all, $found findings"
[ "$found" = 0 ]
