/* heatmap.js -- heat-map rendering of the memheat report: the colour scale,
 * decoding a map's runs, folding periodic rows, the canvas view with virtual
 * scrolling (offsets in the object, highlighted rows, overview strip, hottest
 * sectors), access kinds (a stripe per cell, letters per row, the filter
 * all / loads / stores / atomics), the legend and the shared-memory bank view
 * with the degree per bank of each instruction's worst request.
 *
 * Data: "heat-N-m" holds run meta (tag_lo, tag_hi, count, region+1 as
 * uint32), "heat-N-t" nine temperatures per run as uint8, uint16 or uint32
 * (data-width: the narrowest that holds the map's hottest cell), "heat-N-k" one uint32 per run: the kinds per word, 3 bits
 * each (1 load, 2 store, 4 atomic; word w at bits 3w); a run is consecutive
 * identical sectors (temperatures and kinds) of one object. A map's "kinds"
 * is false for a profile written before memheat kept them. */

/* ---------- temperatures to colours ---------- */
/* One absolute scale for the whole report: 1 warp is always the palest colour
 * and the hottest cell of the run (any launch) the darkest, so a coalesced map
 * (1 warp per sector) looks pale wherever it is. Log axis, sequential colours
 * (pale yellow -> orange -> red -> dark purple); 0 = not accessed (grey). */
var STOPS = [[255, 247, 188], [254, 196, 79], [236, 112, 20], [204, 36, 29], [120, 16, 60], [45, 0, 75]];
var SCALE_MAX = 2;
(D.heat_maps || []).forEach(function (m) { if ((m.max_temp | 0) > SCALE_MAX) SCALE_MAX = m.max_temp | 0; });
function colorOf(t, max) {
  if (max == null) max = SCALE_MAX;
  if (!(t > 0)) return "rgb(238,240,243)";
  var x = max > 1 ? Math.log(t) / Math.log(max) : 1;
  if (x < 0) x = 0; if (x > 1) x = 1;
  var p = x * (STOPS.length - 1), i = Math.min(Math.floor(p), STOPS.length - 2), f = p - i;
  var a = STOPS[i], b = STOPS[i + 1];
  return "rgb(" + Math.round(a[0] + (b[0] - a[0]) * f) + "," + Math.round(a[1] + (b[1] - a[1]) * f) + "," +
    Math.round(a[2] + (b[2] - a[2]) * f) + ")";
}
function textOn(t) { return (SCALE_MAX > 1 ? Math.log(Math.max(t, 1)) / Math.log(SCALE_MAX) : 1) > 0.55 ? "#fff" : "#111"; }
/* Warps a launch's sample holds: a cell can show at most this many. */
function sampledWarps(l) { return l && isNum(l.warps_per_block) && isNum(l.n_sampled) ? l.warps_per_block * l.n_sampled : null; }

/* ---------- access kinds ---------- */
var KIND_NAMES = ["load", "store", "atomic"], KIND_LETTERS = "LSA";
var KIND_COLORS = ["#2166ac", "#c51b7d", "#1b7837"]; /* load blue, store magenta, atomic green */
var KIND_FILTERED = "rgb(252,252,252)";             /* accessed, but not by the kind the filter shows */
var KIND_FILTER = 0;                                 /* 0 = all, else the kind's bit */
var HEAT_VIEWS = [];                                 /* live views, redrawn when the filter changes */
function wordKinds(h, code, w) { return (h.kinds[code] >>> (3 * w)) & 7; }
function runKinds(h, code) { var k = h.kinds[code], u = 0; for (var w = 0; w < 8; w++) u |= (k >>> (3 * w)) & 7; return u; }
function kindsText(k) {
  var out = [];
  for (var i = 0; i < 3; i++) if (k & (1 << i)) out.push(KIND_NAMES[i] + "s");
  return out.length ? out.join(" + ") : "\u2014";
}
function kindsLetters(h, code, temps) {
  var s = "";
  for (var w = 0; w < 8; w++) {
    var k = wordKinds(h, code, w);
    s += k === 1 ? "L" : k === 2 ? "S" : k === 4 ? "A" : k ? "M" : temps[code * 9 + w] ? "?" : ".";
  }
  return s;
}
function setKindFilter(bit) {
  KIND_FILTER = bit | 0;
  HEAT_VIEWS = HEAT_VIEWS.filter(function (v) { return document.body.contains(v.canvas); });
  HEAT_VIEWS.forEach(function (v) { v.refilter(); });
  Array.prototype.forEach.call(document.querySelectorAll("select.hm-kind-filter"), function (s) { s.value = String(KIND_FILTER); });
}

/* ---------- heat map data ---------- */
function b64bytes(s) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s); /* native, skips whitespace; 4x faster at 10^6 sectors */
  var bin = atob(s.replace(/\s+/g, "")), n = bin.length, out = new Uint8Array(n);
  for (var i = 0; i < n; i++) out[i] = bin.charCodeAt(i);
  return out;
}
/* Display-row codes: run index (>= 0); object separator -1 - (region + 1);
 * periodic fold FOLD_BASE - fold index. */
