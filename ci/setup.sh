#!/usr/bin/env bash
# Installs what onepath needs from Debian, only what is missing (idempotent).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libsimde-dev libcmocka-dev libbenchmark-dev
      libxxhash-dev libpng-dev libzstd-dev libgomp1 python3
      locales  # locales: localedef makes de_DE.UTF-8 for the JSON locale test
      clang    # clang: libFuzzer for ci/fuzz.sh (the replay tests build with gcc)
      libomp-dev   # clang's OpenMP runtime (and Archer): ThreadSanitizer in ci/tiles.sh
      libopenmpi-dev openmpi-bin)  # Open MPI: the tool's bake --mpi (-DOP_MPI=ON), mpirun
if [ "${OP_SETUP_CROSS:-1}" = 1 ]; then
  pkgs+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user)
fi
missing=()
for p in "${pkgs[@]}"; do
  grep -q "install ok installed" <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ "${OP_SETUP_CROSS:-1}" = 1 ] && [ -x ci/setup-cross.sh ]; then
  bash ci/setup-cross.sh
fi
