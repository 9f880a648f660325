/* report.js -- the memheat HTML report's page logic (embedded at build time).
 *
 * Reads the profile summary from the JSON script element "mh-data" and each
 * heat map from two base64 script elements: "heat-N-m" holds run meta
 * (tag_lo, tag_hi, count, region+1 as uint32), "heat-N-t" nine temperatures
 * per run as uint16 or uint32 (data-width). Every string from the profiled
 * program reaches the page through textContent or setAttribute, never as
 * markup. Heat maps draw on one canvas per map with virtual scrolling, so a
 * map of millions of sectors costs one canvas and a few typed arrays. */
(function () {
  "use strict";

  var D = JSON.parse(document.getElementById("mh-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";

  /* ---------- small DOM helpers (text only) ---------- */
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
  function fmtBytes(b) {
    if (!isNum(b)) return "\u2014";
    var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i ? b.toFixed(1) : b.toFixed(0)) + " " + u[i];
  }
  function launchName(l) { return l.display_name || l.name || ("launch " + l.id); }
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

  /* ---------- temperatures to colours ---------- */
  /* A sequential scale (pale yellow -> orange -> red -> dark purple) on a log
   * axis, so that 1 warp and 32 warps are both readable; 0 = not accessed. */
  var STOPS = [[255, 247, 188], [254, 196, 79], [236, 112, 20], [204, 36, 29], [120, 16, 60], [45, 0, 75]];
  function colorOf(t, max) {
    if (!(t > 0)) return "rgb(238,240,243)";
    var x = max > 1 ? Math.log(t) / Math.log(max) : 1;
    if (x < 0) x = 0; if (x > 1) x = 1;
    var p = x * (STOPS.length - 1), i = Math.min(Math.floor(p), STOPS.length - 2), f = p - i;
    var a = STOPS[i], b = STOPS[i + 1];
    return "rgb(" + Math.round(a[0] + (b[0] - a[0]) * f) + "," + Math.round(a[1] + (b[1] - a[1]) * f) + "," +
      Math.round(a[2] + (b[2] - a[2]) * f) + ")";
  }
  function textOn(t, max) { return (max > 1 ? Math.log(Math.max(t, 1)) / Math.log(max) : 1) > 0.55 ? "#fff" : "#111"; }

  /* ---------- heat map data ---------- */
  function b64bytes(s) {
    var bin = atob(s.replace(/\s+/g, "")), n = bin.length, out = new Uint8Array(n);
    for (var i = 0; i < n; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  var heatCache = {};
  function loadHeat(map) {
    if (heatCache[map.id]) return heatCache[map.id];
    var me = document.getElementById("heat-" + map.id + "-m"), te = document.getElementById("heat-" + map.id + "-t");
    if (!me || !te) return null;
    var mb = b64bytes(me.textContent), tb = b64bytes(te.textContent);
    var width = parseInt(te.getAttribute("data-width"), 10) || 4;
    var meta = new Uint32Array(mb.buffer, 0, mb.length >> 2);
    var temps = width === 2 ? new Uint16Array(tb.buffer, 0, tb.length >> 1) : new Uint32Array(tb.buffer, 0, tb.length >> 2);
    var nruns = meta.length >> 2;
    /* display rows: a separator row before each region change, then the runs */
    var rows = [], prev = -2;
    for (var i = 0; i < nruns; i++) {
      var reg = meta[i * 4 + 3] - 1;
      if (reg !== prev) { rows.push(-1 - (reg + 1)); prev = reg; } /* separator: -1 - (region+1) */
      rows.push(i);
    }
    var h = { map: map, meta: meta, temps: temps, nruns: nruns, rows: Int32Array.from(rows) };
    heatCache[map.id] = h;
    return h;
  }

  /* ---------- heat map view: canvas + virtual scrolling ---------- */
  var ROWH = 18, LABELW = 230, CELLW = 30, GAP = 10, SECW = 38, MAXH = 15000000;
  var tip = null;
  function showTip(text, x, y) {
    if (!tip) { tip = el("div", { cls: "hm-tip" }); document.body.appendChild(tip); }
    tip.textContent = text; tip.style.display = "block";
    tip.style.left = Math.min(x + 14, window.innerWidth - 340) + "px"; tip.style.top = (y + 14) + "px";
  }
  function hideTip() { if (tip) tip.style.display = "none"; }

  function HeatView(map, h, regionsOf) {
    var self = this, regions = map.regions || [], max = Math.max(1, map.max_temp | 0);
    var W = LABELW + 8 * CELLW + GAP + SECW + 4;
    var nrows = h.rows.length;
    var viewH = Math.min(nrows * ROWH, 560);
    var fullH = nrows * ROWH, virtH = Math.min(fullH, MAXH);
    var scroll = el("div", { cls: "hm-scroll", "data-map": String(map.id) });
    scroll.style.height = (viewH + 2) + "px"; scroll.style.width = (W + 18) + "px";
    var canvas = el("canvas", { cls: "hm-canvas" });
    var spacer = el("div");
    spacer.style.height = Math.max(0, virtH - viewH) + "px";
    scroll.appendChild(canvas); scroll.appendChild(spacer);
    var dpr = window.devicePixelRatio || 1;
    canvas.width = W * dpr; canvas.height = viewH * dpr;
    canvas.style.width = W + "px"; canvas.style.height = viewH + "px";
    var ctx = canvas.getContext("2d");
    var visible = Math.ceil(viewH / ROWH) + 1;
    this.scroll = scroll; this.canvas = canvas; this.h = h; this.map = map;

    function firstRowF() {
      var range = virtH - viewH;
      if (range <= 0) return 0;
      return (scroll.scrollTop / range) * Math.max(0, nrows - viewH / ROWH);
    }
    function regionText(r) {
      if (r < 0 || !regions[r]) return "outside every known data object";
      var g = regions[r];
      return (g.label ? g.label : "(unnamed object)") + "  [" + g.start + ", " + g.end + ")";
    }
    function cellX(c) { return c < 8 ? LABELW + c * CELLW : LABELW + 8 * CELLW + GAP; }
    function draw() {
      var f = firstRowF(), first = Math.floor(f), off = (f - first) * ROWH;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, viewH);
      ctx.textBaseline = "middle";
      for (var k = 0; k < visible + 1; k++) {
        var ri = first + k; if (ri >= nrows) break;
        var y = k * ROWH - off, code = h.rows[ri];
        if (code < 0) {
          var reg = -1 - code - 1;
          ctx.fillStyle = "#e8edf3"; ctx.fillRect(0, y, W, ROWH);
          ctx.fillStyle = "#0b3d6e"; ctx.fillRect(0, y + ROWH - 2, W, 2);
          ctx.font = "600 12px system-ui, sans-serif"; ctx.fillStyle = "#0b3d6e";
          ctx.fillText((reg >= 0 ? "Region " + reg + ": " : "") + regionText(reg), 6, y + ROWH / 2, W - 12);
          continue;
        }
        var m = h.meta, t = h.temps, b = code * 4, tb = code * 9, cnt = m[b + 2];
        ctx.font = "12px ui-monospace, Menlo, monospace"; ctx.fillStyle = "#333";
        ctx.fillText(hex(m[b + 1], m[b]) + (cnt > 1 ? "  \u00d7" + cnt : ""), 6, y + ROWH / 2, LABELW - 10);
        for (var c = 0; c < 9; c++) {
          var v = t[tb + c], x = cellX(c), w = c < 8 ? CELLW : SECW;
          ctx.fillStyle = colorOf(v, max); ctx.fillRect(x + 1, y + 1, w - 2, ROWH - 2);
          if (v > 0) {
            ctx.fillStyle = textOn(v, max); ctx.font = "11px ui-monospace, Menlo, monospace";
            ctx.textAlign = "center"; ctx.fillText(String(v), x + w / 2, y + ROWH / 2 + 0.5, w - 2); ctx.textAlign = "left";
          }
        }
        if (cnt > 1) { ctx.fillStyle = "#0006"; ctx.fillRect(LABELW - 3, y + 2, 2, ROWH - 4); }
      }
    }
    var pending = false;
    function schedule() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(); }); } }
    scroll.addEventListener("scroll", function () { hideTip(); schedule(); });
    canvas.addEventListener("mouseleave", hideTip);
    canvas.addEventListener("mousemove", function (ev) {
      var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
      var info = self.describe(x, y);
      if (info) showTip(info, ev.clientX, ev.clientY); else hideTip();
    });
    /* Text for the point (x, y) in canvas pixels; null over nothing. */
    this.describe = function (x, y) {
      var f = firstRowF(), ri = Math.floor(f + y / ROWH);
      if (ri < 0 || ri >= nrows) return null;
      var code = h.rows[ri];
      if (code < 0) return "Region " + (-1 - code - 1) + "\n" + regionText(-1 - code - 1);
      var m = h.meta, t = h.temps, b = code * 4, tb = code * 9, cnt = m[b + 2], ss = map.sector_size || 32;
      var col = -1;
      for (var c = 0; c < 9; c++) { var cx = cellX(c), w = c < 8 ? CELLW : SECW; if (x >= cx && x < cx + w) col = c; }
      var words = []; for (var i = 0; i < 8; i++) words.push(t[tb + i]);
      var lines = [
        "sector tag " + hex(m[b + 1], m[b]) + (cnt > 1 ? " .. +" + (cnt - 1) + " (" + cnt + " identical sectors)" : ""),
        "address    " + mulHex(m[b + 1], m[b], ss, 0) + (cnt > 1 ? " .. " + mulHex(m[b + 1], m[b] + cnt - 1, ss, ss - 1) : ""),
        "object     " + regionText(m[b + 3] - 1),
        "words      " + words.join(" "),
        "sector     " + t[tb + 8] + " distinct warp" + (t[tb + 8] === 1 ? "" : "s")];
      if (col >= 0 && col < 8) lines.push("word " + col + "     " + mulHex(m[b + 1], m[b], ss, col * 4) + ": " + t[tb + col] + " distinct warp" + (t[tb + col] === 1 ? "" : "s"));
      return lines.join("\n");
    };
    /* Scroll so that the run holding tag (hex string) is at the top. */
    this.scrollToTag = function (tagHex) {
      var want = BigInt(tagHex), best = -1;
      for (var i = 0; i < h.nruns; i++) {
        var b = i * 4, s = (BigInt(h.meta[b + 1]) << 32n) | BigInt(h.meta[b]);
        if (s <= want && want < s + BigInt(h.meta[b + 2])) { best = i; break; }
      }
      if (best < 0) return false;
      var ri = 0; for (var j = 0; j < nrows; j++) if (h.rows[j] === best) { ri = j; break; }
      this.scrollToRow(ri); return true;
    };
    this.scrollToRow = function (ri) {
      var range = virtH - viewH, span = Math.max(1, nrows - viewH / ROWH);
      scroll.scrollTop = range > 0 ? Math.min(range, (ri / span) * range) : 0; draw();
    };
    /* Canvas y of display row ri in the current scroll state (for tests). */
    this.rowY = function (ri) { return (ri - firstRowF()) * ROWH; };
    this.cellX = function (c) { return cellX(c) + (c < 8 ? CELLW : SECW) / 2; };
    this.draw = draw;
    draw();
  }

  function legend(max) {
    var wrap = el("div", { cls: "hm-side" });
    wrap.appendChild(el("div", { text: "Temperature (distinct warps)" }));
    var c = el("canvas", { cls: "hm-legend" }), H = 200, W = 60;
    c.width = W; c.height = H + 20; c.style.width = W + "px"; c.style.height = (H + 20) + "px";
    var g = c.getContext("2d");
    for (var y = 0; y < H; y++) {
      var t = Math.exp(Math.log(Math.max(max, 1)) * (1 - y / (H - 1)));
      g.fillStyle = colorOf(Math.max(1, t), max); g.fillRect(0, y, 18, 1);
    }
    g.fillStyle = colorOf(0, max); g.fillRect(0, H + 6, 18, 12);
    g.fillStyle = "#333"; g.font = "11px system-ui, sans-serif"; g.textBaseline = "middle";
    g.fillText(String(max), 24, 6); g.fillText("1", 24, H - 4); g.fillText("0", 24, H + 12);
    if (max >= 8) { var t8 = Math.min(max, 8), y8 = (1 - Math.log(t8) / Math.log(max)) * (H - 1); if (y8 > 14 && y8 < H - 14) g.fillText(String(t8), 24, y8); }
    wrap.appendChild(c);
    wrap.appendChild(el("div", { cls: "muted", text: "Rows: sector tag, 8 word cells, sector cell. \u00d7N: N consecutive identical sectors." }));
    return wrap;
  }

  /* ---------- charts (SVG) ---------- */
  function lineChart(title, series, xlabel, ylabel, opts) {
    opts = opts || {};
    var W = opts.w || 420, H = opts.h || 240, L = 52, R = 12, T = 26, B = 38;
    var xs = [], ys = [];
    series.forEach(function (s) { s.pts.forEach(function (p) { if (isNum(p[0]) && isNum(p[1])) { xs.push(p[0]); ys.push(p[1]); } }); });
    var s = svg("svg", { "class": "chart", width: W, height: H, viewBox: "0 0 " + W + " " + H });
    s.appendChild(svg("text", { x: L, y: 16, text: title, "font-weight": "600" }));
    if (!xs.length) { s.appendChild(svg("text", { x: L, y: H / 2, text: "no data" })); return s; }
    var x0 = opts.x0 != null ? opts.x0 : Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = opts.y0 != null ? opts.y0 : Math.min(0, Math.min.apply(null, ys)), y1 = Math.max.apply(null, ys);
    if (x1 === x0) x1 = x0 + 1; if (y1 === y0) y1 = y0 + 1;
    function X(v) { return L + (v - x0) / (x1 - x0) * (W - L - R); }
    function Y(v) { return H - B - (v - y0) / (y1 - y0) * (H - T - B); }
    for (var i = 0; i <= 4; i++) {
      var yv = y0 + (y1 - y0) * i / 4;
      s.appendChild(svg("line", { "class": "grid", x1: L, x2: W - R, y1: Y(yv), y2: Y(yv) }));
      s.appendChild(svg("text", { x: L - 6, y: Y(yv) + 4, "text-anchor": "end", text: yv >= 100 ? yv.toFixed(0) : yv.toFixed(2) }));
      var xv = x0 + (x1 - x0) * i / 4;
      s.appendChild(svg("text", { x: X(xv), y: H - B + 14, "text-anchor": "middle", text: Math.abs(xv) >= 100 ? xv.toFixed(0) : (+xv.toFixed(2)).toString() }));
    }
    s.appendChild(svg("line", { "class": "axis", x1: L, x2: L, y1: T, y2: H - B }));
    s.appendChild(svg("line", { "class": "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }));
    s.appendChild(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", text: xlabel }));
    var yl = svg("text", { x: 12, y: (T + H - B) / 2, "text-anchor": "middle", text: ylabel, transform: "rotate(-90 12 " + (T + H - B) / 2 + ")" });
    s.appendChild(yl);
    series.forEach(function (se) {
      var pts = se.pts.filter(function (p) { return isNum(p[0]) && isNum(p[1]); });
      if (!pts.length) return;
      if (pts.length > 1) s.appendChild(svg("polyline", { fill: "none", stroke: se.color, "stroke-width": 2, "stroke-dasharray": se.dash || "", points: pts.map(function (p) { return X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); }).join(" ") }));
      if (se.marks !== false) pts.forEach(function (p) {
        var c = svg("circle", { cx: X(p[0]), cy: Y(p[1]), r: se.r || 2.5, fill: se.color });
        c.appendChild(svg("title", { text: se.name + ": " + p[0] + ", " + (+p[1].toPrecision(4)) }));
        s.appendChild(c);
      });
    });
    var lx = L + 8 + 7 * title.length;
    series.forEach(function (se) {
      s.appendChild(svg("rect", { x: lx, y: 7, width: 10, height: 10, fill: se.color }));
      var t = svg("text", { x: lx + 14, y: 16, text: se.name }); s.appendChild(t); lx += 24 + 7 * se.name.length;
    });
    return s;
  }

  /* ---------- sections ---------- */
  var app = document.getElementById("app");
  app.textContent = "";
  var meta = D.meta || {}, run = D.run || {};

  function sectionRun() {
    var sec = el("section", { id: "run" });
    sec.appendChild(el("h2", { text: "Run" }));
    if (meta.complete !== "1") sec.appendChild(el("div", { cls: "warn", text: "This profile is incomplete: the run that wrote it was interrupted. What it holds is valid but not everything was stored." }));
    if (meta.trace_complete === "0") sec.appendChild(el("div", { cls: "warn", text: "The trace was cut short: heat maps and launches are from its complete chunks only." }));
    var dl = el("dl", { cls: "kv" });
    function kv(k, v) { if (v == null || v === "") return; dl.appendChild(el("dt", { text: k })); dl.appendChild(el("dd", { cls: "mono", text: String(v) })); }
    kv("Command", run.command);
    kv("Back end", run.backend);
    kv("Producer", run.producer);
    kv("Exit status", run.exit_status);
    if (isNum(run.start_unix_ns) && run.start_unix_ns > 0) kv("Started", new Date(run.start_unix_ns / 1e6).toISOString());
    kv("Raw trace kept", run.trace_path);
    kv("Note", run.note);
    (D.devices || []).forEach(function (d) {
      var parts = [d.name];
      if (d.cc_major) parts.push("cc " + d.cc_major + "." + d.cc_minor);
      if (d.sm_count) parts.push(d.sm_count + " SMs");
      if (d.warp_size) parts.push("warp " + d.warp_size);
      if (d.sector_size) parts.push("sector " + d.sector_size + " B");
      if (isNum(d.peak_Bps)) parts.push("peak " + (d.peak_Bps / 1e9).toFixed(0) + " GB/s");
      if (isNum(d.measured_peak_Bps)) parts.push("measured " + (d.measured_peak_Bps / 1e9).toFixed(0) + " GB/s");
      kv("Device (" + d.source + ")", parts.join(", "));
    });
    var dropped = 0; (D.dropped || []).forEach(function (x) { dropped += x.count || 0; });
    var dt = meta.dropped_total ? parseInt(meta.dropped_total, 10) : dropped;
    kv("Dropped accesses", dt ? String(dt) : "0");
    sec.appendChild(dl);
    return sec;
  }

  /* Kernel table: timing rows per kernel name, plus traced-only names. */
  function kernelRows() {
    var byName = {}, rows = [];
    (D.kernels || []).forEach(function (k) {
      var r = { name: k.name, count: k.count, total: k.total_ns, median: k.median_ns, bw: isNum(k.bandwidth_Bps) ? k.bandwidth_Bps / 1e9 : null, pct: k.pct_peak, bound: k.bound, findings: 0, traced: 0 };
      byName[k.name] = r; rows.push(r);
    });
    (D.launches || []).forEach(function (l) {
      var r = byName[l.name] || byName[l.display_name];
      if (!r) { r = { name: launchName(l), count: null, total: null, median: null, bw: null, pct: null, bound: null, findings: 0, traced: 0 }; byName[l.name] = r; rows.push(r); }
      r.traced++;
      (D.findings || []).forEach(function (f) { if (f.launch === l.id && f.kind !== "coalesced") r.findings++; });
    });
    /* Every launch counted by the collector, traced or sampled out (launch policy). */
    (D.launch_counts || []).forEach(function (c) {
      var r = byName[c.name];
      if (r) { r.ran = c.launches; r.configs = c.configs; }
    });
    return rows;
  }

  function sectionKernels() {
    var sec = el("section", { id: "kernels" });
    sec.appendChild(el("h2", { text: "Kernels" }));
    var rows = kernelRows();
    if (!rows.length) { sec.appendChild(el("p", { cls: "muted", text: "No kernels in this profile." })); return sec; }
    if (!(D.kernels || []).length) sec.appendChild(el("p", { cls: "muted", text: "No timing pass in this profile (e.g. a simulator run): times and bandwidth are not available." }));
    var cols = [
      { k: "name", t: "Kernel", f: function (r) { return r.name; } },
      { k: "count", t: "Launches", f: function (r) { return r.count == null ? "\u2014" : String(r.count); } },
      { k: "total", t: "Total time", f: function (r) { return fmtNs(r.total); } },
      { k: "median", t: "Median", f: function (r) { return fmtNs(r.median); } },
      { k: "bw", t: "Bandwidth GB/s", f: function (r) { return fmtNum(r.bw, 1); } },
      { k: "pct", t: "% of peak", f: function (r) { return fmtNum(r.pct, 1); } },
      { k: "bound", t: "Bound", f: function (r) { return r.bound && r.bound !== "unknown" ? r.bound : "\u2014"; } },
      { k: "findings", t: "Findings", f: function (r) { return String(r.findings); } },
      { k: "traced", t: "Traced launches", f: function (r) {
        return r.ran != null ? "traced " + r.traced + " of " + r.ran + (r.configs > 1 ? " (" + r.configs + " configurations)" : "") : String(r.traced); } }];
    var table = el("table", { cls: "data", id: "kernel-table" }), thead = el("thead"), tbody = el("tbody"), htr = el("tr");
    var sortKey = "total", dir = -1;
    cols.forEach(function (c) {
      var th = el("th", { text: c.t, "data-key": c.k });
      th.addEventListener("click", function () { if (sortKey === c.k) dir = -dir; else { sortKey = c.k; dir = c.k === "name" || c.k === "bound" ? 1 : -1; } render(); });
      htr.appendChild(th);
    });
    thead.appendChild(htr); table.appendChild(thead); table.appendChild(tbody);
    function cmp(a, b) {
      var x = a[sortKey], y = b[sortKey];
      var xn = x == null || (typeof x === "number" && !isFinite(x)), yn = y == null || (typeof y === "number" && !isFinite(y));
      if (xn || yn) return xn && yn ? 0 : (xn ? 1 : -1); /* missing values last either way */
      if (typeof x === "string") return dir * x.localeCompare(y);
      return dir * (x - y);
    }
    function render() {
      rows.sort(cmp);
      Array.prototype.forEach.call(htr.children, function (th) { th.className = th.getAttribute("data-key") === sortKey ? (dir > 0 ? "sorted-asc" : "sorted-desc") : ""; });
      tbody.textContent = "";
      rows.forEach(function (r) {
        var tr = el("tr");
        cols.forEach(function (c) {
          var td = el("td", { text: c.f(r) });
          if (c.k === "bound" && r.bound) td.className = "bound-" + r.bound;
          if (c.k === "name") td.className = "mono";
          tr.appendChild(td);
        });
        tbody.appendChild(tr);
      });
    }
    render();
    sec.appendChild(table);
    return sec;
  }

  var FIND_TITLES = { hot_spot: "Hot spot", random_hot: "Random hot spots", false_sharing: "False sharing", misaligned: "Misaligned access", strided: "Strided access", smem_abuse_thread: "Shared-memory abuse (thread-private words)", smem_abuse_warp: "Shared-memory abuse (words shared within one warp)", coalesced: "Well coalesced", bank_conflict: "Shared-memory bank conflicts" };
  function findingBox(f, view) {
    var box = el("div", { cls: "finding" + (f.kind === "coalesced" ? " ok" : (isNum(f.cost) && f.cost < 0.1 ? " sev-low" : "")) });
    var head = el("div");
    head.appendChild(el("span", { cls: "kind", text: (FIND_TITLES[f.kind] || f.kind) }));
    head.appendChild(document.createTextNode(" in " + (f.object_label || "(unnamed object)") + (f.space ? " (" + f.space + ")" : "")));
    if (isNum(f.stride)) head.appendChild(document.createTextNode(", stride " + f.stride));
    box.appendChild(head);
    var ev = [];
    if (isNum(f.sectors)) ev.push(f.sectors + " sectors");
    if (f.example_tag && f.example_tag !== "0x0") ev.push("e.g. sector " + f.example_tag);
    if (Array.isArray(f.temps)) ev.push("temperatures " + f.temps.join(" "));
    if (f.pc && f.pc !== "0x0") ev.push("pc " + f.pc);
    if (f.file) ev.push(f.file + (f.line ? ":" + f.line : ""));
    if (f.evidence) ev.push(f.evidence);
    box.appendChild(el("div", { cls: "muted", text: ev.join(" \u00b7 ") }));
    if (f.advice) box.appendChild(el("div", { cls: "advice", text: "Advice: " + f.advice }));
    if (view && f.example_tag && f.example_tag !== "0x0") {
      var a = el("a", { href: "#", text: "show in heat map" });
      a.addEventListener("click", function (e) { e.preventDefault(); view.scrollToTag(f.example_tag); });
      box.appendChild(a);
    }
    return box;
  }

  var views = {};
  window.memheatReport = { data: D, views: views, colorOf: colorOf, showLaunch: null };

  function sectionLaunches() {
    var sec = el("section", { id: "launches" });
    sec.appendChild(el("h2", { text: "Traced launches" }));
    var launches = D.launches || [];
    if (!launches.length) { sec.appendChild(el("p", { cls: "muted", text: "No traced launches in this profile." })); return sec; }
    var sel = el("select", { id: "launch-select" });
    launches.forEach(function (l) {
      sel.appendChild(el("option", { value: String(l.id), text: "#" + l.id + "  " + launchName(l) + "  grid " + (l.grid || []).join("\u00d7") + "  block " + (l.block || []).join("\u00d7") }));
    });
    sec.appendChild(el("div", { cls: "launch-head" }, [el("label", { "for": "launch-select", text: "Launch" }), sel]));
    var body = el("div", { id: "launch-body" });
    sec.appendChild(body);
    function show(id) {
      body.textContent = ""; hideTip();
      var l = launches.filter(function (x) { return x.id === id; })[0];
      if (!l) return;
      sel.value = String(id);
      var dl = el("dl", { cls: "kv" });
      function kv(k, v) { dl.appendChild(el("dt", { text: k })); dl.appendChild(el("dd", { cls: "mono", text: String(v) })); }
      kv("Kernel", launchName(l));
      if (l.display_name && l.display_name !== l.name) kv("Mangled", l.name);
      kv("Grid \u00d7 block", (l.grid || []).join("\u00d7") + "  \u00d7  " + (l.block || []).join("\u00d7"));
      kv("Blocks traced", (l.n_sampled === l.n_blocks ? "all " : "") + l.n_sampled + " of " + l.n_blocks);
      kv("Accesses recorded", l.recorded == null ? "\u2014" : l.recorded);
      if (l.dropped) kv("Accesses dropped", l.dropped);
      if (!l.ended) kv("Status", "did not end in the trace (cut short)");
      body.appendChild(dl);
      var maps = (D.heat_maps || []).filter(function (m) { return m.launch === id; });
      var lviews = [];
      maps.forEach(function (m) {
        body.appendChild(el("h3", { text: "Heat map: " + m.space + " memory (" + m.nrows + " sectors, " + m.accesses + " accesses, hottest " + m.max_temp + " warps)" }));
        var h = loadHeat(m);
        if (!h) { body.appendChild(el("p", { cls: "muted", text: "heat map data missing" })); return; }
        var wrap = el("div", { cls: "hm-wrap" });
        var v = new HeatView(m, h);
        wrap.appendChild(v.scroll); 
        var side = legend(Math.max(1, m.max_temp | 0));
        if ((m.regions || []).length > 1) {
          var rs = el("select", { "aria-label": "jump to object" });
          rs.appendChild(el("option", { value: "", text: "Jump to object\u2026" }));
          m.regions.forEach(function (g, i) { rs.appendChild(el("option", { value: String(i), text: "Region " + i + ": " + (g.label || "(unnamed)") })); });
          rs.addEventListener("change", function () {
            var want = -1 - (parseInt(rs.value, 10) + 1);
            for (var j = 0; j < h.rows.length; j++) if (h.rows[j] === want) { v.scrollToRow(j); break; }
          });
          side.appendChild(rs);
        }
        wrap.appendChild(side);
        body.appendChild(wrap);
        views[m.id] = v; lviews.push(v);
      });
      if (!maps.length) body.appendChild(el("p", { cls: "muted", text: "No accesses were recorded for this launch." }));
      var fs = (D.findings || []).filter(function (f) { return f.launch === id; });
      body.appendChild(el("h3", { text: "Findings (" + fs.length + ")" }));
      if (!fs.length) body.appendChild(el("p", { cls: "muted", text: D.findings ? "No findings for this launch." : "Pattern detection did not run." }));
      fs.forEach(function (f) {
        var v = null; maps.forEach(function (m) { if (m.space === f.space && views[m.id]) v = views[m.id]; });
        body.appendChild(findingBox(f, v || lviews[0]));
      });
      var bc = (D.bank_conflicts || []).filter(function (b) { return b.launch === id; });
      if (bc.length) {
        body.appendChild(el("h3", { text: "Shared-memory bank conflicts" }));
        var t = el("table", { cls: "data" }), tr = el("tr");
        ["pc", "mean degree", "max degree", "accesses"].forEach(function (h) { tr.appendChild(el("th", { text: h })); });
        t.appendChild(tr);
        bc.forEach(function (b) { t.appendChild(el("tr", null, [el("td", { cls: "mono", text: b.pc }), el("td", { text: fmtNum(b.degree, 2) }), el("td", { text: String(b.max_degree) }), el("td", { text: String(b.accesses) })])); });
        body.appendChild(t);
      }
      var loc = (D.locality || []).filter(function (x) { return x.launch === id; });
      if (loc.length) {
        body.appendChild(el("h3", { text: "Locality" }));
        var lt = el("table", { cls: "data" }), hr = el("tr");
        ["space", "accesses", "footprint", "90% footprint", "entropy (bits)", "local share"].forEach(function (h) { hr.appendChild(el("th", { text: h })); });
        lt.appendChild(hr);
        loc.forEach(function (x) { lt.appendChild(el("tr", null, [el("td", { text: x.space }), el("td", { text: String(x.accesses) }), el("td", { text: String(x.footprint) }), el("td", { text: String(x.footprint90) }), el("td", { text: fmtNum(x.entropy, 3) }), el("td", { text: fmtNum(x.local_share, 3) })])); });
        body.appendChild(lt);
        var colors = ["#0b5cad", "#c0392b", "#27ae60", "#8e44ad", "#d35400"];
        var ent = [], psl = [];
        loc.forEach(function (x, i) {
          var c = (x.curves || {});
          if (c.entropy) ent.push({ name: x.space, color: colors[i % 5], pts: c.entropy });
          if (c.psl) psl.push({ name: x.space, color: colors[i % 5], pts: c.psl });
        });
        var charts = el("div", { cls: "charts" });
        charts.appendChild(lineChart("Memory-address entropy", ent, "low address bits dropped", "entropy (bits)", { x0: 0 }));
        charts.appendChild(lineChart("Parallel spatial locality", psl, "low address bits dropped", "mean entropy (bits)", { x0: 0 }));
        body.appendChild(charts);
      }
    }
    sel.addEventListener("change", function () { show(parseInt(sel.value, 10)); });
    window.memheatReport.showLaunch = show;
    var start = launches[0].id, hash = /^#launch-(\d+)$/.exec(location.hash);
    if (hash) start = parseInt(hash[1], 10);
    show(start);
    return sec;
  }

  function sectionTimeline() {
    var kr = D.kernel_runs || [], cp = D.copies || [];
    if (!kr.length && !cp.length && !D.overlap) return null;
    var sec = el("section", { id: "timeline" });
    sec.appendChild(el("h2", { text: "Timeline and copy/compute overlap" }));
    var lanes = [], laneOf = {};
    function lane(key, label) { if (!(key in laneOf)) { laneOf[key] = lanes.length; lanes.push(label); } return laneOf[key]; }
    var items = [], end = 0;
    kr.forEach(function (k) { items.push({ lane: lane("k" + k.stream, "stream " + k.stream + " kernels"), s: k.start_ns, d: k.dur_ns, name: k.name, color: "#0b5cad" }); });
    cp.forEach(function (c) { items.push({ lane: lane("c" + c.kind, c.kind), s: c.start_ns, d: c.dur_ns, name: c.kind + " " + fmtBytes(c.bytes), color: c.kind === "HtoD" ? "#d35400" : (c.kind === "DtoH" ? "#27ae60" : "#7f8c8d") }); });
    items.forEach(function (it) { end = Math.max(end, it.s + it.d); });
    if (items.length) {
      var W = 1000, L = 130, LH = 22, H = lanes.length * LH + 40;
      var s = svg("svg", { "class": "chart", width: W, height: H, viewBox: "0 0 " + W + " " + H, id: "timeline-chart" });
      function X(t) { return L + t / Math.max(end, 1) * (W - L - 10); }
      lanes.forEach(function (n, i) { s.appendChild(svg("text", { x: 6, y: 20 + i * LH + 14, text: n })); });
      var MAXI = 20000, step = Math.max(1, Math.ceil(items.length / MAXI));
      for (var i = 0; i < items.length; i += step) {
        var it = items[i], r = svg("rect", { x: X(it.s), y: 20 + it.lane * LH + 3, width: Math.max(1, X(it.s + it.d) - X(it.s)), height: LH - 6, fill: it.color });
        r.appendChild(svg("title", { text: it.name + ": " + fmtNs(it.d) + " at " + fmtNs(it.s) }));
        s.appendChild(r);
      }
      s.appendChild(svg("text", { x: L, y: H - 6, text: "0" }));
      s.appendChild(svg("text", { x: W - 10, y: H - 6, "text-anchor": "end", text: fmtNs(end) }));
      sec.appendChild(s);
      if (step > 1) sec.appendChild(el("p", { cls: "muted", text: "Showing every " + step + "th of " + items.length + " activities." }));
    }
    var o = D.overlap;
    if (o) {
      var dl = el("dl", { cls: "kv" });
      function kv(k, v) { dl.appendChild(el("dt", { text: k })); dl.appendChild(el("dd", { text: v })); }
      kv("Copy in (HtoD)", fmtNs(o.copy_in_ns));
      kv("Copy out (DtoH)", fmtNs(o.copy_out_ns));
      kv("Compute", fmtNs(o.compute_ns));
      kv("Copy time no kernel overlaps", fmtNs(o.exposed_copy_ns));
      kv("Pipelined speedup (OpenMPC model)", fmtNum(o.speedup, 2) + "\u00d7");
      sec.appendChild(dl);
      var serial = (o.fused_ns || 0) + (o.copy_in_ns || 0) + (o.copy_out_ns || 0) + (o.compute_ns || 0);
      var piped = (o.fused_ns || 0) + Math.max(o.copy_in_ns || 0, o.copy_out_ns || 0, o.compute_ns || 0);
      if (serial > 0) {
        var W2 = 700, s2 = svg("svg", { "class": "chart", width: W2, height: 90, id: "overlap-chart" });
        function bar(y, parts, label) {
          s2.appendChild(svg("text", { x: 6, y: y + 13, text: label }));
          var x = 110;
          parts.forEach(function (p) { var w = p[0] / serial * (W2 - 120); if (w > 0) { var r = svg("rect", { x: x, y: y, width: w, height: 18, fill: p[1] }); r.appendChild(svg("title", { text: p[2] + ": " + fmtNs(p[0]) })); s2.appendChild(r); x += p[3] ? w : 0; } });
        }
        bar(14, [[o.fused_ns || 0, "#95a5a6", "fused", 1], [o.copy_in_ns || 0, "#d35400", "copy in", 1], [o.compute_ns || 0, "#0b5cad", "compute", 1], [o.copy_out_ns || 0, "#27ae60", "copy out", 1]], "serial");
        bar(50, [[o.fused_ns || 0, "#95a5a6", "fused", 1], [piped - (o.fused_ns || 0), "#34495e", "max(in, compute, out)", 1]], "pipelined");
        sec.appendChild(s2);
      }
    }
    return sec;
  }

  function sectionCamp() {
    var bands = D.camp || [];
    if (!bands.length) return null;
    var sec = el("section", { id: "camping" });
    sec.appendChild(el("h2", { text: "Partition camping band" }));
    var charts = el("div", { cls: "charts" });
    bands.forEach(function (b) {
      var w = b.warps || [];
      function pts(arr) { return (arr || []).map(function (v, i) { return [w[i], v]; }); }
      var series = [{ name: "best", color: "#27ae60", pts: pts(b.best_ms), marks: false }, { name: "worst", color: "#c0392b", pts: pts(b.worst_ms), marks: false }];
      if (b.kernel_ms) series.push({ name: "kernel", color: "#0b5cad", dash: "5 4", pts: pts(b.kernel_ms), marks: false });
      if (isNum(b.measured_warps) && isNum(b.measured_ms)) series.push({ name: "measured", color: "#000", pts: [[b.measured_warps, b.measured_ms]], r: 4 });
      var box = el("div");
      box.appendChild(lineChart(b.kernel || "kernel", series, "active warps per SM", "time (ms)", { w: 460, h: 280, y0: 0 }));
      box.appendChild(el("div", { cls: "camp-degree", text: "camping degree " + (b.band_closed ? "\u2014 (band closed: best = worst here)" : fmtNum(b.degree, 2) + " (0 = at best, 1 = at worst)") + (b.device ? ", model of " + b.device : "") }));
      charts.appendChild(box);
    });
    sec.appendChild(charts);
    return sec;
  }

  var head = el("header", { cls: "top" }, [el("h1", { text: "memheat report" }), el("div", { cls: "muted mono", text: run.command || "" })]);
  document.body.insertBefore(head, app);
  [sectionRun(), sectionKernels(), sectionLaunches(), sectionTimeline(), sectionCamp()].forEach(function (s) { if (s) app.appendChild(s); });
  var foot = el("footer", { text: "memheat profile schema " + (meta.schema_version || "?") + ". This page works offline; it loads nothing." });
  document.body.appendChild(foot);
  window.memheatReport.readyMs = performance.now(); /* page built and first heat map drawn (bench/report) */
  document.body.setAttribute("data-ready", "1");
})();