var FOLD_BASE = -(1 << 29), FOLD_MAX_PERIOD = 16, FOLD_MIN_REPEATS = 2;
var heatCache = {};
function loadHeat(map) {
  if (heatCache[map.id]) return heatCache[map.id];
  var me = document.getElementById("heat-" + map.id + "-m"), te = document.getElementById("heat-" + map.id + "-t");
  if (!me || !te) return null;
  var mb = b64bytes(me.textContent), tb = b64bytes(te.textContent);
  var width = parseInt(te.getAttribute("data-width"), 10) || 4;
  var meta = new Uint32Array(mb.buffer, 0, mb.length >> 2);
  var temps = width === 1 ? new Uint8Array(tb.buffer, 0, tb.length)
    : width === 2 ? new Uint16Array(tb.buffer, 0, tb.length >> 1) : new Uint32Array(tb.buffer, 0, tb.length >> 2);
  var nruns = meta.length >> 2;
  var ke = document.getElementById("heat-" + map.id + "-k"), kb = ke ? b64bytes(ke.textContent) : null;
  var kinds = kb && kb.length === nruns * 4 ? new Uint32Array(kb.buffer, 0, nruns) : new Uint32Array(nruns);
  /* One hash per run (region, count, temperatures) for a quick reject. */
  var hash = new Int32Array(nruns);
  for (var i = 0; i < nruns; i++) {
    var x = Math.imul(meta[i * 4 + 3] + 1, 0x9e3779b1) ^ meta[i * 4 + 2];
    for (var c = 0; c < 9; c++) x = Math.imul(x ^ temps[i * 9 + c], 0x85ebca6b) + 0x1b873593 | 0;
    hash[i] = Math.imul(x ^ kinds[i], 0x85ebca6b) | 0;
  }
  function tagDiff(a, b) { return (meta[b * 4 + 1] - meta[a * 4 + 1]) * 4294967296 + (meta[b * 4] - meta[a * 4]); }
  function same(a, b, s) {
    if (hash[a] !== hash[b] || meta[a * 4 + 2] !== meta[b * 4 + 2] || meta[a * 4 + 3] !== meta[b * 4 + 3] || kinds[a] !== kinds[b]) return false;
    for (var c = 0; c < 9; c++) if (temps[a * 9 + c] !== temps[b * 9 + c]) return false;
    return tagDiff(a, b) === s;
  }
  /* Periodic folding: runs i..i+p-1 (one period) followed by >= 2 copies of
   * themselves shifted by s sectors each are shown once, then one fold row. */
  var rows = [], folds = [], runRow = new Int32Array(nruns), prev = -2;
  i = 0;
  while (i < nruns) {
    var reg = meta[i * 4 + 3] - 1;
    if (reg !== prev) { rows.push(-1 - (reg + 1)); prev = reg; }
    var bestP = 0, bestCov = 0, bestS = 0;
    for (var p = 1; p <= FOLD_MAX_PERIOD && i + p * (FOLD_MIN_REPEATS + 1) <= nruns; p++) {
      if (hash[i] !== hash[i + p]) continue;
      var s = tagDiff(i, i + p);
      if (!(s > 0)) continue;
      var L = 0;
      while (i + p + L < nruns && same(i + L, i + p + L, s)) L++;
      var reps = Math.floor(L / p);
      if (reps >= FOLD_MIN_REPEATS && reps * p > bestCov) { bestCov = reps * p; bestP = p; bestS = s; }
    }
    if (bestP) {
      for (var k = 0; k < bestP; k++) { runRow[i + k] = rows.length; rows.push(i + k); }
      var foldRow = rows.length;
      folds.push({ first: i, period: bestP, start: i + bestP, reps: bestCov / bestP, span: bestS });
      rows.push(FOLD_BASE - (folds.length - 1));
      for (k = i + bestP; k < i + bestP + bestCov; k++) runRow[k] = foldRow;
      i += bestP + bestCov;
    } else { runRow[i] = rows.length; rows.push(i); i++; }
  }
  var h = { map: map, meta: meta, temps: temps, kinds: kinds, kindsKnown: !!kb && map.kinds !== false, nruns: nruns,
    rows: Int32Array.from(rows), folds: folds, runRow: runRow };
  heatCache[map.id] = h;
  return h;
}
/* The runs with the hottest sectors (not those hidden in a fold: their
 * pattern's first period is shown), hottest first. */
function hottestRuns(h, n) {
  var best = [];
  for (var i = 0; i < h.nruns; i++) {
    var t = h.temps[i * 9 + 8];
    if (t <= 0 || (best.length === n && t <= h.temps[best[n - 1] * 9 + 8])) continue;
    if (h.rows[h.runRow[i]] !== i) continue;
    if (best.length < n) best.push(i); else best[n - 1] = i;
    var j = best.length - 1;
    while (j > 0 && h.temps[best[j - 1] * 9 + 8] < t) { best[j] = best[j - 1]; j--; }
    best[j] = i;
  }
  return best;
}

