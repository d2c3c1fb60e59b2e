#!/usr/bin/env bash
# The installed package as a user meets it (issue 9, docs/decisions/package.md):
#  1. `cmake --install` of the plain build (static library) into a temporary prefix;
#     the installed tool prints the version and the demo-64 digests (the reference);
#  2. (a) a C++-only project with find_package(onepath), (b) a C program built with
#     pkg-config --static, (c) a C++-only project with add_subdirectory (FetchContent is
#     configured too); each bakes the demo world and must print the same version and
#     digests as the tool;
#  3. -ffast-math: a consumer that includes onepath.h compiles, the library does not;
#  4. BUILD_SHARED_LIBS=ON: libonepath.so exports only op_ symbols (nm -D), has the
#     SONAME, installs, and (a) and the installed tool run against it.
# Usage: ci/consumers.sh [PLAIN_BUILD_DIR] (default build, already built). Extra build
# trees live in build-pkg/ (incremental on a rerun); prefixes in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
start=$(date +%s)
build=${1:-build}
work=build-pkg
jobs=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$work"
pass=0
ok() { pass=$((pass+1)); echo "ok: $*"; }
die() { echo "consumers: FAIL: $*" >&2; exit 1; }
# Configure quietly, but show everything when it fails.
quiet() { local log=$tmp/log; "$@" >"$log" 2>&1 || { cat "$log"; die "$*"; }; }

