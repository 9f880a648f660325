#!/usr/bin/env python3
"""check_layers.py -- the layers of src/ point one way and no two files
call or include each other in a circle (docs/ARCHITECTURE.md).

usage: check_layers.py SRC_DIR NM LIB...   (LIB: the layers' static
libraries, memheat_<layer>.a, as the build made them)

Two graphs, both from what the build and the sources say:
 - includes: every #include "dir/file.h" of src/<layer>/ and include/memheat/
   (a header of include/memheat/ belongs to the layer named below);
 - calls: a library member's undefined symbols, resolved to the member of
   any layer library that defines them (nm).
An arrow from a layer to one above it fails, and so does any circle of
files (a strongly connected part of more than one file of the calls and
includes together). Prints every fault, one a line; exit 1 when any."""
import os
import re
import subprocess
import sys

# bottom to top; a layer may use those before it
LAYERS = ["util", "trace", "timing", "collectors", "sched", "analyses", "pass", "render", "store", "import", "run",
          "report", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}
# include/memheat/ headers by the layer that defines them: the formats every
# layer shares (timing_fields.h, the timing file's field list, is also the
# trace's: trace)
PUBLIC = {"err.h": "util", "trace.h": "trace", "trace_fields.h": "trace", "timing.h": "timing",
          "timing_fields.h": "trace", "collect.h": "collectors"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of_path(rel):
    """The layer of a file path relative to the repository, or None."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2 and parts[1] in RANK:
        return parts[1] if not (parts[1] == "collectors" and len(parts) > 3) else None  # collectors/cuda etc.: no layer
    if parts[0] == "include" and len(parts) == 3 and parts[1] == "memheat":
        return PUBLIC.get(parts[2])
    return None


def resolve(inc, here, root):
    """The repository path an include names, or None (system, other)."""
    local = os.path.normpath(os.path.join(os.path.dirname(here), inc))
    if os.path.isfile(os.path.join(root, local)):
        return local
    for base in ("include", "src"):
        p = os.path.join(base, inc)
        if os.path.isfile(os.path.join(root, p)):
            return p
    return None


def main():
    root, nm, libs = sys.argv[1], sys.argv[2], sys.argv[3:]
    faults = []
    edges = {}

    def edge(a, b):
        if a != b:
            edges.setdefault(a, set()).add(b)
            edges.setdefault(b, set())

    files = []
    for top in ("src", "include/memheat"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(d, n), root)
                    if layer_of_path(rel):
                        files.append(rel)
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            target = resolve(inc, rel, root)
            if not target or not layer_of_path(target):
                continue
            edge(rel, target)
            a, b = layer_of_path(rel), layer_of_path(target)
            if RANK[b] > RANK[a]:
                faults.append("arrow back up: %s (%s) includes %s (%s)" % (rel, a, target, b))

    # calls: member -> the member defining each symbol it needs
    defined, needs, member_file = {}, {}, {}
    for lib in libs:
        layer = os.path.basename(lib)[len("libmemheat_"):-2]
        if layer not in RANK:
            continue
        out = subprocess.run([nm, "-A", lib], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            m = re.match(r"^[^:]+:([^:]+):\s*(\S*)\s+([A-Za-z])\s+(\S+)$", line)
            if not m:
                continue
            member, _, kind, sym = m.groups()
            key = (layer, member)
            src = member[:-2] if member.endswith(".o") else member
            member_file[key] = "src/%s/%s" % (layer, src) if src.endswith(".c") else "%s:%s" % (layer, member)
            if kind == "U":
                needs.setdefault(key, set()).add(sym)
            elif kind in "TDBRC":
                defined.setdefault(sym, key)
    for key, syms in needs.items():
        for s in syms:
            owner = defined.get(s)
            if not owner:
                continue
            a, b = member_file[key], member_file[owner]
            edge(a, b)
            if RANK[owner[0]] > RANK[key[0]]:
                faults.append("arrow back up: %s (%s) calls %s of %s (%s)" % (a, key[0], s, b, owner[0]))

    # circles: strongly connected parts (Tarjan) of more than one file
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    for part in out:
        faults.append("circle: " + ", ".join(part))
    for f in faults:
        print(f)
    print("%d files, %d arrows, %d faults" % (len(edges), sum(len(e) for e in edges.values()), len(faults)))
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
