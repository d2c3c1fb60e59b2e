#!/usr/bin/env bash
# Big-endian part of the test command (issue 10): digests are defined little-endian
# (supplement §5, docs/formats.md), so a big-endian host must give the same golden
# digests. Cross-builds the library for s390x with Debian's s390x-linux-gnu-gcc into
# build-s390x, links tests/cross/golden_digests.c statically, runs it under qemu-s390x
# and compares every variant's digests (scalar and SIMDe's portable lowering) with the
# table pinned in tests/bake/test_golden.c; the OPCHF1 seed files must also decode and
# encode back to the same bytes there.
# Environment: OP_BE_BUILD_DIR (build-s390x), OP_BE_JOBS (nproc), OP_BE_SKIP_SETUP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bdir=${OP_BE_BUILD_DIR:-build-s390x}
jobs=${OP_BE_JOBS:-$(nproc)}

if [ "${OP_BE_SKIP_SETUP:-0}" != 1 ]; then
  missing=()
  for p in gcc-s390x-linux-gnu g++-s390x-linux-gnu qemu-user; do
    grep -q "install ok installed" <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    echo "big-endian: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

echo "== big-endian: configure $bdir (s390x-linux-gnu-gcc, qemu-s390x)"
mkdir -p "$bdir/cross-include"
bdir_abs=$(cd "$bdir" && pwd)
ln -sfn /usr/include/simde "$bdir_abs/cross-include/simde"
cmake -S . -B "$bdir" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-s390x.cmake" \
      -DOP_SIMDE_INCLUDE_DIR="$bdir_abs/cross-include" \
      -DCMAKE_BUILD_TYPE=Release -DOP_WERROR=ON -DOP_PNG=OFF -DOP_OPENMP=OFF \
      -DOP_BENCH=OFF -DOP_TOOLS=OFF -DOP_TESTS=OFF -DOP_INSTALL=OFF >/dev/null
t0=$(date +%s)
cmake --build "$bdir" -j"$jobs" --target onepath
s390x-linux-gnu-gcc -std=c11 -O2 -Iinclude -I"$bdir/include" tests/cross/golden_digests.c \
  "$bdir/libonepath.a" -lm -static -o "$bdir/golden_digests"
echo "== big-endian: built in $(( $(date +%s) - t0 )) s"

t0=$(date +%s)
seeds=(tests/fuzz/corpus/opchf/small-6x5.opchf tests/fuzz/corpus/opchf/floors-12x12.opchf
       tests/fuzz/corpus/opchf/band-16x16.opchf)
out=$(qemu-s390x "$bdir/golden_digests" "${seeds[@]}")
echo "$out"
# The pinned table: lines {"scenario", "digest"} of tests/bake/test_golden.c.
fail=0 checked=0
while read -r scenario digest; do
  while read -r isa s d; do
    [ "$s" = "$scenario" ] || continue
    checked=$((checked + 1))
    if [ "$d" != "$digest" ]; then
      echo "big-endian: MISMATCH $scenario on $isa: $d, pinned $digest"
      fail=1
    fi
  done < <(echo "$out" | grep -v '^opchf ')
done < <(sed -n 's/^ *{"\(build3d[^"]*\)", "\([0-9a-f]\{16\}\)"}.*/\1 \2/p' tests/bake/test_golden.c)
variants=$(echo "$out" | grep -v '^opchf ' | cut -d' ' -f1 | sort -u | tr '\n' ' ')
grep -q 'DIFFERENT-BYTES' <<<"$out" && fail=1
case " $variants " in *" scalar "*) ;; *) fail=1; echo "big-endian: scalar did not run" ;; esac
[ "$checked" -ge 6 ] || { echo "big-endian: only $checked digests compared"; fail=1; }
echo "== big-endian: $checked digests compared (variants: $variants) in $(( $(date +%s) - t0 )) s;" \
     "big-endian part in $(( $(date +%s) - start )) s"
exit $fail