/* ---------- heat map view: canvas + virtual scrolling ---------- */
var ROWH = 18, LABELW = 200, CELLW = 30, GAP = 10, SECW = 38, MAXH = 15000000, STRIPW = 16;
var tip = null;
function showTip(text, x, y) {
  if (!tip) {
    tip = el("div", { cls: "hm-tip" }); document.body.appendChild(tip);
    window.addEventListener("resize", hideTip); // placed for the old window size: it would stick out
  }
  tip.textContent = text; tip.style.display = "block";
  tip.style.left = Math.max(0, Math.min(x + 14, window.innerWidth - 340)) + "px"; tip.style.top = (y + 14) + "px";
}
function hideTip() { if (tip) tip.style.display = "none"; }

function HeatView(map, h) {
  var self = this, regions = map.regions || [];
  var W = LABELW + 8 * CELLW + GAP + SECW + 4, ss = map.sector_size || 32;
  var nrows, viewH, virtH, visible; /* set by layout() */
  var box = el("div", { cls: "hm-box" });
  var scroll = el("div", { cls: "hm-scroll", "data-map": String(map.id) });
  scroll.style.width = (W + 18) + "px";
  var canvas = el("canvas", { cls: "hm-canvas", title: "" });
  var spacer = el("div");
  scroll.appendChild(canvas); scroll.appendChild(spacer);
  box.appendChild(scroll);
  var dpr = window.devicePixelRatio || 1;
  canvas.style.width = W + "px";
  var ctx = canvas.getContext("2d");
  var hl = -1; /* highlighted display row */
  this.scroll = scroll; this.canvas = canvas; this.h = h; this.map = map; this.box = box;
  var regStart = regions.map(function (g) { try { return BigInt(g.start); } catch (e) { return null; } });

  function firstRowF() {
    var range = virtH - viewH;
    if (range <= 0) return 0;
    return (scroll.scrollTop / range) * Math.max(0, nrows - viewH / ROWH);
  }
  function regionText(r) {
    if (r < 0 || !regions[r]) return "outside every known data object";
    var g = regions[r];
    var at = isNum(g.object) ? argText(g.object) : "";
    return (g.label ? g.label : "(unnamed object)") + "  [" + g.start + ", " + g.end + ")" + (at ? "  " + at : "");
  }
  /* byte offset of sector run `code` (+ k sectors) in its object, or null */
  function offsetOf(code, k) {
    var r = h.meta[code * 4 + 3] - 1;
    if (r < 0 || regStart[r] == null) return null; /* 0n is a start (shared memory) */
    var tag = (BigInt(h.meta[code * 4 + 1]) << 32n) | BigInt(h.meta[code * 4]);
    return (tag + BigInt(k || 0)) * BigInt(ss) - regStart[r];
  }
  function offText(o) { return o == null ? "" : (o < 0n ? "-0x" + (-o).toString(16) : "+0x" + o.toString(16)); }
  function rowLabel(code) {
    var m = h.meta, b = code * 4, cnt = m[b + 2], o = offsetOf(code, 0);
    var s = o == null ? hex(m[b + 1], m[b]) : offText(o) + " [" + (o / 4n).toString() + "]";
    return s + (cnt > 1 ? "  \u00d7" + cnt : "");
  }
  function foldText(f) {
    var last = f.start + f.reps * f.period - 1, o = offsetOf(last, h.meta[last * 4 + 2] - 1);
    return "\u21bb " + (f.period > 1 ? "the " + f.period + " rows above repeat" : "the row above repeats") + " every " + f.span * ss + " B (" +
      f.span + " sector" + (f.span === 1 ? "" : "s") + ") " + f.reps + " more time" + (f.reps === 1 ? "" : "s") + (o != null ? ", through " + offText(o) : "");
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
      if (code <= FOLD_BASE) {
        var fo = h.folds[FOLD_BASE - code];
        ctx.fillStyle = "#eef4ea"; ctx.fillRect(0, y, W, ROWH);
        ctx.font = "italic 12px system-ui, sans-serif"; ctx.fillStyle = "#2f5d2a";
        ctx.fillText(foldText(fo), 6, y + ROWH / 2, W - 12);
      } else if (code < 0) {
        var reg = -1 - code - 1;
        ctx.fillStyle = "#e8edf3"; ctx.fillRect(0, y, W, ROWH);
        ctx.fillStyle = "#0b3d6e"; ctx.fillRect(0, y + ROWH - 2, W, 2);
        ctx.font = "600 12px system-ui, sans-serif"; ctx.fillStyle = "#0b3d6e";
        ctx.fillText((reg >= 0 ? "Region " + reg + ": " : "") + regionText(reg), 6, y + ROWH / 2, W - 12);
      } else {
        var m = h.meta, t = h.temps, tb = code * 9, cnt = m[code * 4 + 2], known = h.kindsKnown, uk = known ? runKinds(h, code) : 0;
        ctx.font = "12px ui-monospace, Menlo, monospace"; ctx.fillStyle = "#333";
        ctx.fillText(rowLabel(code), 6, y + ROWH / 2, LABELW - (known ? 40 : 10));
        if (known) rowKinds(uk, y);
        for (var c = 0; c < 9; c++) {
          var v = t[tb + c], x = cellX(c), w = c < 8 ? CELLW : SECW, ck = !known ? 0 : c < 8 ? wordKinds(h, code, c) : uk;
          var shown = v > 0 && (!KIND_FILTER || !known || (ck & KIND_FILTER) !== 0);
          ctx.fillStyle = v > 0 && !shown ? KIND_FILTERED : colorOf(v); ctx.fillRect(x + 1, y + 1, w - 2, ROWH - 2);
          if (v > 0 && !shown) { ctx.strokeStyle = "#d4d7dc"; ctx.lineWidth = 1; ctx.strokeRect(x + 1.5, y + 1.5, w - 3, ROWH - 3); }
          if (shown) {
            ctx.fillStyle = textOn(v); ctx.font = "11px ui-monospace, Menlo, monospace";
            ctx.textAlign = "center"; ctx.fillText(String(v), x + w / 2, y + ROWH / 2 + 0.5, w - 2); ctx.textAlign = "left";
            if (ck) kindStripe(x, y, w, ck);
          }
        }
        if (cnt > 1) { ctx.fillStyle = "#0006"; ctx.fillRect(LABELW - 3, y + 2, 2, ROWH - 4); }
      }
      if (ri === hl) {
        ctx.strokeStyle = "#0b5cad"; ctx.lineWidth = 3; ctx.strokeRect(1.5, y + 1.5, W - 3, ROWH - 3);
        ctx.fillStyle = "#0b5cad"; ctx.fillRect(0, y, 5, ROWH);
      }
    }
    if (strip) drawStrip();
  }
  /* A stripe at the foot of a cell: one segment per kind that touched it. */
  function kindStripe(x, y, w, k) {
    var n = (k & 1) + (k >> 1 & 1) + (k >> 2 & 1), sw = (w - 2) / n, j = 0;
    for (var i = 0; i < 3; i++) if (k & (1 << i)) { ctx.fillStyle = KIND_COLORS[i]; ctx.fillRect(x + 1 + j * sw, y + ROWH - 4, sw, 3); j++; }
  }
  /* The sector's kinds as letters at the end of the row's label. */
  function rowKinds(k, y) {
    ctx.font = "bold 11px ui-monospace, Menlo, monospace"; ctx.textAlign = "right";
    for (var i = 2, x = LABELW - 8; i >= 0; i--) if (k & (1 << i)) { ctx.fillStyle = KIND_COLORS[i]; ctx.fillText(KIND_LETTERS[i], x, y + ROWH / 2); x -= 8; }
    ctx.textAlign = "left";
  }
  /* Whether run `code` has a word of the kind the filter shows. */
  function passes(code) { return !KIND_FILTER || !h.kindsKnown || (runKinds(h, code) & KIND_FILTER) !== 0; }
  /* Overview strip: the whole map squeezed into the view's height, each pixel
   * the hottest sector of its rows; the box marks what the view shows. */
  var strip = null, stripImg = null;
  /* Sizes from the number of display rows (again after a fold is expanded). */
  function layout() {
    nrows = h.rows.length;
    viewH = Math.min(nrows * ROWH, 560);
    virtH = Math.min(nrows * ROWH, MAXH);
    visible = Math.ceil(viewH / ROWH) + 1;
    scroll.style.height = (viewH + 2) + "px";
    spacer.style.height = Math.max(0, virtH - viewH) + "px";
    canvas.width = W * dpr; canvas.height = viewH * dpr; canvas.style.height = viewH + "px";
    if (strip) { strip.remove(); strip = null; }
    if (nrows * ROWH > viewH * 2) buildStrip();
  }
  function buildStrip() {
    strip = el("canvas", { cls: "hm-strip", title: "overview of the whole map: click to jump" });
    strip.width = STRIPW; strip.height = viewH; strip.style.width = STRIPW + "px"; strip.style.height = viewH + "px";
    var sg = strip.getContext("2d"), hot = new Uint32Array(viewH), any = new Uint8Array(viewH);
    for (var ri = 0; ri < nrows; ri++) {
      var code = h.rows[ri], py = Math.floor(ri * viewH / nrows);
      if (code >= 0) { var tv = passes(code) ? h.temps[code * 9 + 8] : 0; if (tv > hot[py]) hot[py] = tv; any[py] = 1; }
      else if (code <= FOLD_BASE) { var fr = h.folds[FOLD_BASE - code].first, fv = passes(fr) ? h.temps[fr * 9 + 8] : 0; if (fv > hot[py]) hot[py] = fv; any[py] = 1; }
    }
    for (var py2 = 0; py2 < viewH; py2++) { sg.fillStyle = any[py2] ? colorOf(hot[py2]) : "#fff"; sg.fillRect(0, py2, STRIPW, 1); }
    stripImg = sg.getImageData(0, 0, STRIPW, viewH);
    strip.addEventListener("click", function (ev) {
      var r = strip.getBoundingClientRect();
      self.scrollToRow(Math.max(0, Math.floor((ev.clientY - r.top) / viewH * nrows - viewH / ROWH / 2)));
    });
    box.insertBefore(strip, scroll);
  }
  layout();
  function drawStrip() {
    var g = strip.getContext("2d");
    g.putImageData(stripImg, 0, 0);
    var f = firstRowF(), y0 = f / nrows * viewH, hgt = Math.max(3, viewH / ROWH / nrows * viewH);
    g.strokeStyle = "#fff"; g.lineWidth = 4; g.strokeRect(1, y0 + 1, STRIPW - 2, hgt - 2); /* visible on the darkest colour too */
    g.strokeStyle = "#0b5cad"; g.lineWidth = 2; g.strokeRect(1, y0 + 1, STRIPW - 2, hgt - 2);
  }
  var pending = false;
  function schedule() { if (!pending) { pending = true; requestAnimationFrame(function () { pending = false; draw(); }); } }
  scroll.addEventListener("scroll", function () { hideTip(); schedule(); });
  canvas.addEventListener("mouseleave", hideTip);
  /* A click on a fold row shows the rows it folds. */
  canvas.addEventListener("click", function (ev) {
    var r = canvas.getBoundingClientRect(), ri = Math.floor(firstRowF() + (ev.clientY - r.top) / ROWH);
    if (ri >= 0 && ri < nrows && h.rows[ri] <= FOLD_BASE) self.expand(ri);
  });
  /* Replaces fold row ri by the runs it folds. */
  this.expand = function (ri) {
    var code = h.rows[ri];
    if (!(code <= FOLD_BASE)) return false;
    var f = h.folds[FOLD_BASE - code], n = f.reps * f.period, rows = new Int32Array(nrows - 1 + n);
    rows.set(h.rows.subarray(0, ri), 0);
    for (var k = 0; k < n; k++) { rows[ri + k] = f.start + k; h.runRow[f.start + k] = ri + k; }
    rows.set(h.rows.subarray(ri + 1), ri + n);
    for (var i = f.start + n; i < h.nruns; i++) h.runRow[i] += n - 1;
    h.rows = rows;
    if (hl > ri) hl += n - 1;
    layout(); draw();
    return true;
  };
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
    if (code <= FOLD_BASE) {
      var fo = h.folds[FOLD_BASE - code], last = fo.start + fo.reps * fo.period - 1;
      return foldText(fo) + "\nfolded sectors " + hex(h.meta[fo.start * 4 + 1], h.meta[fo.start * 4]) + " .. " +
        hex(h.meta[last * 4 + 1], h.meta[last * 4]) + " (" + offText(offsetOf(fo.start, 0)) + " .. " + offText(offsetOf(last, h.meta[last * 4 + 2] - 1)) + ")\nclick to show the folded rows";
    }
    if (code < 0) return "Region " + (-1 - code - 1) + "\n" + regionText(-1 - code - 1);
    var m = h.meta, t = h.temps, b = code * 4, tb = code * 9, cnt = m[b + 2];
    var col = -1;
    for (var c = 0; c < 9; c++) { var cx = cellX(c), w = c < 8 ? CELLW : SECW; if (x >= cx && x < cx + w) col = c; }
    var words = []; for (var i = 0; i < 8; i++) words.push(t[tb + i]);
    var o = offsetOf(code, 0);
    var lines = [
      "sector tag " + hex(m[b + 1], m[b]) + (cnt > 1 ? " .. +" + (cnt - 1) + " (" + cnt + " identical sectors)" : ""),
      "address    " + mulHex(m[b + 1], m[b], ss, 0) + (cnt > 1 ? " .. " + mulHex(m[b + 1], m[b] + cnt - 1, ss, ss - 1) : ""),
      "object     " + regionText(m[b + 3] - 1)];
    if (o != null) lines.push("offset     " + offText(o) + " = byte " + o.toString() + ", 4-byte element " + (o / 4n).toString());
    lines.push("words      " + words.join(" "), "sector     " + t[tb + 8] + " distinct warp" + (t[tb + 8] === 1 ? "" : "s"));
    if (h.kindsKnown) lines.push("kinds      " + kindsText(runKinds(h, code)) + "  (per word " + kindsLetters(h, code, t) + ")");
    else lines.push("kinds      not recorded (a profile written before memheat kept them)");
    if (col >= 0 && col < 8) lines.push("word " + col + "     " + mulHex(m[b + 1], m[b], ss, col * 4) + ": " + t[tb + col] + " distinct warp" + (t[tb + col] === 1 ? "" : "s") +
      (h.kindsKnown && t[tb + col] ? " (" + kindsText(wordKinds(h, code, col)) + ")" : ""));
    return lines.join("\n");
  };
  /* Display row of the run holding tag (hex string), or -1. */
  this.rowOfTag = function (tagHex) {
    var want; try { want = BigInt(tagHex); } catch (e) { return -1; }
    for (var i = 0; i < h.nruns; i++) {
      var b = i * 4, s = (BigInt(h.meta[b + 1]) << 32n) | BigInt(h.meta[b]);
      if (s <= want && want < s + BigInt(h.meta[b + 2])) return h.runRow[i];
      if (s > want) break;
    }
    return -1;
  };
  /* Scroll so that the run holding tag (hex string) is in view, highlighted. */
  this.scrollToTag = function (tagHex) {
    var ri = this.rowOfTag(tagHex);
    if (ri < 0) return false;
    this.highlight(ri); return true;
  };
  this.scrollToRow = function (ri) {
    var range = virtH - viewH, span = Math.max(1, nrows - viewH / ROWH);
    scroll.scrollTop = range > 0 ? Math.min(range, (ri / span) * range) : 0; draw();
  };
  /* Highlights display row ri and scrolls it to the middle of the view. */
  this.highlight = function (ri) { hl = ri; this.scrollToRow(Math.max(0, ri - Math.floor(viewH / ROWH / 2) + 1)); };
  this.highlighted = function () { return hl; };
  /* Canvas y of display row ri in the current scroll state (for tests). */
  this.rowY = function (ri) { return (ri - firstRowF()) * ROWH; };
  this.cellX = function (c) { return cellX(c) + (c < 8 ? CELLW : SECW) / 2; };
  this.rowLabel = function (ri) { var c = h.rows[ri]; return c >= 0 ? rowLabel(c) : (c <= FOLD_BASE ? foldText(h.folds[FOLD_BASE - c]) : regionText(-1 - c - 1)); };
  this.draw = draw;
  /* Redraws after the kind filter changed (the overview strip too). */
  this.refilter = function () { layout(); draw(); };
  HEAT_VIEWS.push(this);
  draw();
}

