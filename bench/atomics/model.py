#!/usr/bin/env python3
"""model.py SWEEP.txt -- the atomic-contention model of src/analyses/atomics.c
and src/report/fixes.c set against sweep.cu's measured times: per case, the
chain of serial steps at L2 (per warp request and 128-byte line, the most
lanes on one word position; summed; over the 512-byte groups touched) times
MH_FIX_ATOM_CYCLES SM clocks. Requests are simulated (the first 4096 warps,
scaled to all of them). Prints a Markdown table: case, measured, model,
model / measured. Python standard library only."""
import sys

CYCLES = 1.45  # src/report/fixes.h MH_FIX_ATOM_CYCLES


def mix(x):
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


def chain(pattern, bins, spread, ops, sample=4096):
    steps, groups = 0, set()
    for w in range(sample):
        lines = {}
        for lane in range(32):
            i = w * 32 + lane
            b = i % bins if pattern == "lane" else (i // 32) % bins if pattern == "warp" else mix(i) % bins
            off = b * spread * 4
            groups.add(off >> 9)
            pos = lines.setdefault(off >> 7, [0] * 8)
            pos[(off >> 2) & 7] += 1
        steps += sum(max(p) for p in lines.values())
    for b in range(bins):  # every bin's group, not only those the sample touched
        groups.add((b * spread * 4) >> 9)
    return steps * (ops / 32 / sample) / len(groups)


def main():
    clock_khz, rows = None, []
    for line in open(sys.argv[1]):
        f = line.split()
        if f[0] == "device":
            clock_khz = float(f[f.index("clock_khz") + 1])
        elif f[0] == "atom":
            rows.append((f[1], int(f[3]), int(f[5]), int(f[7]), float(f[9])))
    print("| pattern | bins | spread (words) | measured us | model us | model / measured |")
    print("|---|---|---|---|---|---|")
    for pat, bins, spread, ops, us in rows:
        m = chain(pat, bins, spread, ops) * CYCLES / (clock_khz * 1e3) * 1e6
        print(f"| {pat} | {bins} | {spread} | {us:.1f} | {m:.1f} | {m / us:.2f} |")


if __name__ == "__main__":
    main()
