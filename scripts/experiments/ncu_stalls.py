#!/usr/bin/env python3
"""Where a kernel's warps wait, from ncu's source page as CSV (`ncu --import REP --page source
--csv --print-source sass`, as scripts/experiments/blockscaled-diag.sh writes it): the stall
reasons summed over the kernel, then the N instructions with the most samples, in program order,
each with its two largest reasons.

  scripts/experiments/ncu_stalls.py SOURCE.csv [N]
"""
import csv
import sys


def main() -> None:
    rows = list(csv.reader(open(sys.argv[1])))
    top_n = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    header, data = rows[1], rows[2:]  # rows[0] names the kernel
    source = header.index("Source")
    samples = header.index("Warp Stall Sampling (All Samples)")
    executed = header.index("Instructions Executed")
    reasons = [i for i, h in enumerate(header) if h.startswith("stall_") and "Not Issued" not in h]
    count = lambda row, i: int(row[i] or 0)
    total = sum(count(r, samples) for r in data)
    print(rows[0][1] if len(rows[0]) > 1 else rows[0][0])
    print(f"samples: {total}")
    sums = {header[i]: sum(count(r, i) for r in data) for i in reasons}
    for name, n in sorted(sums.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  {name:28s} {n:8d} {100 * n / max(total, 1):5.1f}%")
    top = sorted(range(len(data)), key=lambda j: -count(data[j], samples))[:top_n]
    print(f"\n{'line':>5} {'samples':>7} {'share':>6} {'executed':>9}  instruction")
    for j in sorted(top):
        row = data[j]
        why = sorted(((count(row, i), header[i][6:]) for i in reasons), reverse=True)[:2]
        print(f"{j:5d} {count(row, samples):7d} {100 * count(row, samples) / max(total, 1):5.1f}% {row[executed]:>9}  "
              f"{row[source].strip()[:70]:70s} {why}")


if __name__ == "__main__":
    main()
