#!/usr/bin/env bash
# Installs what the AArch64 cross build (ci/cross-aarch64.sh) and the big-endian check
# (ci/cross-bigendian.sh, s390x) need, only what is missing (idempotent): the cross
# compilers, qemu user mode, and an arm64 cmocka through Debian multiarch
# (dpkg --add-architecture arm64).
set -euo pipefail
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

have() { grep -q "install ok installed" <<<"$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)"; }

updated=0
apt_update() {
  if [ "$updated" = 0 ]; then
    $SUDO apt-get update -qq
    updated=1
  fi
}

# g++ too: the top-level project() enables CXX (the bench shim), even with OP_BENCH=OFF.
host=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user cmake pkg-config
      libsimde-dev libcmocka-dev libxxhash-dev
      gcc-s390x-linux-gnu g++-s390x-linux-gnu) # big-endian digests (ci/cross-bigendian.sh)
missing=()
for p in "${host[@]}"; do have "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-cross: installing ${missing[*]}"
  apt_update
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# arm64 libraries through Debian multiarch: cmocka (Debian ships no static libcmocka,
# so the tests link it dynamically and run on libc6:arm64 under qemu), xxHash, and the
# OpenMP runtime for the tile-parallel tests.
arm=(libcmocka-dev:arm64 libxxhash-dev:arm64 libgomp1:arm64)
marm=()
for p in "${arm[@]}"; do have "$p" || marm+=("$p"); done
if [ ${#marm[@]} -gt 0 ]; then
  echo "setup-cross: installing ${marm[*]} (Debian multiarch)"
  if ! grep -qx arm64 <<<"$(dpkg --print-foreign-architectures)"; then
    $SUDO dpkg --add-architecture arm64
    updated=0
  fi
  apt_update
  $SUDO apt-get install -y -qq --no-install-recommends "${marm[@]}" >/dev/null
fi
