#!/usr/bin/env python3
"""Fits the polynomial of kernels/normal_cdf.cuh and prints its fp32 coefficients.

Phi(-a) = 0.5 * erfc(a / sqrt 2) = 2^q(a) with q(a) = -1 + a * P(a) on [0, A]. P (degree D) is
fitted near-minimax (Chebyshev, mpmath.chebyfit) to (q(a) + 1) / a in 40-digit arithmetic; its
coefficients are rounded to fp32 one at a time from the highest degree, the lower ones refitted
after each so that they absorb the rounding. Then the fp32 evaluation (Horner with fused
multiply-adds, a correctly rounded exp2) is checked on a grid of a: the largest error of
Phi(-a) = h and of Phi(a) = 1 - h in ulp. Needs mpmath.

  python3 scripts/fit_normal_cdf.py [A=5.5] [D=10] [grid points=3000]
"""
import math
import struct
import sys

import mpmath as mp

mp.mp.dps = 40


def f32(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def fma32(a, b, c):
    return f32(mp.mpf(a) * b + c)  # exact in 40 digits, then one rounding to fp32


def ulp32(x):
    return 2.0 ** (max(math.frexp(abs(x))[1] - 1, -126) - 23)


def log2_lower_tail(a):
    return mp.log(mp.erfc(a / mp.sqrt(2)) / 2, 2)


def p_exact(a):
    if a == 0:  # the limit: q'(0) = -2 phi(0) / ln 2
        return -2 / (mp.sqrt(2 * mp.pi) * mp.log(2))
    return (log2_lower_tail(a) + 1) / a


def fit(A, D):
    fixed = []  # (degree, fp32 coefficient), highest degree first
    for k in range(D, -1, -1):
        rest = lambda a: p_exact(a) - sum(c * a**j for j, c in fixed)
        poly = mp.chebyfit(rest, [0, A], k + 1)
        fixed.append((k, f32(poly[0])))
    return [c for _, c in fixed]


def check(coef, A, points):
    worst_h = worst_phi = 0.0
    for i in range(points + 1):
        a = f32(A * i / points)
        p = coef[0]
        for c in coef[1:]:
            p = fma32(p, a, c)
        h = f32(mp.mpf(2) ** fma32(a, p, -1.0))
        exact = mp.erfc(mp.mpf(a) / mp.sqrt(2)) / 2
        worst_h = max(worst_h, float(abs(h - exact)) / ulp32(float(exact)))
        worst_phi = max(worst_phi, float(abs(f32(1 - h) - (1 - exact))) / ulp32(float(1 - exact)))
    return worst_h, worst_phi


def main():
    A = float(sys.argv[1]) if len(sys.argv) > 1 else 5.5
    D = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    points = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    coef = fit(A, D)
    print("kP = {" + ", ".join("%.9ef" % c for c in coef) + "}")
    h, phi = check(coef, A, points)
    print("on %d points of [0, %g]: Phi(-a) within %.2f ulp, Phi(a) within %.2f ulp" % (points + 1, A, h, phi))


if __name__ == "__main__":
    main()
