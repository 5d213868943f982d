"""ncu's kernel durations of ktune's example winners and of torch.compile's kernels for the same
problems: one timer, gpu__time_duration with ncu flushing the caches before every kernel, for
the comparison scripts/examples_summary.py makes from two (ktune's samples, triton's do_bench).

Usage: python3 scripts/ncu_examples.py KTUNE BENCH.json OUTDIR FAMILY...
For each FAMILY, its first problem in BENCH.json (a `ktune bench examples/examples.suite.json`
results file from this machine, its winners in the best-config cache) is benched again under ncu
with --no-tune --no-hold, and scripts/torch_examples.py --ncu FAMILY runs torch.compile's version;
the medians of the kernels each launches are printed side by side.
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys
from results_file import load_json

KTUNE, BENCH, OUT = sys.argv[1:4]
families = sys.argv[4:]
os.makedirs(OUT, exist_ok=True)
NCU = ["ncu", "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
       "--metrics", "gpu__time_duration.sum", "--csv", "--print-units", "base"]
# ktune's own helper kernels and the declarations' references: not what is compared.
HELPERS = ("ktune_compare", "ktune_checksum", "ktune_fill", "ktune_to_fp32", "ktune_hold", "ktune_spin",
           "ktune_read_flush", "ktune_ref_")


def durations(stdout):
    """{kernel name: [ms, ...]} from ncu's CSV."""
    out = {}
    rows = [l for l in stdout.splitlines() if l.startswith('"')]
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = row["Kernel Name"].removeprefix("void ")
        out.setdefault(name, []).append(float(row["Metric Value"].replace(",", "")) * 1e-6)
    return out


doc = load_json(BENCH)
for family in families:
    entry = next(e for e in doc["problems"] if e["problem"]["family"] == family)
    q = entry["problem"]
    p = {"family": family, **q["dims"], "dtype": q["dtype"]}
    one = os.path.join(OUT, f"ncu-{family}.json")
    json.dump({"name": f"ncu-{family}", "problems": [p]}, open(one, "w"))
    ours = subprocess.run(NCU + [KTUNE, "bench", one, "--no-tune", "--no-hold", "--samples", "20", "--rounds", "1",
                                 "--warmup-ms", "1", "--timeout", "600", "--out", OUT, "--stem", f"ncu-{family}",
                                 "--no-progress"], capture_output=True, text=True)
    theirs = subprocess.run(NCU + ["--nvtx", "--nvtx-include", "ktune_measure/", sys.executable, "scripts/torch_examples.py",
                                   "--ncu", family],
                            capture_output=True, text=True)
    open(os.path.join(OUT, f"ncu-{family}.log"), "w").write(ours.stdout + ours.stderr + theirs.stdout + theirs.stderr)
    kernel = {k: v for k, v in durations(ours.stdout).items() if not k.startswith(HELPERS) and "reference" not in k}
    compiled = {k: v for k, v in durations(theirs.stdout).items() if k.startswith("triton")}
    # ktune: the one tuned kernel the bench launches most; torch.compile: the sum of its kernels'
    # medians (one fused kernel where it fuses everything).
    ours_name = max(kernel, key=lambda k: len(kernel[k])) if kernel else None
    ours_ms = statistics.median(kernel[ours_name]) if ours_name else None
    theirs_ms = sum(statistics.median(v) for v in compiled.values()) if compiled else None
    ratio = f"{theirs_ms / ours_ms:.3f}x" if ours_ms and theirs_ms else "-"
    fmt = lambda x: f"{x:.4f}" if x else "-"
    print(f"ncu {family} {json.dumps(q['dims'])} {q['dtype']}: ktune {fmt(ours_ms)} ms ({ours_name}, "
          f"n={len(kernel.get(ours_name, []))}); torch.compile {fmt(theirs_ms)} ms ({', '.join(compiled)}); "
          f"ktune faster by {ratio}", flush=True)
