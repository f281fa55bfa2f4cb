#!/usr/bin/env python3
"""rng_reference.py - a second, independent implementation of tessera's random
numbers (DESIGN.md, "Random numbers"; src/rng.h), in pure Python (no numpy),
for tests/rng_statistics.sh to compare tessera's values against.

Element e (row-major global linear index) of a random array with 64-bit key
and 32-bit stream:
  Philox4x32-10 with key (key mod 2^32, key div 2^32) and counter
  (p mod 2^32, p div 2^32, stream, 0), p = e div 2, gives words x0..x3;
  u1 = ((((x1 << 32) | x0) >> 11) + 1) * 2^-53, u2 likewise from (x2, x3);
  uniform: u1 for even e, u2 for odd e, scaled as low + (high - low) * u;
  normal: r = sqrt(-2 log u1); r cos(2 pi u2) for even e, r sin(2 pi u2) for
  odd e, scaled as loc + scale * z.

The trigonometry is done here with Python's math.sin/math.cos after an exact
quarter-turn reduction (u = n/4 + r), so that the reference is accurate to an
ulp or so even where cos or sin is near zero; tessera uses its own kernels
(src/rngmath.h), so normals are compared with a tolerance, uniforms exactly.

Usage:
  rng_reference.py --selftest
  rng_reference.py KIND KEY STREAM A B [--f32] E [E ...]
      KIND is normal or uniform; A, B are loc/scale or low/high; prints the
      value of each element index E with %.17g, one a line.
"""
import math
import struct
import sys

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox4x32_10(ctr, key):
    """Philox4x32 with 10 rounds (Salmon et al., SC11), one counter."""
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for _ in range(10):
        p0 = M0 * c0
        p1 = M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & MASK, p1 & MASK, ((p0 >> 32) ^ c3 ^ k1) & MASK, p0 & MASK
        k0 = (k0 + W0) & MASK
        k1 = (k1 + W1) & MASK
    return c0, c1, c2, c3


def words(key, stream, e):
    p = e // 2
    return philox4x32_10((p & MASK, (p >> 32) & MASK, stream & MASK, 0), (key & MASK, (key >> 32) & MASK))


def uniform53(lo, hi):
    v = (((hi << 32) | lo) >> 11) + 1
    return v * 2.0 ** -53  # exact: v < 2^53 + 1 and a power-of-two scale


def sincos2pi(u):
    """sin(2 pi u), cos(2 pi u) with u = n/4 + r, |r| <= 1/8, computed exactly."""
    n = round(4 * u)
    r = u - n / 4.0  # exact for u a multiple of 2^-53 in [0, 1]
    s, c = math.sin(2 * math.pi * r), math.cos(2 * math.pi * r)
    for _ in range(n % 4):  # rotate by quarter turns
        s, c = c, -s
    return s, c


def uniform_at(key, stream, e):
    x = words(key, stream, e)
    return uniform53(x[2], x[3]) if e & 1 else uniform53(x[0], x[1])


def normal_at(key, stream, e):
    x = words(key, stream, e)
    r = math.sqrt(-2.0 * math.log(uniform53(x[0], x[1])))
    s, c = sincos2pi(uniform53(x[2], x[3]))
    return r * s if e & 1 else r * c


def to_f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def value(kind, key, stream, a, b, e, f32=False):
    if kind == "normal":
        v = a + b * normal_at(key, stream, e)
    elif kind == "uniform":
        v = a + (b - a) * uniform_at(key, stream, e)
    else:
        raise ValueError("kind must be normal or uniform")
    return to_f32(v) if f32 else v


def selftest():
    # Known answers of Random123's kat_vectors for philox4x32 with 10 rounds.
    kat = [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((MASK, MASK, MASK, MASK), (MASK, MASK), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
         (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    ]
    for ctr, key, want in kat:
        got = philox4x32_10(ctr, key)
        if got != want:
            print("philox KAT failed: ctr=%s key=%s got=%s want=%s" % (ctr, key, got, want))
            return 1
    # The uniform formula's extremes: (0, 1].
    if uniform53(0, 0) != 2.0 ** -53 or uniform53(MASK, MASK) != 1.0:
        print("uniform53 extremes wrong")
        return 1
    # Quarter-turn reduction against plain math on values away from zeros.
    for u in (0.1, 0.3, 0.45, 0.6, 0.8, 0.95):
        s, c = sincos2pi(u)
        if abs(s - math.sin(2 * math.pi * u)) > 1e-15 or abs(c - math.cos(2 * math.pi * u)) > 1e-15:
            print("sincos2pi(%r) wrong" % u)
            return 1
    print("ok")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--selftest":
        return selftest()
    args = [a for a in argv[1:] if a != "--f32"]
    f32 = len(args) != len(argv) - 1
    if len(args) < 6:
        sys.stderr.write(__doc__)
        return 2
    kind, key, stream, a, b = args[0], int(args[1]), int(args[2]), float(args[3]), float(args[4])
    for e in args[5:]:
        print("%.17g" % value(kind, key, stream, a, b, int(e), f32))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
