#!/usr/bin/env python3
"""analyze_peak.py MEMHEAT WORKDIR -- the peak memory of `memheat analyze`.

Writes `memheat synth --shape all --warps 32 --blocks 16 --iters 100` (13
launches of 1.6 x 10^6 accesses, 2.1 x 10^7 in all: half the distinct
addresses per launch of the bench trace of bench/analyses/analyze_mem.sh,
made with --iters 200), analyses it with `--threads 2` (the 2-core
configuration, whatever this machine has) and fails when the child's peak
resident memory (getrusage) exceeds BOUND_MB. The bound is the bench
trace's target, 200 MB, scaled by the peak of this trace against the bench
trace's (0.6: 104 MB against 174 MB), so a change that holds a launch's
state twice, or queues trace chunks without bound, fails here."""
import os
import resource
import subprocess
import sys

TARGET_MB = 200.0
SCALE = 0.6
BOUND_MB = TARGET_MB * SCALE


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    memheat, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, "all100.mht")
    subprocess.run([memheat, "synth", "--shape", "all", "--warps", "32", "--blocks", "16", "--iters", "100",
                    "-o", trace], check=True, stdout=subprocess.DEVNULL)
    with open(os.devnull, "wb") as null:
        rc = subprocess.run([memheat, "analyze", "--json", "-q", "--threads", "2", trace], stdout=null).returncode
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0  # KiB on Linux
    os.remove(trace)
    print(f"analyze exit {rc}, peak RSS {peak_mb:.1f} MiB, bound {BOUND_MB:.1f} MiB")
    if rc != 0:
        print("FAIL: analyze failed", file=sys.stderr)
        return 1
    if peak_mb > BOUND_MB:
        print(f"FAIL: peak {peak_mb:.1f} MiB over the bound {BOUND_MB:.1f} MiB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
