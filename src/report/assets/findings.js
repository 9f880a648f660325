/* findings.js -- "what do I fix first?": the fixes of the whole run (D.fixes:
 * every cause folded and ranked by its estimated saving, computed once in C
 * by src/report/fixes.c, the figures the terminal prints), with the fix in
 * the program's language, and the per-launch finding boxes.
 *
 * Estimated saving (docs/report.md): from untraced times only, never above
 * the kernel's own time; the model of each is in its hover (fix.model). */

var FIND_TITLES = { hot_spot: "Hot spot", random_hot: "Random hot spots", false_sharing: "False sharing", misaligned: "Misaligned access", strided: "Strided access", smem_abuse_thread: "Shared-memory abuse (thread-private words)", smem_abuse_warp: "Shared-memory abuse (words shared within one warp)", coalesced: "Well coalesced", bank_conflict: "Shared-memory bank conflicts", uncoalesced: "Uncoalesced reads", irregular: "Irregular gather", partial_view: "Shared memory partly unseen" };
/* Findings of one cause: strided and false sharing are the same thread-to-index
 * mapping seen from the lanes or from the sectors, so one kernel variant's
 * "strided" and the next one's "false sharing" land in one family. */
var FAMILY = { strided: "mapping", false_sharing: "mapping", uncoalesced: "mapping", irregular: "mapping", misaligned: "misaligned", hot_spot: "hot", random_hot: "hot", smem_abuse_thread: "smem", smem_abuse_warp: "smem", bank_conflict: "bank" };
/* Units of `cost` (docs/metrics.md section 4) and of the `sectors` column. */
var COST_UNITS = { mapping: "excess sectors", misaligned: "excess sectors", hot: "re-fetched sectors (weighted)", smem: "shared-memory warp instructions", bank: "extra wavefronts" };
function countUnit(kind) { return kind === "bank_conflict" ? "extra wavefronts" : (FAMILY[kind] === "smem" ? "(block, word) cells" : "sectors"); }

var T_ = LANG === "opencl" ? {
  tid: "get_local_id(0)", thread: "work-item", threads: "work-items", warp: "sub-group", block: "work-group", shared: "__local memory",
  sync: "barrier(CLK_LOCAL_MEM_FENCE)", nthreads: "get_local_size(0)", cnst: "__constant memory", reg: "a private variable",
  pitch: "pad rows to a multiple of 32 bytes", vec: "vload2/vload4 (float2/float4)",
  shfl: "sub_group_shuffle(v, lane) or sub_group_broadcast(v, lane) (cl_khr_subgroups)"
} : {
  tid: "threadIdx.x", thread: "thread", threads: "threads", warp: "warp", block: "block", shared: "shared memory",
  sync: "__syncthreads()", nthreads: "blockDim.x", cnst: "__constant__ memory", reg: "a register (local variable)",
  pitch: "pad rows to a multiple of 32 bytes (cudaMallocPitch)", vec: "float2/float4 vector loads",
  shfl: "__shfl_sync(0xffffffff, v, srcLane)"
};
function fixText(kind, obj, f) {
  var o = obj || "the object", t = T_;
  switch (FAMILY[kind]) {
  case "mapping": return "Swap the thread-to-index mapping so that consecutive " + t.threads + " (" + t.tid + ") walk the contiguous dimension of " + o +
    " and one " + t.warp + " covers whole sectors, or transpose " + o + "; if the strided elements are reused, stage a tile through " + t.shared +
    " with coalesced loads and " + t.sync + ".";
  case "misaligned": return "Align each " + t.warp + "'s first element of " + o + " to a 32-byte sector: " + t.pitch + " or shift the index; aligned data also allows " + t.vec + ".";
  case "hot": return kind === "random_hot"
    ? "Stage the hot part of " + o + " in " + t.shared + " (" + t.sync + " after the load), or sort the indices so that neighbouring " + t.threads + " gather neighbouring elements."
    : "Load the hot sectors of " + o + " once per " + t.block + " into " + t.shared + " (" + t.sync + " after the load) and reuse them; read-only uniform values fit " + t.cnst + " or " + t.reg + ".";
  case "smem": return kind === "smem_abuse_warp"
    ? "Values of " + o + " are only exchanged inside a " + t.warp + ": pass them with " + t.shfl + " and drop the " + t.shared + " array and its " + t.sync + "."
    : "Each word of " + o + " is used by one " + t.thread + ": keep the value in " + t.reg + " and drop the " + t.shared + " array and its " + t.sync + ".";
  /* the analysis tells a loop's growing stride (its advice names sequential addressing) from a tile read by columns */
  case "bank": return f && f.advice && f.advice.indexOf("sequential addressing") >= 0
    ? "The bank conflict in " + o + " grows from one execution to the next: a tree reduction indexed with a stride (a[2*s*" + t.tid + "]). Use sequential addressing: for (s = " + t.nthreads + "/2; s > 0; s >>= 1) if (" + t.tid + " < s) a[" + t.tid + "] += a[" + t.tid + " + s]; with " + t.sync + " between steps."
    : "Lanes of a " + t.warp + " hit several words of one bank in " + o + ": a 2-D tile read by columns. Pad the inner dimension by one word ([N][N+1]), or swap the index order so that consecutive " + t.threads + " use consecutive words.";
  }
  return f && f.advice ? f.advice : "";
}

