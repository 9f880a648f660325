/* report.js -- the memheat HTML report's sections and start-up (embedded at
 * build time; runs after util.js, heatmap.js, findings.js and timeline.js in
 * the same function scope).
 *
 * Page order: what to fix first (findings of the whole run by cost), kernels
 * (a row opens its launch), the traced launch (heat maps, findings, banks,
 * locality; the slowest kernel's launch first), timeline, camping band, run
 * details. Heat maps draw on one canvas per map with virtual scrolling, so a
 * map of millions of sectors costs one canvas and a few typed arrays. */
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
var meta = META, run = RUN;

function sectionRun() {
  var sec = el("section", { id: "run" });
  sec.appendChild(el("h2", { text: "Run" }));
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
  /* several processes: one row per kernel name and process, labelled with its
   * rank; a rank view (rankview.c) holds the reference rank's kernels only */
  var RV = D.rank_view || null, multi = !RV && (D.processes || []).length > 1, byName = {}, rows = [];
  function key(name, pid) { return multi ? name + "\u0000" + pid : name; }
  function tag(label, pid) { return multi && pid != null ? label + " \u00b7 " + rankLabel(pid) : label; }
  (D.kernels || []).forEach(function (k) {
    var r = { name: k.name, label: tag(k.short_name || k.name, k.process), full: k.full_name || k.name, count: k.count, total: k.total_ns, median: k.median_ns, bw: isNum(k.bandwidth_Bps) ? k.bandwidth_Bps / 1e9 : null, pct: k.pct_peak, bound: k.bound, why: k.verdict || null, findings: 0, traced: 0 };
    byName[key(k.name, k.process)] = r; rows.push(r);
  });
  (D.launches || []).forEach(function (l) {
    if (RV && l.process !== RV.ref) return;
    var r = byName[key(l.name, l.process)] || byName[key(l.display_name, l.process)];
    if (!r) { r = { name: launchName(l), label: tag(l.short_name || launchName(l), l.process), full: l.full_name || launchName(l), count: null, total: null, median: null, bw: null, pct: null, bound: null, findings: 0, traced: 0 }; byName[key(l.name, l.process)] = r; rows.push(r); }
    r.traced++;
    if (r.launch == null) r.launch = l.id;
    (D.findings || []).forEach(function (f) { if (f.launch === l.id && f.kind !== "coalesced") r.findings++; });
  });
  /* How the times were taken (kernel_configs): launches timed while traced are left out of the times
   * ("instrumented", the terminal's *), replayed ones come from the counters run */
  (D.kernel_configs || []).forEach(function (c) {
    var r = byName[key(c.name, c.process)];
    if (!r) return;
    r.instrumented = (r.instrumented || 0) + Math.max(0, (c.launches || 0) - (c.clean || 0));
    r.replayed = (r.replayed || 0) + (c.replayed || 0);
  });
  /* Every launch counted by the collector, traced or sampled out (launch policy); summed over processes. */
  if (!multi) (D.launch_counts || []).forEach(function (c) {
    var r = byName[c.name];
    if (r) { r.ran = c.launches; r.configs = c.configs; }
  });
  return rows;
}

/* The figures behind a kernel's verdict (kernel.verdict, docs/timing.md
 * "Verdicts"), for the Bound cell's tooltip: the reason line, then the
 * figures one per line. */
function verdictTip(v) {
  var lines = [v.verdict + ": " + v.note];
  function pct(x) { return isNum(x) ? (x * 100).toFixed(x < 0.001 ? 2 : 1) + "%" : "\u2014"; }
  lines.push("bandwidth roof " + pct(v.frac_bandwidth_roof) + ", compute roof " + pct(v.frac_compute_roof));
  if (isNum(v.roof_ns) || isNum(v.measured_ns)) lines.push("per launch: roof " + fmtNs(v.roof_ns) + ", measured " + fmtNs(v.measured_ns));
  if (isNum(v.waves)) lines.push("waves " + v.waves.toFixed(2) + " (" + v.blocks + " blocks, " + v.blocks_per_sm + " per SM fit)");
  if (isNum(v.achieved_occupancy_pct)) lines.push("achieved occupancy " + v.achieved_occupancy_pct.toFixed(0) + "%");
  if (isNum(v.bytes)) lines.push("DRAM bytes per launch " + v.bytes.toExponential(3));
  return lines.join("\n");
}

