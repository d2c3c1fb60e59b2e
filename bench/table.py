#!/usr/bin/env python3
"""Prints spans/s per kernel and stage, variant and field, with the ratio to the scalar
twin, from a single run of onepath_bench (issue 5). Builds nothing.

usage: bench/table.py [BENCH] [--quick] [--filter REGEX] [--chf FILE]... [--json OUT]
                      [-- more onepath_bench / Google Benchmark flags]

With -- --benchmark_repetitions=N each case shows the median of its N runs (and the
best); ratios to scalar are of medians. The whole bake (stage/bake/...) also gets a
summary line per field: the fastest variant and auto against scalar.

BENCH defaults to build/bench/onepath_bench. The benchmark runs once with
--benchmark_format=json; its progress and errors go to stderr. Exit status 1 when the
benchmark failed or any case reported an error (e.g. a variant differing from scalar).
"""
import argparse
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", nargs="?", default="build/bench/onepath_bench")
    ap.add_argument("--quick", action="store_true",
                    help="the ~1M-span field only, short minimum time (CI)")
    ap.add_argument("--filter", help="--benchmark_filter regex, e.g. 'kernel/' or 'watershed'")
    ap.add_argument("--chf", action="append", default=[], metavar="FILE",
                    help="also benchmark an OPCHF1 file (repeatable)")
    ap.add_argument("--json", metavar="OUT", help="also save the raw JSON here")
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    a = ap.parse_args(argv)

    cmd = [a.bench, "--benchmark_format=json"]
    if a.quick:
        cmd.append("--quick")
    if a.filter:
        cmd.append("--benchmark_filter=" + a.filter)
    for f in a.chf:
        cmd += ["--chf", f]
    cmd += extra  # after --: passed to onepath_bench unchanged
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    except OSError as e:
        print(f"table.py: cannot run {a.bench}: {e}", file=sys.stderr)
        return 2
    if a.json:
        with open(a.json, "w") as f:
            f.write(p.stdout)
    try:
        data = json.loads(p.stdout)
    except ValueError:
        print(f"table.py: {a.bench} gave no JSON (exit status {p.returncode})", file=sys.stderr)
        return 2

    # One row per case; with --benchmark_repetitions=N (noisy machines) the N runs of a
    # case are folded into their median (and best), so ratios compare medians.
    rates, spans_of, order, errors = {}, {}, [], []
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        # "kind/family/variant/field" plus suffixes such as "/min_time:0.050".
        parts = b["name"].split("/")
        if len(parts) < 4:
            continue
        key = tuple(parts[:4])
        if key not in rates:
            rates[key] = []
            order.append(key)
        spans_of[key] = b.get("spans")
        if b.get("error_occurred"):
            errors.append((b["name"], b.get("error_message", "")))
            rates[key].append(None)
            continue
        rates[key].append(b.get("items_per_second", 0.0))

    def median(v):
        v = sorted(v)
        k = len(v)
        return v[k // 2] if k % 2 else 0.5 * (v[k // 2 - 1] + v[k // 2])

    rows = []
    for key in order:
        r = rates[key]
        ok = [x for x in r if x is not None]
        rate = None if len(ok) < len(r) or not ok else median(ok)
        rows.append(key + (rate, max(ok) if ok and rate is not None else None, len(r),
                           spans_of[key]))
    reps = any(n > 1 for *_, n, _ in rows)

    scalar = {(k, fa, fi): r for k, fa, v, fi, r, _, _, _ in rows if v == "scalar" and r}
    ctx = data.get("context", {})
    print(f"onepath_bench on {ctx.get('host_name', '?')}, {ctx.get('num_cpus', '?')} CPUs, "
          f"{ctx.get('mhz_per_cpu', '?')} MHz; Google Benchmark library: {ctx.get('library_build_type', '?')} build "
          "(its own timing loop only; onepath is built as configured)")
    head = ("kernel/stage", "variant", "field", "spans", "M spans/s", "vs scalar")
    if reps:
        head = head[:4] + ("M spans/s (median)", "best", "vs scalar (median)")
    table = []
    for kind, family, variant, field, rate, best, n, spans in rows:
        base = scalar.get((kind, family, field))
        cells = [f"{kind}/{family}", variant, field, f"{int(spans):,}" if spans else "?",
                 "FAILED" if rate is None else f"{rate / 1e6:.1f}"]
        if reps:
            cells.append("" if best is None else f"{best / 1e6:.1f}")
        cells.append("" if rate is None or not base else f"{rate / base:.2f}x")
        table.append(tuple(cells))
    width = [max(len(str(r[i])) for r in table + [head]) for i in range(len(head))]
    fmt = "  ".join("{:<%d}" % w if i < 3 else "{:>%d}" % w for i, w in enumerate(width))
    print(fmt.format(*head))
    print(fmt.format(*("-" * w for w in width)))
    for r in table:
        print(fmt.format(*r))
    # The whole bake (stage/bake): the fastest variant per field against scalar.
    for field in dict.fromkeys(fi for k, fa, v, fi, *_ in rows if k == "stage" and fa == "bake"):
        base = scalar.get(("stage", "bake", field))
        cand = [(r, v) for k, fa, v, fi, r, *_ in rows
                if k == "stage" and fa == "bake" and fi == field and r and v != "scalar"]
        if base and cand:
            r, v = max(cand)
            auto = next((x for k, fa, vv, fi, x, *_ in rows if k == "stage" and fa == "bake"
                         and fi == field and vv == "auto" and x), None)
            line = f"whole bake on {field}: fastest {v} {r / base:.2f}x scalar"
            if auto:
                line += f", auto {auto / base:.2f}x"
            print(line)
    for name, msg in errors:
        print(f"FAILED {name}: {msg}", file=sys.stderr)
    if p.returncode != 0 or errors:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