version=$(sed -n 's/^project(onepath VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || die "no project(onepath VERSION ...) in CMakeLists.txt"
# Output of a consumer: 'version V' then the four 'stage digest' lines of `onepath digest`.
digests() { grep -E '^(spans|distance|regions|contours) [0-9a-f]{16}$'; }
check_output() { # name, file with the consumer's output
  [ "$(head -1 "$2")" = "version $version" ] || { cat "$2"; die "$1: version line is not 'version $version'"; }
  diff <(digests <"$2") "$tmp/expected" >/dev/null || { cat "$2"; die "$1: digests differ from the tool's"; }
  ok "$1: op_version() $version, the tool's four digests"
}

echo "== package: install the static build into a temporary prefix"
[ -f "$build/CMakeCache.txt" ] || die "no configured build in $build (run the plain build first)"
quiet cmake --build "$build" -j"$jobs"
static=$tmp/static
quiet cmake --install "$build" --prefix "$static"
for f in include/onepath/onepath.h include/onepath/version.h lib/libonepath.a bin/onepath \
         lib/cmake/onepath/onepathConfig.cmake lib/cmake/onepath/onepathConfigVersion.cmake \
         lib/cmake/onepath/onepathTargets.cmake lib/pkgconfig/onepath.pc share/doc/onepath/LICENSE; do
  [ -e "$static/$f" ] || die "install: $f missing"
done
[ "$("$static/bin/onepath" --version)" = "onepath $version" ] || die "installed tool: --version"
"$static/bin/onepath" digest --demo --demo-size 64 | digests >"$tmp/expected"
[ "$(wc -l <"$tmp/expected")" = 4 ] || die "installed tool: expected four digest lines"
ok "install: library, headers, version.h, tool, CMake package, onepath.pc"

echo "== (a) C++ consumer, find_package(onepath)"
quiet cmake -S tests/consumers/find_package -B "$work/find_package" -DCMAKE_PREFIX_PATH="$static" \
  -DCMAKE_BUILD_TYPE=Release
quiet cmake --build "$work/find_package" -j"$jobs"
"$work/find_package/consumer" >"$tmp/a.out" || die "find_package consumer failed"
check_output "find_package (C++ only, static)" "$tmp/a.out"

echo "== (b) C consumer, pkg-config"
export PKG_CONFIG_PATH="$static/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
[ "$(pkg-config --modversion onepath)" = "$version" ] || die "pkg-config --modversion"
read -ra cflags <<<"$(pkg-config --cflags onepath)"
read -ra libs <<<"$(pkg-config --libs --static onepath)"
cc -std=c11 -O1 -Wall -Wextra -Werror "${cflags[@]}" tests/consumers/consumer.c "${libs[@]}" \
  -o "$tmp/consumer_pc" || die "pkg-config consumer does not build"
"$tmp/consumer_pc" >"$tmp/b.out" || die "pkg-config consumer failed"
check_output "pkg-config (C, static)" "$tmp/b.out"

echo "== fast math"
cc -std=c11 -ffast-math -Wall -Werror -fsyntax-only "${cflags[@]}" tests/consumers/consumer.c \
  || die "a C program compiled with -ffast-math cannot include onepath.h"
c++ -std=c++17 -ffast-math -Wall -Werror -fsyntax-only "${cflags[@]}" tests/consumers/consumer.cpp \
  || die "a C++ program compiled with -ffast-math cannot include onepath.h"
if cc -std=c11 -ffast-math -fsyntax-only -Iinclude -I"$build/include" src/core/build_checks.c \
     2>"$tmp/fm.err"; then
  die "the library's build check accepts -ffast-math"
fi
grep -q "must not be built with -ffast-math" "$tmp/fm.err" || { cat "$tmp/fm.err"; die "fast-math check: wrong message"; }
ok "fast math: consumers (C, C++) include onepath.h; the library refuses it"

echo "== (c) C++ consumer, add_subdirectory (and FetchContent, configured)"
quiet cmake -S tests/consumers/subdirectory -B "$work/subdirectory" -DONEPATH_SOURCE_DIR="$src" \
  -DCMAKE_BUILD_TYPE=Release
quiet cmake --build "$work/subdirectory" -j"$jobs"
"$work/subdirectory/consumer" >"$tmp/c.out" || die "add_subdirectory consumer failed"
check_output "add_subdirectory (C++ only)" "$tmp/c.out"
quiet cmake -S tests/consumers/subdirectory -B "$tmp/fetchcontent" -DONEPATH_SOURCE_DIR="$src" \
  -DOP_CONSUMER_FETCHCONTENT=ON
ok "FetchContent: configures"

echo "== shared library (BUILD_SHARED_LIBS=ON)"
quiet cmake -S . -B "$work/shared" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DOP_WERROR=ON \
  -DOP_TESTS=OFF -DOP_BENCH=OFF -DOP_TOOLS=ON
quiet cmake --build "$work/shared" -j"$jobs"
so=$(find "$work/shared" -maxdepth 1 -name 'libonepath.so.*.*.*' -print -quit)
[ -n "$so" ] || die "no libonepath.so.X.Y.Z in $work/shared"
nm -D --defined-only "$so" | awk '{print $NF}' | sort >"$tmp/exports"
grep -v '^op_' "$tmp/exports" >"$tmp/foreign" && { cat "$tmp/foreign"; die "libonepath.so exports symbols without the op_ prefix"; }
grep -qx op_version "$tmp/exports" || die "libonepath.so does not export op_version"
soname=$(objdump -p "$so" | awk '$1 == "SONAME" {print $2}')
major=${version%%.*}; minor=${version#*.}; minor=${minor%%.*}
if [ "$major" = 0 ]; then want=libonepath.so.$major.$minor; else want=libonepath.so.$major; fi
[ "$soname" = "$want" ] || die "SONAME is '$soname', expected $want"
ok "shared: $(wc -l <"$tmp/exports") exported symbols, all op_; SONAME $soname"
shared=$tmp/shared
quiet cmake --install "$work/shared" --prefix "$shared"
[ ! -e "$shared/lib/libonepath.a" ] || die "shared install holds a static library"
"$shared/bin/onepath" digest --demo --demo-size 64 | digests | diff - "$tmp/expected" >/dev/null \
  || die "installed tool (shared) gives other digests"
# grep -q reads ldd through a here-string: a pipe would race SIGPIPE against pipefail.
grep -q "$shared/bin/../lib/$soname\|$shared/lib/$soname" <<<"$(ldd "$shared/bin/onepath")" \
  || { ldd "$shared/bin/onepath"; die "installed tool does not load the installed $soname"; }
quiet cmake -S tests/consumers/find_package -B "$work/find_package_shared" \
  -DCMAKE_PREFIX_PATH="$shared" -DCMAKE_BUILD_TYPE=Release
quiet cmake --build "$work/find_package_shared" -j"$jobs"
grep -q "$shared/lib/$soname" <<<"$(ldd "$work/find_package_shared/consumer")" \
  || { ldd "$work/find_package_shared/consumer"; die "shared consumer does not load the installed $soname"; }
"$work/find_package_shared/consumer" >"$tmp/s.out" || die "shared find_package consumer failed"
check_output "find_package (C++ only, shared)" "$tmp/s.out"

echo "consumers: $pass passed in $(( $(date +%s) - start )) s"
