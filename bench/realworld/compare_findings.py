"""compare_findings.py A.mhdb B.mhdb -- do two profiles name the same problems?

Prints the findings of each profile as (kernel, object, pattern) triples, the
triples only one of them has, and "same" or "different". Used to check that the
default launch policy (first launch per configuration) finds what tracing
every launch finds (bench/realworld, issue 13 item 1)."""
import sqlite3
import sys


def triples(path):
    c = sqlite3.connect(path)
    q = ("SELECT COALESCE(l.display_name, l.name), f.space, f.object_label, f.kind FROM finding f"
         " JOIN launch l ON l.id = f.launch WHERE f.kind != 'coalesced'")
    return {tuple(r) for r in c.execute(q)}


a, b = triples(sys.argv[1]), triples(sys.argv[2])
print("%s: %d findings (kernel, space, object, pattern); %s: %d" % (sys.argv[1], len(a), sys.argv[2], len(b)))
for t in sorted(a - b):
    print("  only in first: %s" % (t,))
for t in sorted(b - a):
    print("  only in second: %s" % (t,))
print("same" if a == b else "different")
sys.exit(0 if a == b else 1)
