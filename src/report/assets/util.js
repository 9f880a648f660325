/* util.js -- shared helpers of the memheat HTML report (embedded at build
 * time; html.c concatenates util.js, heatmap.js, findings.js, timeline.js and
 * report.js into one function scope, in that order).
 *
 * The profile summary is parsed once here (D). Every string from the profiled
 * program reaches the page through textContent or setAttribute, never as
 * markup: el() and svg() are the only element builders. */
var D = JSON.parse(document.getElementById("mh-data").textContent);
var SVGNS = "http://www.w3.org/2000/svg";
var RUN = D.run || {}, META = D.meta || {};
/* The program's language: advice and names follow it (OpenCL under Oclgrind). */
var LANG = RUN.backend === "oclgrind" ? "opencl" : "cuda";

function el(tag, attrs, kids) {
  var e = document.createElement(tag);
  if (attrs) for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) {
    if (k === "text") e.textContent = attrs[k];
    else if (k === "cls") e.className = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  if (kids) kids.forEach(function (c) { if (c != null) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return e;
}
function svg(tag, attrs) {
  var e = document.createElementNS(SVGNS, tag);
  for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) {
    if (k === "text") e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
  }
  return e;
}
function isNum(v) { return typeof v === "number" && isFinite(v); }
function fmtNs(ns) {
  if (!isNum(ns)) return "\u2014";
  if (ns >= 1e9) return (ns / 1e9).toFixed(3) + " s";
  if (ns >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
  if (ns >= 1e3) return (ns / 1e3).toFixed(2) + " \u00b5s";
  return ns.toFixed(0) + " ns";
}
function fmtNum(v, d) { return isNum(v) ? v.toFixed(d) : "\u2014"; }
/* integer with thousands separators (costs, counts) */
function fmtInt(v) { return isNum(v) ? Math.round(v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",") : "\u2014"; }
function fmtPct(x) { return !isNum(x) ? "\u2014" : (x >= 0.095 ? (x * 100).toFixed(0) : (x * 100).toFixed(1)) + "%"; }
function fmtBytes(b) {
  if (!isNum(b)) return "\u2014";
  var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
  while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
  return (i ? b.toFixed(1) : b.toFixed(0)) + " " + u[i];
}
/* the short demangled name (names.c) where the profile gives one, else as stored */
function launchName(l) { return l.short_name || l.display_name || l.name || ("launch " + l.id); }
function launchById(id) { var ls = D.launches || []; for (var i = 0; i < ls.length; i++) if (ls[i].id === id) return ls[i]; return null; }
function hex(hi, lo) {
  var h = hi >>> 0, l = lo >>> 0;
  if (!h) return "0x" + l.toString(16);
  var ls = l.toString(16);
  return "0x" + h.toString(16) + "00000000".slice(ls.length) + ls;
}
/* (hi, lo) * m + add, as hex: exact for m a power of two up to 2^16 */
function mulHex(hi, lo, m, add) {
  var l = (lo >>> 0) * m + add;
  var carry = Math.floor(l / 4294967296);
  return hex((hi >>> 0) * m + carry, l % 4294967296);
}
/* Data objects by id; for a kernel argument's view (its "arg" field), where it
 * lies: "bytes 0..4095 used, in cudaMalloc (object 3) from its byte 256". */
var OBJECT_BY_ID = {};
(D.objects || []).forEach(function (o) { OBJECT_BY_ID[o.id] = o; });
function argText(objId) {
  var o = OBJECT_BY_ID[objId], a = o && o.arg;
  if (!a) return "";
  var p = OBJECT_BY_ID[a.allocation], t = "";
  if (Array.isArray(a.range) && a.range.length === 2) t = "bytes " + a.range[0] + ".." + a.range[1] + " used, ";
  return t + "in " + (p ? (p.label || "an allocation") + " (object " + p.id + ")" : "an allocation");
}
/* A table inside a box that scrolls sideways on its own, so a wide table never
 * makes the page scroll sideways on a narrow window. */
function tableBox(t) { return el("div", { cls: "table-box" }, [t]); }

/* Timed kernels by name (timing pass), for times and the default launch. */
var KERNEL_BY_NAME = {};
(D.kernels || []).forEach(function (k) { KERNEL_BY_NAME[k.name] = k; });
function kernelOfLaunch(l) { return l ? (KERNEL_BY_NAME[l.name] || KERNEL_BY_NAME[l.display_name] || null) : null; }
