/* timeline.js -- the timing pass on one time axis: kernels per stream and
 * copies per direction, labelled, zoomable (drag a range, buttons), the
 * bandwidth of every copy (copies at pageable-memory speed flagged), the GPU's
 * idle share, and the copy/compute overlap figures (OpenMPC model). */

/* Below this a host<->device copy of >= PAGEABLE_MIN_BYTES runs at the speed
 * of pageable host memory; pinned memory copies at PCIe speed (>= 10 GB/s). */
var PAGEABLE_GBPS = 6, PAGEABLE_MIN_BYTES = 256 * 1024;
function fmtGBps(v) { return v >= 10 ? v.toFixed(1) : v.toFixed(2); }
function copyGBps(c) { return c.dur_ns > 0 && isNum(c.bytes) ? c.bytes / c.dur_ns : null; }
function pageableSpeed(c) { var b = copyGBps(c); return (c.kind === "HtoD" || c.kind === "DtoH") && c.bytes >= PAGEABLE_MIN_BYTES && b != null && b < PAGEABLE_GBPS; }

/* Time covered by at least one of the intervals [s, s + d). */
function busyNs(items) {
  var iv = items.map(function (it) { return [it.s, it.s + it.d]; }).sort(function (a, b) { return a[0] - b[0]; });
  var busy = 0, cs = -Infinity, ce = -Infinity;
  iv.forEach(function (x) { if (x[0] > ce) { if (ce > cs) busy += ce - cs; cs = x[0]; ce = x[1]; } else if (x[1] > ce) ce = x[1]; });
  if (ce > cs) busy += ce - cs;
  return busy;
}

