"""Timing fidelity: does ktune measure what independent timers measure?

On a GPU machine with PyTorch, Triton and Nsight Compute, for each shape of suites/fidelity.json:
  1. `ktune bench` (tunes what the cache lacks) with the default timer (CUDA events), then again
     with --timer cupti (the GPU's own kernel stamps), --l2-flush read and --hold, to see what
     each suspect of a discrepancy changes;
  2. cuBLAS through torch.matmul on the same shapes and input distribution (A ~ N(0,1),
     B ~ N(0,1)/sqrt(K)) under triton's do_bench: the median of 3 x (warmup 100 ms, rep 500 ms);
  3. ncu (--clock-control none --cache-control all) over `ktune bench --no-tune`: the kernel
     durations (gpu__time_duration) of ktune's kernel and of cuBLAS's, whose median ratio is the
     ratio a profiler would report.
Prints a table of the deviations and writes OUT/fidelity.txt and OUT/fidelity.json.
Usage: python3 scripts/fidelity.py KTUNE OUTDIR"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys

KTUNE, OUT = sys.argv[1], sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE = os.path.join(ROOT, "suites", "fidelity.json")
os.makedirs(OUT, exist_ok=True)
problems = json.load(open(SUITE))["problems"]


def shape(p):
    d = p.get("dims", p)  # a suite entry has M, N, K itself; a results problem has them in "dims"
    return f"{d['M']}x{d['N']}x{d['K']} {p['dtype']} {p['layout']}"


def bench(stem, *extra, suite=SUITE):
    cmd = [KTUNE, "bench", suite, "--out", OUT, "--stem", stem, "--no-progress", *extra]
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


runs = {"events": bench("fid-events")}
for name, extra in (("cupti", ["--timer", "cupti"]), ("read", ["--l2-flush", "read"]), ("hold", ["--hold"])):
    runs[name] = bench("fid-" + name, "--no-tune", *extra)
recs = {name: records(r) for name, r in runs.items()}

# triton's do_bench on PyTorch's cuBLAS call, same shapes and input distribution.
import torch  # noqa: E402
from triton.testing import do_bench  # noqa: E402

dobench = {}
for p in problems:
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[p["dtype"]]
    a = torch.randn(p["M"], p["K"], device="cuda", dtype=dtype)
    b = torch.randn(p["K"], p["N"], device="cuda", dtype=dtype) / p["K"] ** 0.5
    ms = [do_bench(lambda: torch.matmul(a, b), warmup=100, rep=500, return_mode="median") for _ in range(3)]
    dobench[shape(p)] = statistics.median(ms)
    del a, b

# ncu kernel durations of ktune's winner and of cuBLAS, one problem at a time.
ncu = {}
helpers = ("ktune_compare", "ktune_checksum", "ktune_fill", "ktune_to_fp32", "ktune_hold", "ktune_spin",
           "ktune_read_flush")
for i, p in enumerate(problems):
    one = os.path.join(OUT, f"fid-ncu-{i}.json")
    json.dump({"name": f"fidelity-{i}", "problems": [p]}, open(one, "w"))
    cmd = ["ncu", "--target-processes", "all", "--clock-control", "none", "--cache-control", "all",
           "--metrics", "gpu__time_duration.sum",
           "--csv", "--print-units", "base", KTUNE, "bench", one, "--no-tune", "--samples", "30", "--rounds", "2",
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
    return rec.get("ratio_vs_reference") if rec else None


def clocks(rec):
    t = (rec or {}).get("telemetry_after") or {}
    flag = " THROTTLED" if t.get("throttled") else ""
    return f"{t.get('sm_clock_mhz', '?')} MHz {t.get('power_w', 0):.0f} W{flag}"


lines = ["shape | cuBLAS events | do_bench | dev | read-flush | hold | cupti cuBLAS | ncu cuBLAS | "
         "ratio events | ratio cupti | ratio ncu | cupti vs ncu | events vs ncu | clocks (events run)",
         "---|---|---|---|---|---|---|---|---|---|---|---|---|---"]
summary = []
for p in problems:
    s = shape(p)
    ev_c, ev_k = recs["events"].get(s, (None, None))
    cu_c, cu_k = recs["cupti"].get(s, (None, None))
    rd_c, _ = recs["read"].get(s, (None, None))
    ho_c, _ = recs["hold"].get(s, (None, None))
    n = ncu.get(s)
    ncu_ratio = n["cublas"] / n["ktune"] if n else None
    row = {"shape": s, "events_cublas_ms": median(ev_c), "dobench_ms": dobench.get(s),
           "read_flush_cublas_ms": median(rd_c), "hold_cublas_ms": median(ho_c), "cupti_cublas_ms": median(cu_c),
           "ncu_cublas_ms": n["cublas"] if n else None, "ncu_ktune_ms": n["ktune"] if n else None,
           "ratio_events": ratio(ev_k), "ratio_cupti": ratio(cu_k), "ratio_ncu": ncu_ratio,
           "telemetry_events": (ev_c or {}).get("telemetry_after")}
    summary.append(row)
    f = lambda x: f"{x:.4f}" if x else "n/a"  # noqa: E731
    g = lambda x: f"{x:.3f}x" if x else "n/a"  # noqa: E731
    lines.append(" | ".join([s, f(median(ev_c)), f(dobench.get(s)), pct(median(ev_c), dobench.get(s)), f(median(rd_c)),
                             f(median(ho_c)), f(median(cu_c)), f(n["cublas"] if n else None), g(ratio(ev_k)),
                             g(ratio(cu_k)), g(ncu_ratio), pct(ratio(cu_k), ncu_ratio), pct(ratio(ev_k), ncu_ratio),
                             clocks(ev_c)]))
text = "\n".join(lines) + "\n"
open(os.path.join(OUT, "fidelity.txt"), "w").write(text)
json.dump(summary, open(os.path.join(OUT, "fidelity.json"), "w"), indent=1)
print(text)