/* Legend: the report-wide scale and what this launch's sample can show. */
function legend(l) {
  var wrap = el("div", { cls: "hm-side" });
  wrap.appendChild(el("div", { text: "Temperature (distinct warps)" }));
  var c = el("canvas", { cls: "hm-legend" }), H = 160, W = 60, max = SCALE_MAX;
  c.width = W; c.height = H + 20; c.style.width = W + "px"; c.style.height = (H + 20) + "px";
  var g = c.getContext("2d");
  for (var y = 0; y < H; y++) {
    var t = Math.exp(Math.log(Math.max(max, 1)) * (1 - y / (H - 1)));
    g.fillStyle = colorOf(Math.max(1, t)); g.fillRect(0, y, 18, 1);
  }
  g.fillStyle = colorOf(0); g.fillRect(0, H + 6, 18, 12);
  g.fillStyle = "#333"; g.font = "11px system-ui, sans-serif"; g.textBaseline = "middle";
  g.fillText(String(max), 24, 6); g.fillText("1", 24, H - 4); g.fillText("0", 24, H + 12);
  if (max >= 8) { var t8 = Math.min(max, 8), y8 = (1 - Math.log(t8) / Math.log(max)) * (H - 1); if (y8 > 14 && y8 < H - 14) g.fillText(String(t8), 24, y8); }
  wrap.appendChild(c);
  var sw = sampledWarps(l);
  wrap.appendChild(el("div", { cls: "hm-sampled", text: "One scale for every launch: 1 \u2026 " + max + " warps (the hottest cell of the run)." +
    (sw != null ? " This launch: " + l.n_sampled + " of " + l.n_blocks + " block" + (l.n_blocks === 1 ? "" : "s") + " sampled \u00d7 " +
      l.warps_per_block + " warps = " + sw + " warps sampled, so a cell shows at most " + sw + "." : "") }));
  wrap.appendChild(el("div", { cls: "muted", text: "Rows: offset in the object [4-byte element], 8 word cells, sector cell. \u00d7N: N consecutive identical sectors; \u21bb: a pattern of rows that repeats." }));
  wrap.appendChild(kindsLegend(l));
  return wrap;
}

