"""ncu's kernel durations of ktune's memory-bound winners and of cuDNN's kernels, next to ktune's
own medians for the same problems: an independent timer on the numbers in results/h100.

Usage: python3 scripts/ncu_memory_bound.py KTUNE RESULTS.json OUTDIR [PROBLEM_INDEX...]
RESULTS.json is a `ktune bench` results file from the same machine (its winners must be in the
best-config cache); each chosen problem is benched again under ncu, one at a time, with
`--no-tune --no-hold` (ncu serializes launches: a held stream would wait for its safety valve)
and ncu's own cache control (flush before every kernel) and no clock control.
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys
from results_file import load_json

KTUNE, RESULTS, OUT = sys.argv[1:4]
picks = [int(a) for a in sys.argv[4:]]
os.makedirs(OUT, exist_ok=True)
doc = load_json(RESULTS)
problems = doc["problems"]
HELPERS = ("ktune_compare", "ktune_checksum", "ktune_fill", "ktune_to_fp32", "ktune_hold", "ktune_spin",
           "ktune_read_flush", "ktune_ref_")


def ktune_median(entry, role):
    for r in entry["records"]:
        if r.get("role") == role and r.get("time"):
            return r["time"]["median"], r.get("source")
    return None, None


for i in picks or range(len(problems)):
    entry = problems[i]
    # {family, dims, dtype, option: value...} -> a suite entry: the family's options (eps, p,
    # seed, layout) sit beside dims as their own keys.
    q = entry["problem"]
    options = {k: v for k, v in q.items() if k not in ("family", "dims", "dtype")}
    p = {"family": q["family"], **q["dims"], "dtype": q["dtype"], **options}
    one = os.path.join(OUT, f"ncu-{i}.json")
    json.dump({"name": f"ncu-{i}", "problems": [p]}, open(one, "w"))
    cmd = ["ncu", "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
           "--metrics", "gpu__time_duration.sum", "--csv", "--print-units", "base",
           KTUNE, "bench", one, "--no-tune", "--no-hold", "--samples", "20", "--rounds", "1", "--warmup-ms", "1",
           "--timeout", "600", "--out", OUT, "--stem", f"ncu-{i}", "--no-progress"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    open(os.path.join(OUT, f"ncu-{i}.log"), "w").write(proc.stdout + proc.stderr)
    rows = [l for l in proc.stdout.splitlines() if l.startswith('"')]
    dur = {"ktune": [], "library": []}
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = row["Kernel Name"].removeprefix("void ")
        if name.startswith(HELPERS):
            continue
        dur["ktune" if name.startswith("ktune_") else "library"].append(float(row["Metric Value"].replace(",", "")) * 1e-6)
    k_ms, _ = ktune_median(entry, "candidate")
    b_ms, b_src = ktune_median(entry, "baseline")
    nk = statistics.median(dur["ktune"]) if dur["ktune"] else None
    nb = statistics.median(dur["library"]) if dur["library"] else None
    fmt = lambda x: f"{x:.4f}" if x else "-"
    diff = lambda a, b: f"{100 * (a / b - 1):+.1f}%" if a and b else "-"
    print(f"ncu-check {json.dumps(p)}: exit {proc.returncode}; ktune events {fmt(k_ms)} ms vs ncu {fmt(nk)} ms "
          f"({diff(k_ms, nk)}, n={len(dur['ktune'])}); baseline {b_src} events {fmt(b_ms)} ms vs ncu {fmt(nb)} ms "
          f"({diff(b_ms, nb)}, n={len(dur['library'])})", flush=True)
