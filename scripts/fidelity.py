"""Timing fidelity: does ktune measure what independent timers measure?

On a GPU machine with PyTorch, Triton and Nsight Compute, for each shape of suites/fidelity.json:
  1. `ktune bench` (tunes what the cache lacks) with the defaults (CUDA events, stream held while a
     batch is enqueued), then again with --no-hold, --timer cupti (the GPU's own kernel stamps),
     --l2-flush read, and with --timer cupti --cooldown MS (every sample an isolated launch after
     MS of idle, the regime a profiler's replay measures), to see what each suspect changes;
  2. cuBLAS through torch.matmul on the same shapes and input distribution (A ~ N(0,1),
     B ~ N(0,1)/sqrt(K)) under triton's do_bench: the median of 3 x (warmup 100 ms, rep 500 ms),
     right before and right after ktune's default run, since the GPU's power and thermal state
     moves do_bench's medians by several percent between runs minutes apart;
  3. ncu (--clock-control none --cache-control all) over `ktune bench --no-tune --no-hold`: the kernel
     durations (gpu__time_duration) of ktune's kernel and of cuBLAS's, whose median ratio is the
     ratio a profiler would report.
Prints a table of the deviations and writes OUT/fidelity.txt and OUT/fidelity.json.
Usage: python3 scripts/fidelity.py KTUNE OUTDIR [RESULTS.json ...]
With results files, ktune measures the configurations they record (`bench --configs-from`)
instead of tuning the shapes first."""
import csv
import io
import json
import os
import statistics
import subprocess
import sys

KTUNE, OUT, CONFIGS_FROM = sys.argv[1], sys.argv[2], sys.argv[3:]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE = os.path.join(ROOT, "suites", "fidelity.json")
os.makedirs(OUT, exist_ok=True)
problems = json.load(open(SUITE))["problems"]


def shape(p):
    d = p.get("dims", p)  # a suite entry has M, N, K itself; a results problem has them in "dims"
    return f"{d['M']}x{d['N']}x{d['K']} {p['dtype']} {p['layout']}"


def bench(stem, *extra, suite=SUITE):
    cmd = [KTUNE, "bench", suite, "--out", OUT, "--stem", stem, "--no-progress", *extra]
    if CONFIGS_FROM:
        cmd += ["--configs-from", *CONFIGS_FROM]
    log = open(os.path.join(OUT, stem + ".log"), "w")
    rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    print(f"{' '.join(cmd[1:])}: exit {rc}", flush=True)
    return json.load(open(os.path.join(OUT, stem + ".json")))["problems"] if rc == 0 else None


def records(results):
    """shape -> (cublas record, ktune record)"""
    out = {}
    for r in results or []:
        by = {rec["source"]: rec for rec in r["records"]}
        out[shape(r["problem"])] = (by.get("cublas"), by.get("ktune"))
    return out


# triton's do_bench on PyTorch's cuBLAS call, same shapes and input distribution.
import torch  # noqa: E402
from triton.testing import do_bench  # noqa: E402


def run_dobench():
    out = {}
    for p in problems:
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[p["dtype"]]
        a = torch.randn(p["M"], p["K"], device="cuda", dtype=dtype)
        b = torch.randn(p["K"], p["N"], device="cuda", dtype=dtype) / p["K"] ** 0.5
        ms = [do_bench(lambda: torch.matmul(a, b), warmup=100, rep=500, return_mode="median") for _ in range(3)]
        out[shape(p)] = statistics.median(ms)
        del a, b
    torch.cuda.empty_cache()
    return out


# Isolated samples (10 ms of idle before each; 50 ms gave the same medians within 0.3%), with the
# usual write flush and with a read flush, whose clean lines are closer to ncu's cache
# invalidation: the dirty lines a write flush leaves cost short kernels ~3% (the read-flush run).
ISOLATED = {"isolated": [], "isolated-read": ["--l2-flush", "read"]}
dobench_before = run_dobench()
runs = {"events": bench("fid-events")}
dobench_after = run_dobench()
variants = [("nohold", ["--no-hold"]), ("cupti", ["--timer", "cupti"]), ("read", ["--l2-flush", "read"])]
variants += [(name, ["--timer", "cupti", "--cooldown", "10", "--samples", "100", "--rounds", "5", *flush])
             for name, flush in ISOLATED.items()]
for name, extra in variants:
    runs[name] = bench("fid-" + name, "--no-tune", *extra)
recs = {name: records(r) for name, r in runs.items()}

# ncu kernel durations of ktune's winner and of cuBLAS, one problem at a time.
ncu = {}
helpers = ("ktune_compare", "ktune_checksum", "ktune_fill", "ktune_to_fp32", "ktune_hold", "ktune_spin",
           "ktune_read_flush")