/* Access kinds: the stripe colours, the letters, and the filter (one for the
 * whole page: every map redraws). */
function kindsLegend(l) {
  var box = el("div", { cls: "hm-kinds" });
  box.style.marginTop = "8px";
  box.appendChild(el("div", { text: "Access kinds" }));
  var sel = el("select", { cls: "hm-kind-filter", "aria-label": "show the words touched by one kind of access" });
  [["0", "all kinds"], ["1", "loads"], ["2", "stores"], ["4", "atomics"]].forEach(function (o) { sel.appendChild(el("option", { value: o[0], text: o[1] })); });
  sel.value = String(KIND_FILTER);
  sel.addEventListener("change", function () { setKindFilter(parseInt(sel.value, 10)); });
  box.appendChild(el("label", null, ["Show: ", sel]));
  var keys = el("div", { cls: "hm-kind-keys" });
  for (var i = 0; i < 3; i++) {
    var sw = el("span");
    sw.style.cssText = "display:inline-block;width:16px;height:4px;margin:0 4px 2px 0;vertical-align:middle;background:" + KIND_COLORS[i];
    var key = el("span", null, [sw, KIND_LETTERS[i] + " " + KIND_NAMES[i] + "s"]);
    key.style.marginRight = "10px"; key.style.color = KIND_COLORS[i];
    keys.appendChild(key);
  }
  box.appendChild(keys);
  var old = l && (D.heat_maps || []).some(function (m) { return m.launch === l.id && m.kinds === false; });
  box.appendChild(el("div", { cls: "muted", text: "The stripe under a cell marks the kinds of access that touched the word (several: split), the letters after a row's offset the sector's. " +
    "Filter: words that no access of the chosen kind touched are drawn blank; a number still counts the distinct warps of every kind." +
    (old ? " This profile was written before memheat kept the kinds: its maps have none." : "") }));
  return box;
}

