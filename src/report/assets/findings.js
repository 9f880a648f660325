/* findings.js -- "what do I fix first?": the findings of the whole run grouped
 * by cause, ranked by cost, with an estimated saving and the fix in the
 * program's language (CUDA or OpenCL), and the per-launch finding boxes.
 *
 * Estimated saving (docs/report.md): a launch's memory work is estimated as
 * T = global accesses / 8 (ideal 32-byte sectors of 4-byte accesses) + shared
 * accesses / 32 (ideal wavefronts, one per warp request) + the sum of the
 * costs of all its findings (the excess); a finding's share is cost / T, and
 * its time saving share x the kernel's total time (timing pass), as Nsight
 * Compute's estimated speedup: an upper bound that assumes the kernel's time
 * follows its memory transactions (memory-bound). */

var FIND_TITLES = { hot_spot: "Hot spot", random_hot: "Random hot spots", false_sharing: "False sharing", misaligned: "Misaligned access", strided: "Strided access", smem_abuse_thread: "Shared-memory abuse (thread-private words)", smem_abuse_warp: "Shared-memory abuse (words shared within one warp)", coalesced: "Well coalesced", bank_conflict: "Shared-memory bank conflicts" };
/* Findings of one cause: strided and false sharing are the same thread-to-index
 * mapping seen from the lanes or from the sectors, so one kernel variant's
 * "strided" and the next one's "false sharing" land in one family. */
var FAMILY = { strided: "mapping", false_sharing: "mapping", misaligned: "misaligned", hot_spot: "hot", random_hot: "hot", smem_abuse_thread: "smem", smem_abuse_warp: "smem", bank_conflict: "bank" };
var FAMILY_TITLES = { mapping: "Uncoalesced access: thread-to-index mapping (strided / partly used sectors)", misaligned: "Misaligned access", hot: "Hot sectors fetched by many warps", smem: "Shared memory used where registers would do", bank: "Shared-memory bank conflicts" };
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

/* Estimated memory work of each launch (see the header). */
var LAUNCH_WORK = {};
(function () {
  (D.heat_maps || []).forEach(function (m) {
    var a = isNum(m.accesses) ? m.accesses : 0;
    LAUNCH_WORK[m.launch] = (LAUNCH_WORK[m.launch] || 0) + (m.space === "shared" ? a / 32 : a / 8);
  });
  (D.findings || []).forEach(function (f) { if (isNum(f.cost)) LAUNCH_WORK[f.launch] = (LAUNCH_WORK[f.launch] || 0) + f.cost; });
})();
function findingShare(f) { var w = LAUNCH_WORK[f.launch]; return w > 0 && isNum(f.cost) ? Math.min(1, f.cost / w) : null; }

