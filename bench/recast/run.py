#!/usr/bin/env python3
"""onepath and Recast side by side on the same OBJ worlds (docs/decisions/bench.md).

Builds bench/recast/recast_bake.cpp (our driver) against a Recast checkout the user gives
(--recast-src DIR; none is in this repository and CI does not run this), writes the demo
world as OBJ (onepath bake --out-obj), then runs both bakers on every input and partition,
one bake per process, pinned to one core with taskset, interleaved (which side goes first
alternates per round), and prints per-stage medians: Recast ms, onepath ms, Recast / onepath,
peak memory and bytes per compact span, and the output counts side by side.

  python3 bench/recast/run.py --recast-src /work/recast-src --demo-sizes 1936 \\
      --meshes nav_test,dungeon --rounds 5 --check --markdown
"""
import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# (row label, key in both tools' "ms")
STAGES = [("rasterize", "rasterize"), ("filters", "filters"), ("compact", "compact"),
          ("erode", "erode"), ("spans stage", "spans"), ("distance", "distance"),
          ("regions", "regions"), ("contours", "contours"), ("bake", "bake")]
RECAST_FLAGS = ["-O3", "-march=native", "-DNDEBUG", "-DRC_DISABLE_ASSERTS", "-std=c++11"]
# g++ contracts a*b+c into FMA by default in C++ (-ffp-contract=fast; -march=native has
# FMA), which moves a few rasterizer cut points by an ulp: Recast's spans then differ from
# onepath's binary32 order in a few cells. The exact build is what --check compares.
EXACT_FLAGS = ["-ffp-contract=off"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def build_driver(recast_src, out_dir, cxx, force, flags, name):
    """Recast's sources and our driver, one binary, asserts off."""
    inc = os.path.join(recast_src, "Recast", "Include")
    src_dir = os.path.join(recast_src, "Recast", "Source")
    if not os.path.isdir(inc) or not os.path.isdir(src_dir):
        sys.exit("--recast-src %s: no Recast/Include and Recast/Source there" % recast_src)
    sources = [os.path.join(HERE, "recast_bake.cpp")] + sorted(
        os.path.join(src_dir, f) for f in os.listdir(src_dir) if f.endswith(".cpp"))
    exe = os.path.join(out_dir, name)
    stamp = exe + ".flags"
    same_flags = os.path.exists(stamp) and open(stamp).read() == " ".join(flags)
    if (not force and same_flags and os.path.exists(exe)
            and os.path.getmtime(exe) >= max(os.path.getmtime(s) for s in sources)):
        return exe
    cmd = [cxx] + flags + ["-I", inc] + sources + ["-o", exe]
    log("building:", " ".join(cmd))
    subprocess.run(cmd, check=True)
    with open(stamp, "w") as f:
        f.write(" ".join(flags))
    return exe


def recast_commit(recast_src):
    try:
        return subprocess.run(["git", "-C", recast_src, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def demo_obj(onepath, size, out_dir):
    """The demo world's triangles as OBJ (onepath bake --out-obj) and its grid box: both
    bakers get --bmin/--bmax, so they bake the demo's size x size columns. The demo's area
    volumes are not in the OBJ: neither side applies them."""
    obj = os.path.join(out_dir, "demo-%d.obj" % size)
    meta = os.path.join(out_dir, "demo-%d.json" % size)
    if not (os.path.exists(obj) and os.path.exists(meta)
            and os.path.getmtime(obj) >= os.path.getmtime(onepath)):
        log("writing", obj)
        subprocess.run([onepath, "bake", "--demo", "--demo-size", str(size), "--until", "spans",
                        "--quiet", "--out-obj", obj, "--json", meta], check=True)
    g = json.load(open(meta))["grid"]
    box = ["--bmin", ",".join(repr(v) for v in g["bmin"]),
           "--bmax", ",".join(repr(v) for v in g["bmax"])]
    return obj, box


# taskset (and nice, --nice) before every bake: main() sets it.
PIN = []


def run_recast(exe, obj, box, partition, extra=()):
    cmd = PIN + [exe, obj, "--partition", partition] + box + list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("recast_bake failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    return json.loads(p.stdout)


def run_onepath(onepath, obj, box, partition, isa, tmp, extra=()):
    out = os.path.join(tmp, "onepath.json")
    cmd = (PIN + [onepath, "bake", obj, "--partition", partition,
            "--quiet", "--json", out] + box + (["--isa", isa] if isa else []) + list(extra))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("onepath failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    j = json.load(open(out))
    ms = j["ms"]
    # The bake = the stages' own timers (the OBJ's parsing and the JSON are not in it;
    # onepath's digests and the prefault of dist/region between stages are not either).
    ms["bake"] = ms["spans"] + ms.get("distance", 0) + ms.get("regions", 0) + ms.get(
        "contours", 0)
    ms.setdefault("distance", 0.0)
    return j


def counts(j):
    """The outputs to set side by side (recast_bake's JSON has onepath's keys)."""
    return dict(solid=j["spans"]["solid"], compact=j["spans"]["compact"],
                walkable=j["spans"]["walkable"], regions=j["regions"]["count"],
                contours=j["contours"]["count"], verts=j["contours"]["vertices"],
                holes=j["contours"].get("holes_merged"),
                grid="%dx%d" % (j["grid"]["width"], j["grid"]["depth"]))


def read_opchf(path):
    b = open(path, "rb").read()
    if b[:8] != b"OPCHF1\0\0":
        sys.exit("%s: not OPCHF1" % path)
    w, d, n = struct.unpack_from("<3I", b, 8)
    head = struct.unpack_from("<8f3i", b, 20)
    cells_at = 20 + 44
    spans_at = cells_at + 8 * w * d
    return dict(w=w, d=d, n=n, head=head, cells=b[cells_at:spans_at],
                spans=b[spans_at:spans_at + 10 * n])


def compare_fields(a, b):
    """Two OPCHF1 fields: grid, cells, span y, h and the four links must be the same bytes;
    areas may differ where the two erosions do."""
    res = {}
    names = ["bmin.x", "bmin.y", "bmin.z", "bmax.x", "bmax.y", "bmax.z", "cs", "ch",
             "walkable_height", "walkable_climb", "border_size"]
    # (Recast raises its field's bmax.y by walkable_height * ch: reported, not an error)
    res["header_diff"] = ["%s %r / %r" % (names[i], a["head"][i], b["head"][i])
                          for i in range(11) if a["head"][i] != b["head"][i]]
    res["spans"] = (a["n"], b["n"])
    res["grid"] = (a["w"], a["d"]) == (b["w"], b["d"])
    res["cells"] = a["cells"] == b["cells"]
    if res["grid"] and not res["cells"]:
        n = a["w"] * a["d"]
        ca = struct.unpack("<%dI" % (2 * n), a["cells"])
        cb = struct.unpack("<%dI" % (2 * n), b["cells"])
        res["cells_differ"] = sum(1 for c in range(n) if ca[2 * c + 1] != cb[2 * c + 1])
        # same counts, other first spans: Recast's 24-bit rcCompactCell::index wrapped
        res["first_differ"] = sum(1 for c in range(n)
                                  if ca[2 * c + 1] and ca[2 * c] != cb[2 * c])
    if res["grid"] and a["n"] == b["n"]:  # the span arrays, in cell order on both sides
        sa, sb = a["spans"], b["spans"]
        res["y_h"] = all(sa[k::10] == sb[k::10] for k in (0, 1, 2, 3))
        res["links_differ"] = sum(1 for k in (6, 7, 8, 9)
                                  for x, y in zip(sa[k::10], sb[k::10]) if x != y)
        res["links"] = res["links_differ"] == 0
        aa, ab = sa[4::10], sb[4::10]
        res["area_diff"] = sum(1 for x, y in zip(aa, ab) if x != y)
    res["same"] = bool(res["cells"] and res.get("y_h") and res.get("links"))
    return res


def describe_check(c):
    if c["same"]:
        t = ("same cells, span y, h and links (%d spans); areas after erosion differ on %d "
             "spans" % (c["spans"][0], c["area_diff"]))
    elif not c["grid"]:
        t = "DIFFERENT grids"
    elif c.get("cells_differ"):
        t = ("%d vs %d spans: span counts differ in %d cells"
             % (c["spans"][0], c["spans"][1], c["cells_differ"]))
    else:
        t = ("%d spans, the same count in every cell, but %s"
             % (c["spans"][0], ", ".join(
                 (["the first span differs in %d cells (Recast's 24-bit rcCompactCell::index "
                   "wraps above 16777215 spans)" % c["first_differ"]]
                  if c.get("first_differ") else []) +
                 ["span y and h %s" % ("the same" if c.get("y_h") else "DIFFER"),
                  "%d links differ" % c.get("links_differ", -1),
                  "areas after erosion differ on %d spans" % c.get("area_diff", -1)])))
    return t + "; header fields that differ (Recast / onepath): " + (
        ", ".join(c["header_diff"]) or "none")


def check_fields(exes, onepath, obj, box, isa, tmp):
    """Both compact fields after erosion as OPCHF1, compared with compare_fields, for each
    Recast build in exes ({label: driver})."""
    b_path = os.path.join(tmp, "onepath.opchf")
    run_onepath(onepath, obj, box, "watershed", isa, tmp,
                ["--until", "spans", "--out-chf", b_path])
    b = read_opchf(b_path)
    out = {}
    for label, exe in exes.items():
        a_path = os.path.join(tmp, "recast.opchf")
        run_recast(exe, obj, box, "watershed", ["--out-chf", a_path])
        out[label] = compare_fields(read_opchf(a_path), b)
        os.remove(a_path)
    os.remove(b_path)
    return out


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def peak(j):
    """memory.peak_bytes, or nan for a onepath older than the JSON's memory (a495c93)."""
    return j.get("memory", {}).get("peak_bytes", float("nan"))


def fmt_ms(v):
    return "%.1f" % v if v >= 10 else "%.2f" % v


def table(name, part, rec, one, rc, oc, markdown):
    """One input and partition: per-stage medians and memory."""
    rows = []
    for label, key in STAGES:
        if part != "watershed" and key == "distance":
            # Recast's monotone and layers need no distance field; onepath's bake makes it
            # for every partition (its digest is part of the output), inside "bake"
            o = med([j["ms"][key] for j in one])
            rows.append(("distance (onepath's bake only)", "-", fmt_ms(o), "-", "-"))
            continue
        r = med([j["ms"][key] for j in rec])
        o = med([j["ms"][key] for j in one])
        lbl = "regions (%s)" % part if key == "regions" else label
        # each round's own ratio (its two bakes ran back to back): the spread of the load
        per = [x["ms"][key] / y["ms"][key] for x, y in zip(rec, one) if y["ms"][key] > 0]
        rows.append((lbl, fmt_ms(r), fmt_ms(o), "%.2f" % (r / o) if o > 0 else "-",
                     "%.2f-%.2f" % (min(per), max(per)) if per else "-"))
    rp = med([peak(j) for j in rec])
    op = med([peak(j) for j in one])
    n = oc["compact"]
    rows.append(("peak memory MiB (B per compact span)",
                 "%.1f (%.1f)" % (rp / 2**20, rp / n), "%.1f (%.1f)" % (op / 2**20, op / n),
                 "%.2f" % (rp / op), ""))
    out = []
    if markdown:
        out.append("| %s, %s | Recast ms | onepath ms | Recast ÷ onepath | rounds' ratios |"
                   % (name, part))
        out.append("|---|---|---|---|---|")
        out += ["| %s | %s | %s | %s | %s |" % r for r in rows]
    else:
        out.append("%s, %s" % (name, part))
        out += ["  %-40s %12s %12s %8s %12s" % r for r in rows]
    return out


def report(runs, checks, header, markdown):
    """The tables: per input and partition the stage medians, then the outputs and the
    field check. runs: {(input, partition): {"recast": [json], "onepath": [json]}}."""
    lines = [header, ""]
    names, parts = [], []
    for name, part in runs:
        if name not in names:
            names.append(name)
        if part not in parts:
            parts.append(part)
    # one line per input and partition: the whole bake and the peak
    summ = []
    for (name, part), r in runs.items():
        rb = med([j["ms"]["bake"] for j in r["recast"]])
        ob = med([j["ms"]["bake"] for j in r["onepath"]])
        per = [x["ms"]["bake"] / y["ms"]["bake"] for x, y in zip(r["recast"], r["onepath"])]
        n = r["onepath"][0]["spans"]["compact"]
        rp = med([peak(j) for j in r["recast"]])
        op = med([peak(j) for j in r["onepath"]])
        summ.append((name, part, n, fmt_ms(rb), fmt_ms(ob), "%.2f (%.2f-%.2f)" % (
            rb / ob, min(per), max(per)), "%.1f / %.1f (%.1f / %.1f)" % (
            rp / 2**20, op / 2**20, rp / n, op / n)))
    hdr = ("input", "partition", "compact spans", "Recast bake ms", "onepath bake ms",
           "Recast ÷ onepath (rounds)", "peak MiB Recast / onepath (B per span)")
    if markdown:
        lines += ["| " + " | ".join(hdr) + " |", "|---" * len(hdr) + "|"]
        lines += ["| %s | %s | %d | %s | %s | %s | %s |" % x for x in summ]
    else:
        lines += ["  ".join(hdr)] + ["  %s, %s: %d spans, %s / %s ms, %s; %s" % x for x in summ]
    lines.append("")
    for name in names:
        for part in parts:
            r = runs[(name, part)]
            rc, oc = counts(r["recast"][0]), counts(r["onepath"][0])
            lines += table(name, part, r["recast"], r["onepath"], rc, oc, markdown)
            lines.append("")
        # counts side by side (from the first round of each partition)
        head = ["grid", "solid spans", "compact spans", "walkable after erosion"]
        keys = ["grid", "solid", "compact", "walkable"]
        rc, oc = (counts(runs[(name, parts[0])][side][0])
                  for side in ("recast", "onepath"))
        cl = []
        for h, k in zip(head, keys):
            cl.append((h, str(rc[k]), str(oc[k])))
        for part in parts:
            rc, oc = (counts(runs[(name, part)][side][0])
                      for side in ("recast", "onepath"))
            cl.append(("%s regions" % part, str(rc["regions"]), str(oc["regions"])))
            cl.append(("%s contours (vertices)" % part,
                       "%d (%d)%s" % (rc["contours"], rc["verts"],
                                      ", %d holes merged" % rc["holes"] if rc["holes"] else ""),
                       "%d (%d)" % (oc["contours"], oc["verts"])))
        if markdown:
            lines += ["| %s: outputs | Recast | onepath |" % name, "|---|---|---|"]
            lines += ["| %s | %s | %s |" % c for c in cl]
        else:
            lines += ["%s: outputs" % name] + ["  %-40s %14s %14s" % c for c in cl]
        if runs[(name, parts[0])]["recast"][0].get("cell_index_wrapped"):
            lines += ["", "Recast: %d compact spans, above 16777215: rcCompactCell::index (24 bits) "
                      "wrapped without an error, so Recast's erosion, regions and contours read a "
                      "corrupt field (their times are not comparable)" % rc["compact"]]
        if name in checks:
            lines.append("")
            for label, c in checks[name].items():
                lines.append("compact fields after erosion (OPCHF1), %s: %s" % (
                    label, describe_check(c)))
        lines.append("")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--from-json", help="print the tables of an earlier --json, run nothing")
    ap.add_argument("--recast-src",
                    help="a Recast checkout (github.com/recastnavigation/recastnavigation)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="onepath's build folder (its onepath tool)")
    ap.add_argument("--onepath", default=None,
                    help="the onepath tool to time (default BUILD/onepath; BUILD's writes the "
                         "demo OBJ), e.g. an older commit's build")
    ap.add_argument("--no-box", action="store_true",
                    help="bake the demo OBJ in its mesh bounds, not the demo's grid box (for a "
                         "onepath whose --bmin is broken, as a495c93's: issue 10 defect 2)")
    ap.add_argument("--out", default=None,
                    help="where the driver and the demo OBJ files go (default BUILD/recastab)")
    ap.add_argument("--demo-sizes", default="1936",
                    help="demo worlds, cells per side, comma-separated ('' for none)")
    ap.add_argument("--meshes", default="nav_test,dungeon",
                    help="OBJ files: paths, or names in RECAST_SRC/RecastDemo/Bin/Meshes")
    ap.add_argument("--partitions", default="watershed,monotone,layers")
    ap.add_argument("--rounds", type=int, default=5, help="bakes per side, input, partition")
    ap.add_argument("--cpu", type=int, default=1, help="the core both are pinned to")
    ap.add_argument("--nice", type=int, default=None,
                    help="run the bakes under nice -n N (e.g. -20 as root: on a shared core "
                         "other processes then take little of the bake's wall time)")
    ap.add_argument("--isa", default=None, help="onepath --isa (default: auto)")
    ap.add_argument("--check", action="store_true",
                    help="compare both compact fields after erosion (OPCHF1) span by span, "
                         "with the timed Recast build and with one built -ffp-contract=off")
    ap.add_argument("--exact", action="store_true",
                    help="time Recast built -ffp-contract=off too (its spans equal onepath's)")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--rebuild", action="store_true", help="rebuild the driver")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", help="every run's JSON, for later tables")
    a = ap.parse_args(argv)
    if a.from_json:
        d = json.load(open(a.from_json))
        runs = {tuple(k.split("|", 1)): v for k, v in d["runs"].items()}
        print("\n".join(report(runs, d["checks"], d.get("header", ""), a.markdown)))
        return 0
    if not a.recast_src:
        ap.error("--recast-src DIR is needed (a Recast checkout)")

    writer = os.path.join(a.build, "onepath")
    onepath = a.onepath or writer
    for t in {writer, onepath}:
        if not os.path.exists(t):
            sys.exit("%s: not built" % t)
    if not shutil.which("taskset"):
        sys.exit("taskset not found (util-linux)")
    PIN[:] = (["nice", "-n", str(a.nice)] if a.nice is not None else []) + [
        "taskset", "-c", str(a.cpu)]
    out_dir = a.out or os.path.join(a.build, "recastab")
    os.makedirs(out_dir, exist_ok=True)
    exe = build_driver(a.recast_src, out_dir, a.cxx, a.rebuild, RECAST_FLAGS, "recast_bake")
    exact = None
    if a.check or a.exact:
        exact = build_driver(a.recast_src, out_dir, a.cxx, a.rebuild,
                             RECAST_FLAGS + EXACT_FLAGS, "recast_bake_exact")
    if a.exact:
        exe = exact

    inputs = []  # (name, obj, box)
    for s in [x for x in a.demo_sizes.split(",") if x]:
        obj, box = demo_obj(writer, int(s), out_dir)
        inputs.append(("demo %s" % s, obj, [] if a.no_box else box))
    for m in [x for x in a.meshes.split(",") if x]:
        path = m if os.path.exists(m) else os.path.join(
            a.recast_src, "RecastDemo", "Bin", "Meshes", m + ("" if m.endswith(".obj") else ".obj"))
        if not os.path.exists(path):
            sys.exit("%s: no such mesh" % m)
        inputs.append((os.path.basename(path), path, []))
    parts = [p for p in a.partitions.split(",") if p]

    tmp = tempfile.mkdtemp(prefix="recastab")
    runs = {}
    loads = [os.getloadavg()[0]]
    for rnd in range(a.rounds):
        for name, obj, box in inputs:
            for part in parts:
                key = (name, part)
                runs.setdefault(key, {"recast": [], "onepath": []})
                order = ["recast", "onepath"] if rnd % 2 == 0 else ["onepath", "recast"]
                for side in order:
                    if side == "recast":
                        j = run_recast(exe, obj, box, part)
                    else:
                        j = run_onepath(onepath, obj, box, part, a.isa, tmp)
                    runs[key][side].append(j)
                loads.append(os.getloadavg()[0])
        log("round %d/%d done, load %.1f" % (rnd + 1, a.rounds, loads[-1]))

    checks = {}
    if a.check:
        for name, obj, box in inputs:
            checks[name] = check_fields({"Recast as timed": exe, "Recast -ffp-contract=off":
                                         exact}, onepath, obj, box, a.isa, tmp)
    shutil.rmtree(tmp, ignore_errors=True)

    isa = next(iter(runs.values()))["onepath"][0].get("isa", "?")
    flags = RECAST_FLAGS + (EXACT_FLAGS if a.exact else [])
    header = ("Recast %s (%s), onepath %s (isa %s); %s; %d rounds, medians; "
              "load average %.1f-%.1f (median %.1f)"
              % (recast_commit(a.recast_src), " ".join(flags), onepath, isa, " ".join(PIN),
                 a.rounds, min(loads), max(loads), med(loads)))
    lines = report(runs, checks, header, a.markdown)
    print("\n".join(lines))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"header": header, "runs": {"%s|%s" % k: v for k, v in runs.items()},
                       "checks": checks, "loads": loads}, f, indent=1)
    # The exact build must give onepath's compact field (supplement §1: Recast's spans).
    bad = [n for n, c in checks.items() if not c["Recast -ffp-contract=off"]["same"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