/* Where a finding is in the source: file:line (+ notes), or why not. */
function whereText(f) {
  var ocl = f.file === "input.cl" ? "Oclgrind's name for the program's OpenCL source" : "";
  if (f.file && f.source_file) return f.source_file + ":" + f.line + " (the profile says " + f.file + ":" + f.line + (ocl ? ", " + ocl : "") + ")";
  if (f.file) return f.file + (f.line ? ":" + f.line : "") + (ocl ? " (" + ocl + "; memheat report --source DIR shows its lines)" : "");
  if (LANG === "cuda" && f.pc && f.pc !== "0x0") return "pc " + f.pc + ": no file:line (build with nvcc -lineinfo to see the source line)";
  return "";
}
function snippetEl(f) {
  if (!Array.isArray(f.snippet) || !f.snippet.length) return null;
  var pre = el("pre", { cls: "snippet" });
  f.snippet.forEach(function (ln) {
    var row = el("span", { cls: ln[0] === f.line ? "at" : "", text: String(ln[0]).padStart(5) + "  " + ln[1] + "\n" });
    pre.appendChild(row);
  });
  return pre;
}

/* The fix (D.fixes) a finding is folded into, by finding id. */
var FIX_OF = {};
(D.fixes || []).forEach(function (x) { (x.findings || []).forEach(function (id) { FIX_OF[id] = x; }); });
function objectShort(f) { return f.object_short || f.object_label; }

/* Several processes (ranks): a fix folds the findings of every rank (fixes.c
 * keys by kernel, cause and object); it names the ranks that have them and
 * the spread of their cost per rank. */
function rankLabel(pid) { var ps = D.processes || []; for (var i = 0; i < ps.length; i++) if (ps[i].id === pid) return ps[i].label || ("process " + pid); return "process " + pid; }
function rankListText(labels) {
  var nums = labels.map(function (t) { var m = /^rank (\d+)$/.exec(t); return m ? +m[1] : null; });
  if (!nums.every(function (n) { return n != null; })) return labels.join(", ");
  nums.sort(function (a, b) { return a - b; });
  var runs = []; /* consecutive ranks as "0-3" */
  for (var i = 0; i < nums.length;) { var j = i; while (j + 1 < nums.length && nums[j + 1] === nums[j] + 1) j++; runs.push(j > i ? nums[i] + "-" + nums[j] : String(nums[i])); i = j + 1; }
  return (nums.length === 1 ? "rank " : "ranks ") + runs.join(", ");
}
function multiRank() { return D.rank_view ? D.rank_view.n > 1 : (D.processes || []).length > 1; }
/* A rank view (rankview.c) holds one launch per distinct content: each
 * finding says which ranks have it (ranks_on, a bit per rank in rank order). */
