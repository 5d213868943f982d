#!/usr/bin/env python3
"""Re-verifies the winners recorded in `ktune bench` result files with `ktune verify`.

A bench file records, per problem, the cached winner it measured; this runs `ktune verify FAMILY
<problem flags> --set ...` on each (any family: a problem's dims and options become its flags) with fresh random inputs (a new seed per run), so a committed result can be checked on
the GPU without its tuning cache. Prints one line per winner and exits 1 if any fails.
  scripts/verify-bench.py KTUNE RESULT.json [RESULT.json ...]
"""
import subprocess
import sys
from results_file import load_json


def winners(path):
    doc = load_json(path)
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
            options = {k: v for k, v in problem.items() if k not in ("family", "dims", "dtype")}
            cmd = [ktune, "verify", problem["family"], "--no-progress", "--dtype", problem["dtype"],
                   "--config", f"configs/{rec['config_name']}.json"]
            cmd += [arg for name, value in {**dims, **options}.items() for arg in (f"--{name.lower()}", str(value))]
            cmd += ["--set"] + [f"{name}={value}" for name, value in sorted(rec["params"].items())]
            run = subprocess.run(cmd, capture_output=True, text=True)
            checked += 1
            status = "PASS" if run.returncode == 0 else f"FAIL (exit {run.returncode})"
            failed += run.returncode != 0
            shape = " ".join([problem["family"], "x".join(str(v) for v in dims.values()), problem["dtype"],
                              *map(str, options.values())])
            print(f"{status}  {shape}  {rec['config_name']}  {rec['kernel_name']}")
            if run.returncode != 0:
                print((run.stdout + run.stderr).strip()[-2000:])
    print(f"{checked - failed} of {checked} winners pass ktune verify")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