/* Several processes (ranks): the cause groups of the same launch on each
 * rank (html.c's rank_group: kernel configuration and its n-th launch), of
 * the same family and objects, folded into one, shown by its costliest rank,
 * with the ranks that have it and the spread of its cost. */
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
function foldRanks(groups) {
  if (!D.rank_groups || !multiRank()) return groups;
  var byKey = {}, out = [];
  groups.forEach(function (g) {
    var l = launchById(g.launch), objs = [];
    g.findings.forEach(function (x) { var o = (x.object_label || "") + "/" + (x.space || ""); if (objs.indexOf(o) < 0) objs.push(o); });
    var key = (l && l.rank_group != null ? l.rank_group : "L" + g.launch) + "|" + g.family + "|" + objs.sort().join(",");
    var f = byKey[key];
    if (!f) { f = byKey[key] = { members: [] }; out.push(f); }
    f.members.push({ g: g, process: l ? l.process : null });
  });
  var RV = D.rank_view, nproc = RV ? RV.n : D.processes.length;
  return out.map(function (f) {
    var best = f.members[0].g, costs = [], labels = [], bits = [];
    f.members.forEach(function (m) {
      if ((m.g.savingNs || 0) > (best.savingNs || 0) || ((m.g.savingNs || 0) === (best.savingNs || 0) && m.g.cost > best.cost)) best = m.g;
      if (RV) {
        var lo = 0, hi = 0;
        m.g.findings.forEach(function (x) { rankBits(x, bits); lo += isNum(x.cost_min) ? x.cost_min : x.cost || 0; hi += isNum(x.cost_max) ? x.cost_max : x.cost || 0; });
        costs.push(lo, hi);
        return;
      }
      costs.push(m.g.cost);
      var lab = rankLabel(m.process); if (labels.indexOf(lab) < 0) labels.push(lab);
    });
    var missing = null;
    if (RV) {
      labels = bitLabels(bits);
      var inv = []; for (var i = 0; i * 8 < nproc; i++) inv[i] = ~(bits[i] || 0) & 255;
      missing = bitLabels(inv);
    }
    best.ranks = { n: labels.length, of: nproc, labels: labels, missing: missing, costMin: Math.min.apply(null, costs), costMax: Math.max.apply(null, costs) };
    return best;
  });
}
function ranksText(r) {
  if (!r) return "";
  var spread = r.costMin === r.costMax ? fmtInt(r.costMin) : fmtInt(r.costMin) + "\u2013" + fmtInt(r.costMax);
  if (r.n === r.of) return "on all " + r.of + " ranks (cost " + spread + " per rank)";
  if (r.missing && 2 * r.n > r.of && rankListText(r.missing).length < rankListText(r.labels).length)
    return "on " + r.n + " of " + r.of + " ranks, all but " + rankListText(r.missing) + " (cost " + spread + " per rank)";
  return "on " + rankListText(r.labels) + " only" + (r.n > 1 ? " (cost " + spread + " per rank)" : "");
}

/* Findings grouped by (launch, cause), most costly first; across ranks, folded. */
function findingGroups() {
  var byKey = {}, groups = [];
  (D.findings || []).forEach(function (f) {
    if (f.kind === "coalesced" || !FAMILY[f.kind]) return;
    /* several ranks: one cause per object, so that folding across ranks compares like with like */
    var key = f.launch + "/" + FAMILY[f.kind] + (multiRank() ? "/" + (f.object_label || "") + "/" + (f.space || "") : ""), g = byKey[key];
    if (!g) { g = byKey[key] = { launch: f.launch, family: FAMILY[f.kind], findings: [], cost: 0, share: 0 }; groups.push(g); }
    g.findings.push(f);
    g.cost += isNum(f.cost) ? f.cost : 0;
    var s = findingShare(f); if (s != null) g.share += s;
  });
  groups.forEach(function (g) {
    g.findings.sort(function (a, b) { return (b.cost || 0) - (a.cost || 0); });
    g.top = g.findings[0];
    g.share = Math.min(1, g.share);
    var k = kernelOfLaunch(launchById(g.launch));
    g.kernelNs = k && isNum(k.total_ns) ? k.total_ns : null;
    g.savingNs = g.kernelNs != null ? g.share * g.kernelNs : null;
  });
  groups = foldRanks(groups);
  groups.sort(function (a, b) {
    if (a.savingNs != null && b.savingNs != null && a.savingNs !== b.savingNs) return b.savingNs - a.savingNs;
    return b.cost - a.cost;
  });
  return groups;
}

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

