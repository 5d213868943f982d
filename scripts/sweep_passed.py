"""Reduces a `ktune gemm` results CSV to its passing candidates: config, tunables and median ms,
fastest first (the data a config's search "estimate" is checked against).

Usage: python3 scripts/sweep_passed.py RESULTS.csv > SWEEP.csv
"""
import csv
import sys

fixed = {"family", "source", "config_name", "kernel_name", "disposition", "reason", "registers", "spill_stores",
         "spill_loads", "mean_ms", "min_ms", "max_ms", "stdev_ms", "p20_ms", "p80_ms", "n", "pruned", "tflops", "gbps",
         "max_abs_err", "max_rel_err", "norm_rel_err", "ratio_vs_baseline", "ratio_vs_reference", "median_ms"}
rows = list(csv.DictReader(open(sys.argv[1])))
keep = [r for r in rows if r["source"] == "ktune" and r["disposition"] == "passed" and r["median_ms"]]
keep.sort(key=lambda r: float(r["median_ms"]))
reference = [r for r in rows if r["source"] not in ("ktune", "copy")]
params = [c for c in rows[0].keys() if c not in fixed]
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["config_name", *params, "registers", "pruned", "median_ms"])
for r in reference[:1] + keep:
    out.writerow([r["config_name"] if r["source"] == "ktune" else r["source"], *(r[c] for c in params),
                  r["registers"], r["pruned"], r["median_ms"]])
