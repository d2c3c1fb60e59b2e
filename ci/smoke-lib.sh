# The helpers every ci/*-smoke.sh script sources: `. "$(dirname "$0")/smoke-lib.sh" "$@"`.
# $1 is the build folder (default build); the tool is $bin; $tmp is removed on exit.
# Each check adds to $pass or $fail; the script ends with `smoke_summary NAME`.
build=${1:-build}
bin="$(cd "$build" && pwd)/onepath"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass+1)); }
no() { fail=$((fail+1)); echo "FAIL $1"; }

# check NAME CODE COMMAND...: exits CODE; stdout in $tmp/out, stderr in $tmp/err.
check() {
  local name=$1 want=$2; shift 2
  local got=0
  "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
  if [ "$got" = "$want" ]; then ok; else
    no "$name: exit $got, expected $want"; cat "$tmp/out" "$tmp/err"; fi
}
# check_err NAME CODE TEXT COMMAND...: exits CODE and TEXT is in the message.
check_err() {
  local name=$1 want=$2 text=$3; shift 3
  check "$name" "$want" "$@"
  if grep -qF -- "$text" "$tmp/err"; then ok; else
    no "$name: message lacks '$text':"; cat "$tmp/err"; fi
}
# has NAME TEXT: the last command's stdout holds TEXT (a fixed string).
has() {
  if grep -qF -- "$2" "$tmp/out"; then ok; else no "$1: output lacks '$2':"; cat "$tmp/out"; fi
}
# same A B NAME: the two files are byte for byte the same.
same() { if cmp -s "$1" "$2"; then ok; else no "$3: $1 and $2 differ"; fi; }
# absent PATH NAME: nothing at PATH.
absent() { if [ ! -e "$1" ]; then ok; else no "$2: $1 exists"; fi; }

# smoke_summary NAME: the counts; fails the script when a check failed.
smoke_summary() { echo "$1: $pass passed, $fail failed"; [ "$fail" = 0 ]; }
