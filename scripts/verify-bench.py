#!/usr/bin/env python3
"""Re-verifies the winners recorded in `ktune bench` result files with `ktune verify`.

A bench file records, per problem, the cached winner it measured; this runs `ktune verify --set`
on each with fresh random inputs (a new seed per run), so a committed result can be checked on
the GPU without its tuning cache. Prints one line per winner and exits 1 if any fails.
  scripts/verify-bench.py KTUNE RESULT.json [RESULT.json ...]
"""
import json
import subprocess
import sys


def winners(path):
    with open(path) as f:
        doc = json.load(f)
    for entry in doc["problems"]:
        problem = entry["problem"]
        for rec in entry["records"]:
            if rec["params"]:  # the reference (cuBLAS) has none
                yield problem, rec


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ktune, failed, checked = sys.argv[1], 0, 0
    for path in sys.argv[2:]:
        for problem, rec in winners(path):
            dims = problem["dims"]
            cmd = [ktune, "verify", "--no-progress", "--m", str(dims["M"]), "--n", str(dims["N"]),
                   "--k", str(dims["K"]), "--dtype", problem["dtype"], "--layout", problem["layout"],
                   "--config", f"configs/{rec['config_name']}.json", "--set"]
            cmd += [f"{name}={value}" for name, value in sorted(rec["params"].items())]
            run = subprocess.run(cmd, capture_output=True, text=True)
            checked += 1
            status = "PASS" if run.returncode == 0 else f"FAIL (exit {run.returncode})"
            failed += run.returncode != 0
            shape = f"{dims['M']}x{dims['N']}x{dims['K']} {problem['dtype']} {problem['layout']}"
            print(f"{status}  {shape}  {rec['config_name']}  {rec['kernel_name']}")
            if run.returncode != 0:
                print((run.stdout + run.stderr).strip()[-2000:])
    print(f"{checked - failed} of {checked} winners pass ktune verify")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