/* Hottest sectors of a map: a clickable list. */
function hottestList(v, n) {
  var h = v.h, best = hottestRuns(h, n);
  if (!best.length) return null;
  var box = el("div", { cls: "hm-hottest" });
  box.appendChild(el("div", { cls: "small-head", text: "Hottest sectors" }));
  var ol = el("ol");
  best.forEach(function (i) {
    var ri = h.runRow[i], reg = h.meta[i * 4 + 3] - 1, g = (v.map.regions || [])[reg];
    var a = el("a", { href: "#", cls: "mono", text: v.rowLabel(ri).replace(/\s+\u00d7\d+$/, "") + " " + (g && g.label ? g.label : "") + ": " + h.temps[i * 9 + 8] + (h.temps[i * 9 + 8] === 1 ? " warp" : " warps") });
    a.addEventListener("click", function (e) { e.preventDefault(); v.highlight(ri); });
    ol.appendChild(el("li", null, [a]));
  });
  box.appendChild(ol);
  return box;
}

/* Degree per bank of an instruction's worst request (the one with the most
 * extra wavefronts): the distinct words each of the 32 banks served in its
 * worst phase, so an N-way conflict is one bank N tall (the full height is
 * 32, a whole warp's words in one bank). One chart, the
 * instruction picked from a list (most conflicted first). */