function rankBits(f, into) {
  var b = f.ranks_on ? b64bytes(f.ranks_on) : null;
  if (b) for (var i = 0; i < b.length; i++) into[i] = (into[i] || 0) | b[i];
}
function bitLabels(bits) {
  var out = [], R = D.rank_view.ranks;
  for (var i = 0; i < R.length; i++) if ((bits[i >> 3] || 0) >> (i & 7) & 1) out.push(typeof R[i] === "number" ? "rank " + R[i] : R[i]);
  return out;
}
function ranksText(r) {
  if (!r) return "";
  var spread = r.costMin === r.costMax ? fmtInt(r.costMin) : fmtInt(r.costMin) + "\u2013" + fmtInt(r.costMax);
  if (r.n === r.of) return "on all " + r.of + " ranks (cost " + spread + " per rank)";
  if (r.missing && 2 * r.n > r.of && rankListText(r.missing).length < rankListText(r.labels).length)
    return "on " + r.n + " of " + r.of + " ranks, all but " + rankListText(r.missing) + " (cost " + spread + " per rank)";
  return "on " + rankListText(r.labels) + " only" + (r.n > 1 ? " (cost " + spread + " per rank)" : "");
}

/* The fixes, ranked in C (fixes.c); across ranks, each says on which ranks
 * its findings are and the spread of their cost per rank: from the rank
 * view's bits where the page holds one launch per distinct content
 * (rankview.c), else from the process of each finding's launch. */
function fixGroups() {
  var RV = D.rank_view, nproc = RV ? RV.n : (D.processes || []).length, F = {};
  (D.findings || []).forEach(function (f) { F[f.id] = f; });
  return (D.fixes || []).map(function (x) {
    var g = { fix: x, launch: x.launch, cost: isNum(x.cost) ? x.cost : 0, savingNs: isNum(x.saving_ns) ? x.saving_ns : null,
      share: isNum(x.base_ns) && x.base_ns > 0 && isNum(x.saving_ns) ? x.saving_ns / x.base_ns : null, findings: [] };
    (x.findings || []).forEach(function (id) { if (F[id]) g.findings.push(F[id]); });
    g.top = x.finding != null ? F[x.finding] : null;
    if (nproc > 1 && g.findings.length && RV) {
      var bits = [], lo = 0, hi = 0;
      g.findings.forEach(function (f) { rankBits(f, bits); lo += isNum(f.cost_min) ? f.cost_min : f.cost || 0; hi += isNum(f.cost_max) ? f.cost_max : f.cost || 0; });
      var labels = bitLabels(bits), inv = [];
      for (var i = 0; i * 8 < nproc; i++) inv[i] = ~(bits[i] || 0) & 255;
      g.ranks = { n: labels.length, of: nproc, labels: labels, missing: bitLabels(inv), costMin: Math.min(lo, hi), costMax: Math.max(lo, hi) };
    } else if (nproc > 1 && g.findings.length) {
      var per = {}, labs = [];
      g.findings.forEach(function (f) { var l = launchById(f.launch), pid = l ? l.process : null; per[pid] = (per[pid] || 0) + (f.cost || 0); });
      var costs = Object.keys(per).map(function (k) { var lab = rankLabel(k === "null" ? null : +k); if (labs.indexOf(lab) < 0) labs.push(lab); return per[k]; });
      g.ranks = { n: labs.length, of: nproc, labels: labs, costMin: Math.min.apply(null, costs), costMax: Math.max.apply(null, costs) };
    }
    return g;
  });
}
function findingGroups() { return fixGroups(); }

/* Opens the launch of finding f at the heat-map row that shows it (its example
 * sector, else the first row of its object), highlighted. */