for i, p in enumerate(problems):
    one = os.path.join(OUT, f"fid-ncu-{i}.json")
    json.dump({"name": f"fidelity-{i}", "problems": [p]}, open(one, "w"))
    cmd = ["ncu", "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
           "--metrics", "gpu__time_duration.sum",
           # --no-hold: ncu runs each launch to completion before returning, so a kernel holding the
           # stream until the batch is enqueued would only end at its safety valve.
           "--csv", "--print-units", "base", KTUNE, "bench", one, "--no-tune", "--no-hold", "--samples", "30",
           "--rounds", "2", *(["--configs-from", *CONFIGS_FROM] if CONFIGS_FROM else []),
           "--warmup-ms", "1", "--timeout", "600", "--out", OUT, "--stem", f"fid-ncu-{i}", "--no-progress"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    open(os.path.join(OUT, f"fid-ncu-{i}.log"), "w").write(proc.stdout + proc.stderr)
    lines = [l for l in proc.stdout.splitlines() if l.startswith('"')]
    durations = {"ktune": [], "cublas": []}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = row["Kernel Name"].removeprefix("void ")  # ncu shows demangled names: "void ktune_gemm_wgmma<...>(...)"
        if name.startswith(helpers):
            continue
        kind = "ktune" if name.startswith("ktune_") else "cublas"
        durations[kind].append(float(row["Metric Value"].replace(",", "")) * 1e-6)  # ns -> ms
    if durations["ktune"] and durations["cublas"]:
        ncu[shape(p)] = {k: statistics.median(v) for k, v in durations.items()}
        ncu[shape(p)]["n"] = {k: len(v) for k, v in durations.items()}
    print(f"ncu {shape(p)}: exit {proc.returncode}, {len(durations['ktune'])} ktune and "
          f"{len(durations['cublas'])} cuBLAS kernels", flush=True)


def pct(x, y):
    return f"{100 * (x / y - 1):+.1f}%" if x and y else "n/a"


def median(rec):
    return rec["time"]["median"] if rec and rec.get("time") else None


def ratio(rec):
    return rec.get("ratio_vs_baseline", rec.get("ratio_vs_reference")) if rec else None  # the key before 2026-11-27


def clocks(rec):
    t = (rec or {}).get("telemetry_after") or {}
    flag = " THROTTLED" if t.get("throttled") else ""
    return f"{t.get('sm_clock_mhz', '?')} MHz {t.get('power_w', 0):.0f} W{flag}"


cols = ["shape", "cuBLAS events", "do_bench before", "dev", "do_bench after", "dev", "no-hold", "dev", "read-flush",
        "dev", "cupti cuBLAS", "ncu cuBLAS",
        "ratio events", "ratio cupti"] + [f"ratio {n}" for n in ISOLATED] + \
       ["ratio ncu", "events vs ncu", "cupti vs ncu"] + [f"{n} vs ncu" for n in ISOLATED] + \
       ["clocks events run", "clocks isolated run"]
lines = [" | ".join(cols), "|".join(["---"] * len(cols))]
summary = []
f = lambda x: f"{x:.4f}" if x else "n/a"  # noqa: E731
g = lambda x: f"{x:.3f}x" if x else "n/a"  # noqa: E731
for p in problems:
    s = shape(p)
    got = {name: recs[name].get(s, (None, None)) for name in recs}
    (ev_c, ev_k), (nh_c, _), (rd_c, _), (cu_c, cu_k) = got["events"], got["nohold"], got["read"], got["cupti"]
    iso = {n: got[n] for n in ISOLATED}
    n = ncu.get(s)
    ncu_ratio = n["cublas"] / n["ktune"] if n else None
    db, da = dobench_before.get(s), dobench_after.get(s)
    row = {"shape": s, "events_cublas_ms": median(ev_c), "dobench_before_ms": db, "dobench_after_ms": da, "nohold_cublas_ms": median(nh_c),
           "read_flush_cublas_ms": median(rd_c), "cupti_cublas_ms": median(cu_c),
           "ncu_cublas_ms": n["cublas"] if n else None, "ncu_ktune_ms": n["ktune"] if n else None,
           "ratio_events": ratio(ev_k), "ratio_cupti": ratio(cu_k), "ratio_ncu": ncu_ratio,
           "ratio_isolated": {n: ratio(iso[n][1]) for n in ISOLATED},
           "isolated_ms": {n: {"ktune": median(iso[n][1]), "cublas": median(iso[n][0])} for n in ISOLATED},
           "telemetry_events": (ev_c or {}).get("telemetry_after"),
           "telemetry_isolated": {n: (iso[n][0] or {}).get("telemetry_after") for n in ISOLATED}}
    summary.append(row)
    cells = [s, f(median(ev_c)), f(db), pct(median(ev_c), db), f(da), pct(median(ev_c), da), f(median(nh_c)),
             pct(median(nh_c), da), f(median(rd_c)), pct(median(rd_c), da), f(median(cu_c)), f(n["cublas"] if n else None), g(ratio(ev_k)), g(ratio(cu_k))]
    cells += [g(ratio(iso[n][1])) for n in ISOLATED]
    cells += [g(ncu_ratio), pct(ratio(ev_k), ncu_ratio), pct(ratio(cu_k), ncu_ratio)]
    cells += [pct(ratio(iso[n][1]), ncu_ratio) for n in ISOLATED]
    cells += [clocks(ev_c), clocks(iso["isolated"][0])]
    lines.append(" | ".join(cells))
text = "\n".join(lines) + "\n"
open(os.path.join(OUT, "fidelity.txt"), "w").write(text)
json.dump(summary, open(os.path.join(OUT, "fidelity.json"), "w"), indent=1)
print(text)