function sectionTimeline() {
  var kr = D.kernel_runs || [], cp = D.copies || [];
  if (!kr.length && !cp.length && !D.overlap) return null;
  var sec = el("section", { id: "timeline" });
  sec.appendChild(el("h2", { text: "Timeline and copy/compute overlap" }));
  if (D.rank_view) sec.appendChild(el("p", { cls: "muted", text: "The timeline of " + D.rank_view.ref_label + ", the reference rank." }));
  var lanes = [], laneOf = {};
  function lane(key, label) { if (!(key in laneOf)) { laneOf[key] = lanes.length; lanes.push(label); } return laneOf[key]; }
  var items = [], end = 0, t0 = Infinity;
  /* kernel names as ncu prints them (html.c's kernel_names), the whole name in the tooltip */
  kr.forEach(function (k) {
    var n = (D.kernel_names || {})[k.name] || {};
    items.push({ lane: lane("k" + k.stream, "stream " + k.stream + " kernels"), s: k.start_ns, d: k.dur_ns, name: (n.short || k.name) + (k.timed ? " (" + k.timed + ")" : ""), full: n.full || k.name, label: n.short || k.name, color: "#0b5cad", kernel: 1 });
  });
  cp.forEach(function (c) {
    var bw = copyGBps(c), pg = pageableSpeed(c);
    items.push({ lane: lane("c" + c.kind, c.kind), s: c.start_ns, d: c.dur_ns, name: c.kind + " " + fmtBytes(c.bytes) + (bw != null ? " at " + fmtGBps(bw) + " GB/s" : "") + (pg ? " (pageable-memory speed)" : ""),
      label: c.kind + " " + fmtBytes(c.bytes) + (bw != null ? " " + fmtGBps(bw) + " GB/s" : "") + (pg ? " \u26a0" : ""), color: pg ? "#b03a2e" : (c.kind === "HtoD" ? "#d35400" : (c.kind === "DtoH" ? "#27ae60" : "#7f8c8d")) });
  });
  items = items.filter(function (it) { return isNum(it.s) && isNum(it.d); });
  items.forEach(function (it) { end = Math.max(end, it.s + it.d); t0 = Math.min(t0, it.s); });
  if (items.length) {
    var span = end - Math.min(t0, 0), busy = busyNs(items), idle = span > 0 ? 1 - busy / span : 0;
    var kbusy = busyNs(items.filter(function (it) { return it.kernel; }));
    sec.appendChild(el("p", { cls: "idle-share", id: "idle-share", text: "GPU idle " + fmtPct(idle) + " of the " + fmtNs(span) + " timeline (no kernel and no copy running); kernels run " +
      fmtPct(span > 0 ? kbusy / span : 0) + " of it." + (idle >= 0.5 ? " The program, not the GPU, sets the pace: look at host work and synchronisation between launches." : "") }));
    /* drawn at the page's width (text at its CSS size from 800 px up), then scaled with it */
    var appW = document.getElementById("app").clientWidth || 1048;
    var W = Math.round(Math.max(600, appW - 50)), L = 130, LH = 24, H = lanes.length * LH + 44, v0 = 0, v1 = Math.max(end, 1);
    var ctl = el("div", { cls: "tl-controls" });
    var bIn = el("button", { type: "button", text: "zoom in" }), bOut = el("button", { type: "button", text: "zoom out" }), bAll = el("button", { type: "button", text: "whole run" });
    var rangeText = el("span", { cls: "muted" });
    [bIn, bOut, bAll, rangeText, el("span", { cls: "muted", text: "drag on the chart to zoom into a range" })].forEach(function (x) { ctl.appendChild(x); });
    sec.appendChild(ctl);
    var s = svg("svg", { "class": "chart timeline", viewBox: "0 0 " + W + " " + H, id: "timeline-chart", preserveAspectRatio: "xMinYMin meet" });
    sec.appendChild(s);
    var note = el("p", { cls: "muted" });
    sec.appendChild(note);
    var render = function () {
      while (s.firstChild) s.removeChild(s.firstChild);
      function X(t) { return L + (t - v0) / (v1 - v0) * (W - L - 10); }
      lanes.forEach(function (n, i) { s.appendChild(svg("text", { x: 6, y: 20 + i * LH + 15, text: n })); });
      var vis = items.filter(function (it) { return it.s + it.d >= v0 && it.s <= v1; });
      var MAXI = 20000, step = Math.max(1, Math.ceil(vis.length / MAXI)), labels = 0;
      for (var i = 0; i < vis.length; i += step) {
        var it = vis[i], x0 = Math.max(L, X(it.s)), x1 = Math.min(W - 10, X(it.s + it.d)), w = Math.max(1, x1 - x0);
        var r = svg("rect", { x: x0, y: 20 + it.lane * LH + 3, width: w, height: LH - 6, fill: it.color, "class": it.kernel ? "tl-kernel" : "tl-copy" });
        r.appendChild(svg("title", { text: it.name + ": " + fmtNs(it.d) + " at " + fmtNs(it.s) + (it.full && it.full !== it.label ? "\n" + it.full : "") }));
        s.appendChild(r);
        if (w > 40 && labels < 400) {
          var maxc = Math.floor((w - 6) / 6.2), lab = it.label.length > maxc ? it.label.slice(0, Math.max(1, maxc - 1)) + "\u2026" : it.label;
          s.appendChild(svg("text", { x: x0 + 3, y: 20 + it.lane * LH + 16, "class": "tl-label", text: lab })); labels++;
        }
      }
      s.appendChild(svg("text", { x: L, y: H - 6, text: fmtNs(v0) }));
      s.appendChild(svg("text", { x: W - 10, y: H - 6, "text-anchor": "end", text: fmtNs(v1) }));
      rangeText.textContent = "showing " + fmtNs(v0) + " \u2026 " + fmtNs(v1) + (v1 - v0 < end ? " of " + fmtNs(end) : "");
      note.textContent = step > 1 ? "Showing every " + step + "th of " + vis.length + " activities in this range: zoom in for all." : "";
      s.setAttribute("data-range", v0 + " " + v1);
    };
    function zoom(f, c) {
      var mid = c != null ? c : (v0 + v1) / 2, half = (v1 - v0) * f / 2;
      half = Math.max(half, 50); v0 = Math.max(0, mid - half); v1 = Math.min(end, mid + half);
      if (v1 <= v0) v1 = v0 + 1;
      render();
    }
    bIn.addEventListener("click", function () { zoom(0.5); });
    bOut.addEventListener("click", function () { zoom(2); });
    bAll.addEventListener("click", function () { v0 = 0; v1 = Math.max(end, 1); render(); });
    var drag = null, band = null;
    function toT(ev) { var r = s.getBoundingClientRect(), x = (ev.clientX - r.left) / r.width * W; return v0 + (x - L) / (W - L - 10) * (v1 - v0); }
    s.addEventListener("mousedown", function (ev) { drag = toT(ev); ev.preventDefault(); });
    s.addEventListener("mouseup", function (ev) {
      if (drag == null) return;
      var a = drag, b = toT(ev); drag = null;
      if (Math.abs(b - a) > (v1 - v0) / 200) { v0 = Math.max(0, Math.min(a, b)); v1 = Math.min(end, Math.max(a, b)); render(); }
    });
    window.memheatReport.timelineZoom = function (a, b) { v0 = a; v1 = b; render(); };
    render();
    var slow = cp.filter(pageableSpeed);
    if (cp.length) {
      sec.appendChild(el("h3", { text: "Copies (" + cp.length + ")" }));
      if (slow.length) sec.appendChild(el("div", { cls: "warn", id: "pageable-warn", text: slow.length + " host\u2194device cop" + (slow.length === 1 ? "y runs" : "ies run") + " below " + PAGEABLE_GBPS +
        " GB/s, the speed of pageable host memory: allocate the host buffers pinned (cudaMallocHost / cudaHostAlloc) to copy at PCIe speed and to overlap copies with kernels." }));
      var t = el("table", { cls: "data", id: "copy-table" }), hr = el("tr");
      ["kind", "bytes", "duration", "GB/s", "start"].forEach(function (x) { hr.appendChild(el("th", { text: x })); });
      t.appendChild(hr);
      cp.slice().sort(function (a, b) { return (b.dur_ns || 0) - (a.dur_ns || 0); }).slice(0, 100).forEach(function (c) {
        var bw = copyGBps(c);
        t.appendChild(el("tr", { cls: pageableSpeed(c) ? "pageable" : "" }, [el("td", { text: c.kind + (pageableSpeed(c) ? " (pageable speed)" : "") }), el("td", { text: fmtBytes(c.bytes) }),
          el("td", { text: fmtNs(c.dur_ns) }), el("td", { text: bw != null ? bw.toFixed(2) : "\u2014" }), el("td", { text: fmtNs(c.start_ns) })]));
      });
      sec.appendChild(tableBox(t));
      if (cp.length > 100) sec.appendChild(el("p", { cls: "muted", text: "the 100 longest of " + cp.length + " copies" }));
    }
  }
  var o = D.overlap;
  if (o) {
    var dl = el("dl", { cls: "kv" });
    function kv(k, v) { dl.appendChild(el("dt", { text: k })); dl.appendChild(el("dd", { text: v })); }
    kv("Copy in (HtoD)", fmtNs(o.copy_in_ns));
    kv("Copy out (DtoH)", fmtNs(o.copy_out_ns));
    kv("Compute", fmtNs(o.compute_ns));
    kv("Copy time with no kernel running", fmtNs(o.exposed_copy_ns));
    kv("Pipelined speedup (OpenMPC model)", fmtNum(o.speedup, 2) + "\u00d7");
    sec.appendChild(dl);
    var serial = (o.fused_ns || 0) + (o.copy_in_ns || 0) + (o.copy_out_ns || 0) + (o.compute_ns || 0);
    var piped = (o.fused_ns || 0) + Math.max(o.copy_in_ns || 0, o.copy_out_ns || 0, o.compute_ns || 0);
    if (serial > 0) {
      var W2 = 700, s2 = svg("svg", { "class": "chart overlap", viewBox: "0 0 " + W2 + " 90", id: "overlap-chart" });
      var bar = function (y, parts, label) {
        s2.appendChild(svg("text", { x: 6, y: y + 13, text: label }));
        var x = 110;
        parts.forEach(function (p) { var w = p[0] / serial * (W2 - 120); if (w > 0) { var r = svg("rect", { x: x, y: y, width: w, height: 18, fill: p[1] }); r.appendChild(svg("title", { text: p[2] + ": " + fmtNs(p[0]) })); s2.appendChild(r); x += p[3] ? w : 0; } });
      };
      bar(14, [[o.fused_ns || 0, "#95a5a6", "fused", 1], [o.copy_in_ns || 0, "#d35400", "copy in", 1], [o.compute_ns || 0, "#0b5cad", "compute", 1], [o.copy_out_ns || 0, "#27ae60", "copy out", 1]], "serial");
      bar(50, [[o.fused_ns || 0, "#95a5a6", "fused", 1], [piped - (o.fused_ns || 0), "#34495e", "max(in, compute, out)", 1]], "pipelined");
      sec.appendChild(s2);
      var lg = el("div", { cls: "legend-row" });
      [["#d35400", "copy in"], ["#0b5cad", "compute"], ["#27ae60", "copy out"], ["#34495e", "pipelined: the longest of the three"], ["#95a5a6", "fused"]].forEach(function (p) {
        if (p[1] === "fused" && !o.fused_ns) return;
        var sw = el("span", { cls: "sw" }); sw.style.background = p[0];
        lg.appendChild(el("span", null, [sw, p[1]]));
      });
      sec.appendChild(lg);
    }
  }
  return sec;
}
