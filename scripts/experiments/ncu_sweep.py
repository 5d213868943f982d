"""Every candidate of a sweep by ncu's timer: runs a command (a `ktune FAMILY ... --exhaustive`
tuning, or a PyTorch script) under ncu with the caches flushed before each kernel, and prints each
kernel's median duration with its launch shape, registers and DRAM bytes, fastest first. ktune's
kernel names carry their template arguments, so each line is one configuration.

Usage: python3 scripts/experiments/ncu_sweep.py OUT.csv KERNEL_REGEX [--top N] -- COMMAND...
NCU_ARGS (environment): more ncu arguments, e.g. "--launch-count 200".
"""
import csv
import io
import os
import shlex
import statistics
import subprocess
import sys

METRICS = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "launch__grid_size",
           "launch__block_size", "launch__registers_per_thread",
           "sm__warps_active.avg.pct_of_peak_sustained_active"]


def main():
    split = sys.argv.index("--")
    out_csv, regex, *rest = sys.argv[1:split]
    top = int(rest[rest.index("--top") + 1]) if "--top" in rest else 20
    command = sys.argv[split + 1:]
    ncu = ["ncu", "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
           "-k", f"regex:{regex}", "--metrics", ",".join(METRICS), "--csv", "--print-units", "base",
           *shlex.split(os.environ.get("NCU_ARGS", ""))]
    run = subprocess.run(ncu + command, capture_output=True, text=True)
    open(out_csv, "w").write(run.stdout)
    rows = [l for l in run.stdout.splitlines() if l.startswith('"')]
    kernels = {}  # name -> {metric: [values]}
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        name = row["Kernel Name"].removeprefix("void ")
        try:
            value = float(row["Metric Value"].replace(",", ""))
        except ValueError:
            continue
        kernels.setdefault(name, {}).setdefault(row["Metric Name"], []).append(value)
    med = {k: {m: statistics.median(v) for m, v in ms.items()} for k, ms in kernels.items()}
    ranked = sorted(med, key=lambda k: med[k].get("gpu__time_duration.sum", float("inf")))
    print(f"{len(ranked)} kernels under ncu (exit {run.returncode})")
    for k in ranked[:top]:
        m = med[k]
        us = m.get("gpu__time_duration.sum", 0) * 1e-3
        gb = (m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0)) / 1e9
        print(f"{us:9.2f} us  {gb / (us * 1e-6) if us else 0:7.0f} GB/s  dram r {m.get('dram__bytes_read.sum', 0) / 1e6:7.1f} MB"
              f" w {m.get('dram__bytes_write.sum', 0) / 1e6:7.1f} MB  grid {m.get('launch__grid_size', 0):.0f}"
              f" block {m.get('launch__block_size', 0):.0f} regs {m.get('launch__registers_per_thread', 0):.0f}"
              f" warps {m.get('sm__warps_active.avg.pct_of_peak_sustained_active', 0):.0f}%  n={len(kernels[k].get('gpu__time_duration.sum', []))}  {k[:150]}")
    if run.returncode:
        print(run.stderr[-3000:])


if __name__ == "__main__":
    main()