function openFinding(f) {
  var R = window.memheatReport;
  R.showLaunch(f.launch);
  var maps = (D.heat_maps || []).filter(function (m) { return m.launch === f.launch && m.space === f.space; });
  var v = maps.length ? R.views[maps[0].id] : null;
  if (!v) { document.getElementById("launches").scrollIntoView(); return false; }
  var ri = f.example_tag && f.example_tag !== "0x0" ? v.rowOfTag(f.example_tag) : -1;
  if (ri < 0) {
    var regs = v.map.regions || [], reg = -1;
    for (var i = 0; i < regs.length; i++) if (regs[i].label === f.object_label) { reg = i; break; }
    for (var j = 0; reg >= 0 && j < v.h.rows.length; j++) if (v.h.rows[j] === -1 - (reg + 1)) { ri = j + 1; break; }
  }
  if (ri >= 0 && ri < v.h.rows.length) v.highlight(ri);
  v.box.scrollIntoView({ block: "center" });
  return ri >= 0;
}

/* The unit of a fix's cost: its findings' (docs/metrics.md section 4), or the figure a timeline cause counts. */
var CAUSE_UNITS = { small_grid: "blocks in the grid", latency_bound: "warps resident per SM", launch_chain: "kernels in the chain", pageable_copy: "bytes", copy_overlap: "", library_kernel: "launches" };
function costUnit(x) { return x.cause in CAUSE_UNITS ? CAUSE_UNITS[x.cause] : (COST_UNITS[FAMILY[x.kinds.split("+")[0]]] || x.kinds); }
function countText(x) {
  if (x.cause === "launch_chain") return x.launches + " runs of " + x.configs + " kernels";
  if (x.cause === "pageable_copy") return x.launches + " copies, " + fmtBytes(x.bytes);
  if (x.cause in CAUSE_UNITS) return (x.note ? x.note + ", " : "") + x.launches + " launch" + (x.launches === 1 ? "" : "es");
  return "seen in " + x.launches + " traced launch" + (x.launches === 1 ? "" : "es") + (x.configs > 1 ? " of " + x.configs + " configurations" : "") +
    (x.launches > 1 && isNum(x.cost_min) && x.cost_min !== x.cost_max ? " (cost " + fmtInt(x.cost_min) + "\u2013" + fmtInt(x.cost_max) + " per launch)" : "");
}