function groupItem(g, rank) {
  var f = g.top, l = launchById(g.launch), fam = g.family;
  var li = el("li", { cls: "fix", "data-launch": String(g.launch), "data-cost": String(g.cost) });
  var objs = [], kinds = [];
  g.findings.forEach(function (x) {
    var o = (x.object_label || "(unnamed object)") + (x.space ? " (" + x.space + ")" : "");
    if (objs.indexOf(o) < 0) objs.push(o);
    if (kinds.indexOf(FIND_TITLES[x.kind] || x.kind) < 0) kinds.push(FIND_TITLES[x.kind] || x.kind);
  });
  li.appendChild(el("div", { cls: "fix-head" }, [el("span", { cls: "rank", text: String(rank) }), el("span", { cls: "fix-title", text: FAMILY_TITLES[fam] }),
    " in ", el("span", { cls: "mono kname", text: l ? launchName(l) : "launch " + g.launch }), " \u00b7 " + objs.join(", ")]));
  var cost = el("div", { cls: "fix-cost" }, [el("span", { cls: "cost", text: fmtInt(g.cost) }), " " + COST_UNITS[fam]]);
  cost.appendChild(document.createTextNode(" \u00b7 est. saving "));
  cost.appendChild(el("b", { cls: "saving", text: g.share > 0 ? fmtPct(g.share) : "\u2014" }));
  cost.appendChild(document.createTextNode(" of the launch's memory transactions" + (g.savingNs != null ? ", \u2248 " + fmtNs(g.savingNs) + " of " + fmtNs(g.kernelNs) + " kernel time" : "")));
  if (kinds.length > 1) cost.appendChild(document.createTextNode(" \u00b7 seen as " + kinds.join(" + ")));
  li.appendChild(cost);
  if (g.ranks) {
    li.setAttribute("data-ranks", String(g.ranks.n));
    li.appendChild(el("div", { cls: "fix-ranks" + (g.ranks.n === g.ranks.of ? " every" : " some"), text: ranksText(g.ranks) }));
  }
  var w = whereText(f);
  if (w) li.appendChild(el("div", { cls: "fix-where mono", text: w }));
  var sn = snippetEl(f); if (sn) li.appendChild(sn);
  li.appendChild(el("div", { cls: "fix-fix" }, [el("b", { text: "Fix: " }), fixText(f.kind, g.findings.length > 1 && fam === "mapping" ? objs.map(function (o) { return o.replace(/ \([a-z]+\)$/, ""); }).join(", ") : f.object_label, f)]));
  var a = el("a", { href: "#", cls: "fix-open", text: "Show in heat map \u2192" });
  a.addEventListener("click", function (e) { e.preventDefault(); openFinding(f); });
  li.appendChild(a);
  return li;
}

function sectionFixFirst() {
  var sec = el("section", { id: "fix-first" });
  sec.appendChild(el("h2", { text: "What to fix first" }));
  if (META.complete !== "1") sec.appendChild(el("div", { cls: "warn", text: "This profile is incomplete: the run that wrote it was interrupted. What it holds is valid but not everything was stored." }));
  if (META.trace_complete === "0") sec.appendChild(el("div", { cls: "warn", text: "The trace was cut short: heat maps and launches are from its complete chunks only." }));
  var groups = findingGroups();
  if (!D.findings) { sec.appendChild(el("p", { cls: "muted", text: "Pattern detection did not run for this profile." })); return sec; }
  if (!groups.length) { sec.appendChild(el("p", { cls: "muted", text: "No problem found: every traced access pattern is coalesced or has no finding." })); return sec; }
  sec.appendChild(el("p", { cls: "muted", text: groups.length + " cause" + (groups.length === 1 ? "" : "s") + " in " + (D.findings || []).filter(function (f) { return f.kind !== "coalesced"; }).length +
    " findings, ranked by estimated saving (share of the launch's memory transactions the excess accounts for, \u00d7 kernel time where timed), then by cost." }));
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
  head.appendChild(document.createTextNode(" in " + (f.object_label || "(unnamed object)") + (f.space ? " (" + f.space + ")" : "")));
  if (isNum(f.stride)) head.appendChild(document.createTextNode(", stride " + f.stride + " B"));
  if (f.kind !== "coalesced" && isNum(f.cost)) {
    var s = findingShare(f);
    head.appendChild(document.createTextNode(" \u00b7 cost " + fmtInt(f.cost) + " " + COST_UNITS[FAMILY[f.kind]] + (s != null ? " (" + fmtPct(s) + ")" : "")));
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
  if (f.kind !== "coalesced") box.appendChild(el("div", { cls: "advice", text: "Fix: " + fixText(f.kind, f.object_label, f) }));
  if (f.kind !== "coalesced") {
    var a = el("a", { href: "#", text: "show in heat map" });
    a.addEventListener("click", function (e) { e.preventDefault(); openFinding(f); });
    box.appendChild(a);
  }
  return box;
}