function sectionKernels() {
  var sec = el("section", { id: "kernels" });
  sec.appendChild(el("h2", { text: "Kernels" }));
  var rows = kernelRows();
  if (!rows.length) { sec.appendChild(el("p", { cls: "muted", text: "No kernels in this profile." })); return sec; }
  if (!(D.kernels || []).length) sec.appendChild(el("p", { cls: "muted", text: "No timing pass in this profile (e.g. a simulator run): times and bandwidth are not available." }));
  if (D.rank_view) sec.appendChild(el("p", { cls: "muted", id: "kernels-rank", text: "Kernels of " + D.rank_view.ref_label + ", the reference rank; every rank: \u201cProcesses and ranks\u201d below." }));
  var cols = [
    { k: "name", t: "Kernel", f: function (r) { return r.label || r.name; } },
    { k: "count", t: "Launches", f: function (r) { return r.count == null ? "\u2014" : String(r.count) + (r.instrumented ? " *" : "") + (r.replayed ? " \u2020" : ""); } },
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
      if (r.launch != null) {
        tr.className = "opens"; tr.setAttribute("data-launch", String(r.launch)); tr.title = "open the traced launch";
        tr.addEventListener("click", function () { window.memheatReport.showLaunch(r.launch); document.getElementById("launches").scrollIntoView(); });
      }
      cols.forEach(function (c) {
        var td = el("td", { text: c.f(r) });
        if (c.k === "bound" && r.bound) td.className = "bound-" + r.bound;
        if (c.k === "bound" && r.why && r.why.note) { td.title = verdictTip(r.why); td.className += " has-tip"; }
        if (c.k === "name") { td.className = "mono kcell"; if (r.full && r.full !== td.textContent) td.title = r.full; }
        if (c.k === "count" && (r.instrumented || r.replayed)) {
          td.className = "has-tip";
          td.title = (r.instrumented ? r.instrumented + " instrumented (timed while traced: left out of the times and the savings)" : "") +
            (r.instrumented && r.replayed ? "; " : "") + (r.replayed ? r.replayed + " replayed (the counters run's time of its configuration)" : "");
        }
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
  }
  render();
  sec.appendChild(tableBox(table));
  if (rows.some(function (r) { return r.instrumented || r.replayed; }))
    sec.appendChild(el("p", { cls: "muted", text: "* launches timed only while traced (instrumented): their times are left out of the kernel's times and of every estimated saving. \u2020 replayed: timed by the counters run's kernel replay." }));
  return sec;
}

var views = {};
window.memheatReport = { data: D, views: views, colorOf: colorOf, scaleMax: SCALE_MAX, showLaunch: null, openFinding: openFinding, groups: null, defaultLaunch: null };

/* The launch shown first: the traced launch of the slowest kernel (timing
 * pass); without times, the launch of the costliest cause; else the first. */
function defaultLaunch(launches, groups) {
  var best = null, bestNs = -1;
  launches.forEach(function (l) { var k = kernelOfLaunch(l); if (k && isNum(k.total_ns) && k.total_ns > bestNs) { bestNs = k.total_ns; best = l.id; } });
  if (best != null) return best;
  for (var i = 0; groups && i < groups.length; i++) if (groups[i].launch != null && launchById(groups[i].launch)) return groups[i].launch;
  return launches[0].id;
}

function sectionLaunches() {
  var sec = el("section", { id: "launches" });
  sec.appendChild(el("h2", { text: "Traced launches" }));
  var launches = D.launches || [];
  if (!launches.length) { sec.appendChild(el("p", { cls: "muted", text: "No traced launches in this profile." })); return sec; }
  var sel = el("select", { id: "launch-select" });
  /* Several ranks (rank_view, rankview.c): one entry per launch across
   * ranks; the page holds one launch per distinct content (variant): the same
   * on every rank, shown once; else a selector picks the variant of a rank. */
  var RG = D.rank_view ? (D.rank_groups || null) : null;
  function groupOf(l) { return RG && l && l.rank_group != null ? RG[l.rank_group] : null; }
  function firstOf(g) { return g.variants.length ? g.variants[0].launch : null; }
  launches.forEach(function (l) {
    var g = groupOf(l);
    if (g && firstOf(g) !== l.id) return;
    var extra = !g ? "" : g.identical ? "  (identical on " + g.ranks + ")" : "  (" + g.ranks + "; differs by rank)";
    sel.appendChild(el("option", { value: String(l.id), text: "#" + l.id + "  " + launchName(l) + "  grid " + (l.grid || []).join("\u00d7") + "  block " + (l.block || []).join("\u00d7") + extra }));
  });
  var rankSel = el("select", { id: "rank-select", "aria-label": "rank" }), rankLab = el("label", { "for": "rank-select", text: "Rank" });
  var rankNote = el("span", { id: "rank-note", cls: "muted" });
  var headKids = [el("label", { "for": "launch-select", text: "Launch" }), sel];
  if (RG) headKids.push(rankLab, rankSel, rankNote);
  sec.appendChild(el("div", { cls: "launch-head" }, headKids));
  function showRanks(l) {
    if (!RG) return;
    var g = groupOf(l);
    rankSel.textContent = ""; rankNote.textContent = "";
    sel.value = String(g ? firstOf(g) : l.id);
    if (!g) return;
    if (g.identical) {
      rankSel.style.display = rankLab.style.display = "none";
      rankNote.textContent = "Heat maps identical on " + g.ranks + ": shown once.";
      return;
    }
    rankSel.style.display = rankLab.style.display = "";
    g.variants.forEach(function (v) {
      rankSel.appendChild(el("option", { value: String(v.launch), text: v.ranks + (v.n > 1 ? " (" + fmtInt(v.n) + " ranks)" : "") }));
    });
    rankSel.value = String(l.id);
    rankNote.textContent = "Heat maps differ between ranks (" + g.ranks + "): " + g.variants.length + " distinct, each shown once.";
  }
  rankSel.addEventListener("change", function () { show(parseInt(rankSel.value, 10)); });
  var body = el("div", { id: "launch-body" }), shown = null;
  sec.appendChild(body);
  function show(id) {
    if (shown === id) return;
    var l = launches.filter(function (x) { return x.id === id; })[0];
    if (!l) return;
    body.textContent = ""; hideTip(); shown = id;
    Object.keys(views).forEach(function (k) { delete views[k]; });
    sel.value = String(id);
    showRanks(l);
    var dl = el("dl", { cls: "kv" });
    function kv(k, v) { dl.appendChild(el("dt", { text: k })); dl.appendChild(el("dd", { cls: "mono", text: String(v) })); }
    kv("Kernel", launchName(l));
    if (RG && l.process != null) kv("Process", rankLabel(l.process));
    var lg = groupOf(l);
    if (lg && l.variant != null && lg.variants[l.variant]) kv("Same heat maps on", lg.variants[l.variant].ranks);
    if (l.display_name && l.display_name !== l.name) kv("Mangled", l.name);
    kv("Grid \u00d7 block", (l.grid || []).join("\u00d7") + "  \u00d7  " + (l.block || []).join("\u00d7"));
    kv("Blocks traced", (l.n_sampled === l.n_blocks ? "all " : "") + l.n_sampled + " of " + l.n_blocks);
    kv("Accesses recorded", l.recorded == null ? "\u2014" : l.recorded);
    if (l.dropped) kv("Accesses dropped", l.dropped);
    if (!l.ended) kv("Status", "did not end in the trace (cut short)");
    body.appendChild(dl);
    var maps = (D.heat_maps || []).filter(function (m) { return m.launch === id; });
    var bc = (D.bank_conflicts || []).filter(function (b) { return b.launch === id; });
    maps.forEach(function (m) {
      var h = loadHeat(m);
      body.appendChild(el("h3", { text: "Heat map: " + m.space + " memory (" + fmtInt(m.nrows) + " sectors, " + fmtInt(m.accesses) + " accesses, hottest " + m.max_temp + " warps" +
        (h && h.folds.length ? "; " + h.folds.length + " repeating pattern" + (h.folds.length === 1 ? "" : "s") + " folded" : "") + ")" }));
      if (!h) { body.appendChild(el("p", { cls: "muted", text: "heat map data missing" })); return; }
      var wrap = el("div", { cls: "hm-wrap" });
      var v = new HeatView(m, h);
      wrap.appendChild(v.box);
      var side = legend(l);
      var hot = hottestList(v, 8); if (hot) side.appendChild(hot);
      if ((m.regions || []).length > 1) {
        var rs = el("select", { "aria-label": "jump to object" });
        rs.appendChild(el("option", { value: "", text: "Jump to object\u2026" }));
        m.regions.forEach(function (g, i) { rs.appendChild(el("option", { value: String(i), text: "Region " + i + ": " + (g.label || "(unnamed)") })); });
        rs.addEventListener("change", function () {
          var want = -1 - (parseInt(rs.value, 10) + 1);
          for (var j = 0; j < h.rows.length; j++) if (h.rows[j] === want) { v.highlight(j); break; }
        });
        side.appendChild(rs);
      }
      wrap.appendChild(side);
      body.appendChild(wrap);
      if (m.space === "shared") { var bv = bankView(m, h, bc); if (bv) body.appendChild(bv); }
      views[m.id] = v;
    });
    if (!maps.length) body.appendChild(el("p", { cls: "muted", text: "No accesses were recorded for this launch." }));
    var fs = (D.findings || []).filter(function (f) { return f.launch === id; });
    body.appendChild(el("h3", { text: "Findings (" + fs.length + ")" }));
    if (!fs.length) body.appendChild(el("p", { cls: "muted", text: D.findings ? "No findings for this launch." : "Pattern detection did not run." }));
    fs.forEach(function (f) { body.appendChild(findingBox(f)); });
    /* conflict-free instructions (no extra wavefronts: an 8- or 16-byte access needs 2 or 4) are left out */
    var bcx = bc.filter(bankConflicted);
    if (bcx.length) {
      body.appendChild(el("h3", { text: "Shared-memory bank conflicts" }));
      var t = el("table", { cls: "data", id: "bank-table" }), tr = el("tr");
      ["source", "mean degree (wavefronts per request)", "without conflicts", "max degree", "warp requests", "extra wavefronts"].forEach(function (h) { tr.appendChild(el("th", { text: h })); });
      t.appendChild(tr);
      bcx.sort(function (a, b) { return bankExtra(b) - bankExtra(a); });
      /* OpenCL pcs are Oclgrind's host pointers: the source line says more */
      bcx.forEach(function (b) { t.appendChild(el("tr", null, [el("td", { cls: "mono", text: (b.file ? b.file + (b.line ? ":" + b.line : "") : "") + (LANG === "cuda" || !b.file ? (b.file ? " (pc " + b.pc + ")" : "pc " + b.pc) : "") }), el("td", { text: fmtNum(b.degree, 2) }), el("td", { text: fmtNum(bankIdeal(b), bankIdeal(b) % 1 ? 2 : 0) }), el("td", { text: String(b.max_degree) }), el("td", { text: fmtInt(b.accesses) }), el("td", { text: fmtInt(bankExtra(b)) })])); });
      body.appendChild(tableBox(t));
    }
    if (bc.length > bcx.length) body.appendChild(el("p", { cls: "muted", text: (bc.length - bcx.length) + " shared-memory instruction" + (bc.length - bcx.length === 1 ? " is" : "s are") + " conflict free (no extra wavefronts; an 8- or 16-byte access needs 2 or 4 anyway)." }));
    var loc = (D.locality || []).filter(function (x) { return x.launch === id; });
    if (loc.length) {
      body.appendChild(el("h3", { text: "Locality" }));
      var lt = el("table", { cls: "data" }), hr = el("tr");
      ["space", "accesses", "footprint", "90% footprint", "entropy (bits)", "local share"].forEach(function (h) { hr.appendChild(el("th", { text: h })); });
      lt.appendChild(hr);
      loc.forEach(function (x) { lt.appendChild(el("tr", null, [el("td", { text: x.space }), el("td", { text: String(x.accesses) }), el("td", { text: String(x.footprint) }), el("td", { text: String(x.footprint90) }), el("td", { text: fmtNum(x.entropy, 3) }), el("td", { text: fmtNum(x.local_share, 3) })])); });
      body.appendChild(tableBox(lt));
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
  var start = defaultLaunch(launches, window.memheatReport.groups), hash = /^#launch-(\d+)$/.exec(location.hash);
  window.memheatReport.defaultLaunch = start;
  if (hash) start = parseInt(hash[1], 10);
  show(start);
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

/* Findings, launches and GPU time by the line of the program that launched
 * them, or by NVTX range (html.c's groups_site / groups_nvtx: what
 * `memheat analyze --group-by site|nvtx` prints). */
function sectionByCode() {
  var modes = { site: D.groups_site || [], nvtx: D.groups_nvtx || [] };
  if (!modes.site.length) return null;
  var sec = el("section", { id: "by-code" });
  sec.appendChild(el("h2", { text: "By your code" }));
  sec.appendChild(el("p", { cls: "muted", text: "Findings, launches and GPU time by the line of your program that launched the kernels (the innermost frame outside the framework and libraries)" +
    (modes.nvtx.length ? ", or by the NVTX ranges open at the launch" : "") + "; a kernel's GPU time is shared among its call sites by their launches of it. Costliest findings first (cost: their estimated avoidable sector transactions or wavefronts), as memheat analyze --group-by prints them." }));
  var sel = null;
  if (modes.nvtx.length) {
    sel = el("select", { id: "by-code-mode" }, [el("option", { value: "site", text: "by call site" }), el("option", { value: "nvtx", text: "by NVTX range" })]);
    sec.appendChild(el("label", null, ["Group ", sel]));
  }
  var box = el("div");
  sec.appendChild(box);
  var SHOW = 8;
  function kname(n) { var k = (D.kernel_names || {})[n]; return k ? k.short : n; }
  function draw(mode) {
    var rows = modes[mode];
    box.textContent = "";
    var t = el("table", { cls: "by-code", id: "by-code-table" });
    t.appendChild(el("tr", null, ["#", mode === "site" ? "call site" : "NVTX range", "findings", "cost", "launches", "traced", "GPU time", "GB/s", "top finding"].map(function (h) { return el("th", { text: h }); })));
    rows.forEach(function (g, i) {
      var top = g.top ? [el("span", { cls: "kind", text: FIND_TITLES[g.top.kind] || g.top.kind }), " in ", el("span", { cls: "mono kname", text: kname(g.top.kernel), title: ((D.kernel_names || {})[g.top.kernel] || {}).full || g.top.kernel }),
        g.top.object ? " on " + g.top.object : ""] : ["\u2014"];
      var tr = el("tr", { cls: i >= SHOW ? "more" : "" }, [el("td", { text: String(i + 1) }), el("td", { cls: "mono where", text: g.label }), el("td", { text: String(g.findings) }),
        el("td", { text: g.findings ? fmtInt(g.cost) : "\u2014" }), el("td", { text: fmtInt(g.launches) }), el("td", { text: String(g.traced) }),
        el("td", { text: g.time_ns > 0 ? fmtNs(g.time_ns) : "\u2014" }), el("td", { text: isNum(g.bandwidth_Bps) ? fmtNum(g.bandwidth_Bps / 1e9, 1) : "\u2014" }), el("td", null, top)]);
      t.appendChild(tr);
    });
    box.appendChild(tableBox(t));
    if (rows.length > SHOW) {
      var b = el("button", { type: "button", cls: "show-more", text: "Show all " + rows.length });
      b.addEventListener("click", function () { t.classList.toggle("all"); b.textContent = t.classList.contains("all") ? "Show the first " + SHOW : "Show all " + rows.length; });
      box.appendChild(b);
    }
  }
  if (sel) sel.addEventListener("change", function () { draw(sel.value); });
  draw("site");
  return sec;
}

var head = el("header", { cls: "top" }, [el("h1", { text: "memheat report" }), el("div", { cls: "muted mono", text: run.command || "" })]);
document.body.insertBefore(head, app);
window.memheatReport.groups = findingGroups();
[sectionFixFirst(), sectionByCode(), sectionKernels(), sectionLaunches(), sectionTimeline(), sectionCamp(), sectionRun()].forEach(function (s) { if (s) app.appendChild(s); });
var foot = el("footer", { text: "memheat profile schema " + (meta.schema_version || "?") + ". This page works offline; it loads nothing." });
document.body.appendChild(foot);
window.memheatReport.readyMs = performance.now(); /* page built and first heat map drawn (bench/report) */
document.body.setAttribute("data-ready", "1");