function groupItem(g, rank) {
  var x = g.fix, f = g.top;
  var li = el("li", { cls: "fix", "data-launch": String(g.launch), "data-cost": String(g.cost), "data-cause": x.cause });
  var kn = x.kernels ? x.kernels.split(" + ").map(function (n) { var k = (D.kernel_names || {})[n]; return k ? k.short : n; }).join(x.cause === "library_kernel" ? ", " : " \u2192 ") : x.kernel_short || x.kernel;
  var head = [el("span", { cls: "rank", text: String(rank) }), el("span", { cls: "fix-title", text: x.title }), " in ", el("span", { cls: "mono kname", text: kn, title: ((D.kernel_names || {})[x.kernel] || {}).full || x.kernel })];
  if (x.object) head.push(" \u00b7 ", el("span", { cls: "mono", text: (x.object_short || x.object) + (x.space ? " (" + x.space + ")" : ""), title: x.object }));
  li.appendChild(el("div", { cls: "fix-head" }, head));
  if (x.site) li.appendChild(el("div", { cls: "fix-site" }, ["at ", el("span", { cls: "mono", text: x.site }), x.sites > 1 ? " (and " + (x.sites - 1) + " other call site" + (x.sites === 2 ? "" : "s") + ")" : ""]));
  var cost = el("div", { cls: "fix-cost" }, [el("span", { cls: "cost", text: fmtInt(g.cost) }), " " + costUnit(x) + " \u00b7 est. saving "]);
  var sv = el("b", { cls: "saving", text: g.share != null ? fmtPct(g.share) : "\u2014", title: x.model || "" });
  cost.appendChild(sv);
  if (g.savingNs != null) cost.appendChild(el("span", { cls: "saving-ns", title: x.model || "", text: ", \u2248 " + fmtNs(g.savingNs) + " of " + fmtNs(x.base_ns) + (x.cause === "pageable_copy" ? " of copies" : " untraced kernel time") }));
  else if (x.note && !(x.cause in CAUSE_UNITS)) cost.appendChild(document.createTextNode(" (" + x.note + ")"));
  cost.appendChild(document.createTextNode(" \u00b7 " + countText(x)));
  if (x.kinds.indexOf("+") > 0) cost.appendChild(document.createTextNode(" \u00b7 seen as " + x.kinds.split("+").map(function (k) { return FIND_TITLES[k] || k; }).join(" + ")));
  li.appendChild(cost);
  if (g.ranks) {
    li.setAttribute("data-ranks", String(g.ranks.n));
    li.appendChild(el("div", { cls: "fix-ranks" + (g.ranks.n === g.ranks.of ? " every" : " some"), text: ranksText(g.ranks) }));
  }
  var w = f ? whereText(f) : "";
  if (w) li.appendChild(el("div", { cls: "fix-where mono", text: w }));
  var sn = f ? snippetEl(f) : null; if (sn) li.appendChild(sn);
  li.appendChild(el("div", { cls: "fix-fix" }, [el("b", { text: "Fix: " }), x.fix]));
  if (f) {
    var a = el("a", { href: "#", cls: "fix-open", text: "Show in heat map \u2192" });
    a.addEventListener("click", function (e) { e.preventDefault(); openFinding(f); });
    li.appendChild(a);
  } else if (g.launch != null && launchById(g.launch)) {
    var b = el("a", { href: "#", cls: "fix-launch", text: "Open the launch \u2192" });
    b.addEventListener("click", function (e) { e.preventDefault(); window.memheatReport.showLaunch(g.launch); document.getElementById("launches").scrollIntoView(); });
    li.appendChild(b);
  }
  return li;
}

function sectionFixFirst() {
  var sec = el("section", { id: "fix-first" });
  sec.appendChild(el("h2", { text: "What to fix first" }));
  if (META.complete !== "1") sec.appendChild(el("div", { cls: "warn", text: "This profile is incomplete: the run that wrote it was interrupted. What it holds is valid but not everything was stored." }));
  if (META.trace_complete === "0") sec.appendChild(el("div", { cls: "warn", text: "The trace was cut short: heat maps and launches are from its complete chunks only." }));
  var groups = findingGroups();
  window.memheatReport.groups = groups;
  if (!D.findings && !groups.length) { sec.appendChild(el("p", { cls: "muted", text: "Pattern detection did not run for this profile." })); return sec; }
  if (!groups.length) { sec.appendChild(el("p", { cls: "muted", text: "No problem found: every traced access pattern is coalesced or has no finding." })); return sec; }
  var partial = (D.findings || []).filter(function (f) { return f.kind === "partial_view"; }).length;
  sec.appendChild(el("p", { cls: "muted", text: groups.length + " fix" + (groups.length === 1 ? "" : "es") + " for " + (D.findings || []).filter(function (f) { return f.kind !== "coalesced" && f.kind !== "partial_view"; }).length +
    " findings and the run's timeline, ranked by estimated saving (untraced time only; hover a saving for its model, docs/report.md), then by cost." +
    (partial ? " " + partial + " launch" + (partial === 1 ? "'s" : "es'") + " shared memory was only partly seen (filled or read by instructions memheat does not trace): no shared-memory finding is drawn from " + (partial === 1 ? "it" : "them") + "." : "") }));
  var ol = el("ol", { cls: "fix-list", id: "fix-list" }), SHOW = 6;
  groups.forEach(function (g, i) { var li = groupItem(g, i + 1); if (i >= SHOW) li.classList.add("more"); ol.appendChild(li); });
  sec.appendChild(ol);
  if (groups.length > SHOW) {
    var b = el("button", { type: "button", cls: "show-more", text: "Show all " + groups.length });
    b.addEventListener("click", function () { ol.classList.toggle("all"); b.textContent = ol.classList.contains("all") ? "Show the first " + SHOW : "Show all " + groups.length; });
    sec.appendChild(b);
  }
  return sec;
}

