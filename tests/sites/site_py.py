"""site_py.py -- memheat's call-site capture inside a Python program
(tests/sites/CMakeLists.txt): the frames it reads without the GIL must be
this file's, at the lines that called, and one line must dedup into one site.
usage: python3 site_py.py libsite_probe.so"""
import ctypes
import sys
import threading

lib = ctypes.CDLL(sys.argv[1])  # ctypes releases the GIL around each call
lib.probe_frames.argtypes = [ctypes.c_char_p, ctypes.c_int]
lib.probe_site.restype = ctypes.c_long
lib.probe_sites.restype = ctypes.c_long
buf = ctypes.create_string_buffer(16384)
me = __file__
fails = []


def line_of(tag):
    for i, text in enumerate(open(me), 1):
        if text.rstrip().endswith("# " + tag):
            return i
    raise SystemExit("no line tagged " + tag)


def check(cond, what):
    if not cond:
        fails.append(what)


class Model:
    def forward(self):
        return lib.probe_frames(buf, len(buf))  # FRAME:forward


def outer():
    return Model().forward()  # FRAME:outer


n = outer()  # FRAME:module
frames = buf.value.decode().splitlines()
check(n >= 3, "frames read: %d" % n)
want = [(line_of("FRAME:forward"), "Model.forward" if sys.version_info >= (3, 11) else "forward"),
        (line_of("FRAME:outer"), "outer"), (line_of("FRAME:module"), "<module>")]
for i, (line, fn) in enumerate(want):
    got = frames[i] if i < len(frames) else ""
    check(got == "%s:%d:%s" % (me, line, fn), "frame %d: %r, want %s:%d:%s" % (i, got, me, line, fn))

# one line, many calls: one site; another line: another site
ids = [lib.probe_site() for _ in range(5)]  # SITE:loop
other = lib.probe_site()  # SITE:other
check(len(set(ids)) == 1 and ids[0] >= 0, "the loop's sites: %r" % ids)
check(other >= 0 and other != ids[0], "the other line's site %d equals the loop's" % other)
check(lib.probe_sites() == 2, "distinct sites %d, want 2" % lib.probe_sites())

# a thread of its own: its frames, not the main thread's
res = {}
t = threading.Thread(target=lambda: res.setdefault("n", lib.probe_frames(buf, len(buf))))  # FRAME:thread
t.start()
t.join()
check(res.get("n", 0) >= 1 and buf.value.decode().splitlines()[0].endswith(":<lambda>"),
      "thread frames: %r" % buf.value.decode().splitlines()[:2])

if fails:
    print("FAIL:\n  " + "\n  ".join(fails))
    sys.exit(1)
print("ok: %d frames, sites %d and %d" % (n, ids[0], other))