function bankSource(b) { return b.file ? b.file + (b.line ? ":" + b.line : "") + " (pc " + b.pc + ")" : "pc " + b.pc; }
/* A pc's extra wavefronts and its wavefronts without conflicts per request
 * (bank_conflict.ideal/extra; an 8- or 16-byte access needs 2 or 4 anyway:
 * a profile without them counts 1). */
function bankIdeal(b) { return isNum(b.ideal) && b.accesses > 0 ? b.ideal / b.accesses : 1; }
function bankExtra(b) { return isNum(b.extra) ? b.extra : Math.max(0, (b.degree - 1) * b.accesses); }
function bankConflicted(b) { return isNum(b.extra) ? b.extra > 0 : b.max_degree > 1; }
/* The chart's instructions: those with conflicts only, most extra wavefronts first. */
function bankDegrees(conflicts) {
  var cs = (conflicts || []).filter(function (b) { return Array.isArray(b.banks) && b.banks.length === 32 && bankConflicted(b); });
  if (!cs.length) return null;
  cs.sort(function (a, b) { return bankExtra(b) - bankExtra(a) || b.max_degree - a.max_degree; });
  var box = el("div", { cls: "bank-degrees" });
  box.appendChild(el("div", { cls: "small-head", text: "Degree per bank of the worst request" }));
  var sel = null;
  if (cs.length > 1) {
    sel = el("select", { cls: "bank-degree-pc", "aria-label": "instruction" });
    cs.forEach(function (b, i) { sel.appendChild(el("option", { value: String(i), text: bankSource(b) + ": " + fmtInt(bankExtra(b)) + " extra wavefronts" })); });
    box.appendChild(sel);
  }
  var note = el("div", { cls: "muted" }), CW = 14, H = 90, c = el("canvas", { cls: "bank-degree" });
  c.width = 32 * CW; c.height = H + 24; c.style.width = 32 * CW + "px"; c.style.height = (H + 24) + "px"; c.style.display = "block";
  box.appendChild(note); box.appendChild(c);
  function show(i) {
    var b = cs[i], d = b.banks, top = 1, g = c.getContext("2d");
    d.forEach(function (x) { if (x > top) top = x; });
    var full = Math.max(top, 32); /* one scale: 32 words in one bank (a whole warp's) is the full height */
    g.fillStyle = "#fff"; g.fillRect(0, 0, c.width, c.height);
    g.font = "9px ui-monospace, monospace"; g.textAlign = "center"; g.textBaseline = "middle";
    g.fillStyle = "#ccc"; g.fillRect(0, H, 32 * CW, 1);
    for (var k = 0; k < 32; k++) {
      if (d[k] > 0) {
        var hh = Math.max(2, d[k] / full * (H - 12));
        g.fillStyle = colorOf(d[k], 32); g.fillRect(k * CW, H - hh, CW - 1, hh);
        g.fillStyle = "#333"; g.fillText(String(d[k]), k * CW + CW / 2, H - hh - 6);
      }
      if (k % 4 === 0) { g.fillStyle = "#333"; g.fillText(String(k), k * CW + CW / 2, H + 12); }
    }
    c.setAttribute("data-degrees", d.join(" ")); c.setAttribute("data-pc", b.pc);
    note.textContent = bankSource(b) + ": distinct words per bank (0\u202631) in the worst phase of its worst request; the tallest bank, " + top +
      ", is that phase's wavefronts (" + (top > 1 ? top + "-way conflict" : "conflict free") + "). " + fmtNum(b.degree, 2) + " wavefronts per request where " +
      fmtNum(bankIdeal(b), bankIdeal(b) % 1 ? 2 : 0) + " would do, over " + fmtInt(b.accesses) + " requests.";
  }
  if (sel) sel.addEventListener("change", function () { show(parseInt(sel.value, 10)); });
  show(0);
  return box;
}