/* " (+0x100 [64] in b)": the example sector's byte offset and 4-byte element
 * index in its object, as the heat-map rows are labelled; "" when unknown. */
function exampleOffset(f) {
  var maps = (D.heat_maps || []).filter(function (m) { return m.launch === f.launch && m.space === f.space; });
  if (!maps.length) return "";
  var regs = maps[0].regions || [], ss = maps[0].sector_size || 32;
  for (var i = 0; i < regs.length; i++) {
    var g = regs[i];
    if (!(isNum(f.object) && g.object === f.object) && g.label !== f.object_label) continue;
    try {
      var o = BigInt(f.example_tag) * BigInt(ss) - BigInt(g.start);
      if (o < 0n || o >= BigInt(g.end) - BigInt(g.start)) continue;
      return " (+0x" + o.toString(16) + " [" + (o / 4n).toString() + "] in " + (g.label || "the object") + ")";
    } catch (e) { return ""; }
  }
  return "";
}

/* One finding in a launch's list. */
function findingBox(f) {
  var box = el("div", { cls: "finding" + (f.kind === "coalesced" ? " ok" : (isNum(f.cost) && f.cost < 0.1 ? " sev-low" : "")) });
  var head = el("div");
  head.appendChild(el("span", { cls: "kind", text: (FIND_TITLES[f.kind] || f.kind) }));
  head.appendChild(document.createTextNode(" in " + (objectShort(f) || "(unnamed object)") + (f.space ? " (" + f.space + ")" : "")));
  if (isNum(f.stride)) head.appendChild(document.createTextNode(", stride " + f.stride + " B"));
  if (f.kind !== "coalesced" && isNum(f.cost)) {
    var fx = FIX_OF[f.id];
    head.appendChild(document.createTextNode(" \u00b7 cost " + fmtInt(f.cost) + " " + (COST_UNITS[FAMILY[f.kind]] || "") + (fx && isNum(fx.saving_ns) ? " (fix: \u2248 " + fmtNs(fx.saving_ns) + " saved)" : "")));
  }
  box.appendChild(head);
  var ev = [];
  if (isNum(f.sectors)) ev.push(f.sectors + " " + countUnit(f.kind));
  if (f.example_tag && f.example_tag !== "0x0") ev.push("e.g. sector " + f.example_tag + exampleOffset(f));
  if (Array.isArray(f.temps) && f.temps.length === 9) ev.push("warps per word " + f.temps.slice(0, 8).join(" ") + ", per sector " + f.temps[8]);
  var w = whereText(f); if (w) ev.push(w);
  var at = isNum(f.object) ? argText(f.object) : ""; if (at) ev.push(at);
  if (LANG === "cuda" && f.file && f.pc && f.pc !== "0x0") ev.push("pc " + f.pc);
  if (f.evidence) ev.push(f.evidence);
  box.appendChild(el("div", { cls: "muted", text: ev.join(" \u00b7 ") }));
  var sn = snippetEl(f); if (sn) box.appendChild(sn);
  if (f.kind !== "coalesced") box.appendChild(el("div", { cls: "advice", text: "Fix: " + (FIX_OF[f.id] ? FIX_OF[f.id].fix : fixText(f.kind, f.object_label, f)) }));
  if (f.kind !== "coalesced" && f.kind !== "partial_view") {
    var a = el("a", { href: "#", text: "show in heat map" });
    a.addEventListener("click", function (e) { e.preventDefault(); openFinding(f); });
    box.appendChild(a);
  }
  return box;
}