/* Bank view of a shared-memory map: 32 banks of 4-byte words (bank = word
 * index mod 32); one line per 128 bytes, cells coloured by the word's
 * temperature, and per bank the distinct words used. The measured conflict
 * degree per instruction is the bank table's (per pc). */
var BANK_LINES_MAX = 2048;
function bankView(map, h, conflicts) {
  var ss = map.sector_size || 32, wps = ss / 4, lines = {}, order = [], words = new Uint32Array(32), nlines = 0;
  for (var i = 0; i < h.nruns && nlines < BANK_LINES_MAX; i++) {
    var lo = h.meta[i * 4], cnt = h.meta[i * 4 + 2];
    for (var k = 0; k < cnt && nlines < BANK_LINES_MAX; k++) {
      var tag = lo + k, line = Math.floor(tag * wps / 32), base = (tag * wps) % 32;
      if (!lines[line]) { lines[line] = new Uint32Array(32); order.push(line); nlines++; }
      for (var w = 0; w < wps; w++) { var t = h.temps[i * 9 + w]; lines[line][base + w] = t; if (t > 0) words[base + w]++; }
    }
  }
  if (!order.length) return null;
  var sec = el("div", { cls: "bank-view" });
  var maxDeg = 0, sumDeg = 0, n = 0;
  (conflicts || []).forEach(function (b) { if (b.max_degree > maxDeg) maxDeg = b.max_degree; sumDeg += b.degree * b.accesses; n += b.accesses; });
  sec.appendChild(el("div", { cls: "small-head", text: "Bank view: 32 banks \u00d7 4-byte words, one line per 128 bytes" }));
  sec.appendChild(el("div", { cls: "muted", text: (n ? "Measured conflict degree per warp instruction: mean " + fmtNum(sumDeg / n, 2) + ", max " + maxDeg +
    " (degree d = d wavefronts for one request; 1 = conflict free). " : "") + "Bottom line: distinct words used per bank; a request that touches k of them in one bank needs k wavefronts." }));
  var deg = bankDegrees(conflicts); if (deg) sec.appendChild(deg);
  var CW = 14, LH = 6, L = 0, H = Math.min(order.length, 400) * LH;
  var c = el("canvas", { cls: "bank-canvas" });
  c.width = 32 * CW; c.height = H + 30; c.style.width = 32 * CW + "px"; c.style.height = (H + 30) + "px";
  var g = c.getContext("2d");
  order.slice(0, 400).forEach(function (ln, r) { for (var b = 0; b < 32; b++) { g.fillStyle = colorOf(lines[ln][b]); g.fillRect(L + b * CW, r * LH, CW - 1, LH - 1); } });
  g.font = "9px ui-monospace, monospace"; g.textAlign = "center"; g.textBaseline = "middle"; g.fillStyle = "#333";
  for (var b = 0; b < 32; b++) { g.fillText(String(words[b]), L + b * CW + CW / 2, H + 8); if (b % 4 === 0) g.fillText(String(b), L + b * CW + CW / 2, H + 22); }
  c.setAttribute("data-words", Array.prototype.join.call(words, " "));
  sec.appendChild(c);
  if (order.length > 400) sec.appendChild(el("div", { cls: "muted", text: "first 400 of " + order.length + " lines" }));
  return sec;
}
