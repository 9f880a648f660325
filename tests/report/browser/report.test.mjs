// report.test.mjs -- the memheat HTML report and diff page in headless
// Chromium (Debian's chromium driven by playwright-core).
//
// Profiles: (1) the OpenCL pattern examples run under Oclgrind by
// `memheat run --backend oclgrind` (when the examples and oclgrind exist),
// (2) a synthetic trace + timing file of every CUTHERMO shape, (3) a profile
// whose names are built to break the page, (4) strided rows that fold into
// repeating patterns with a timing pass (idle gaps, a pageable-speed copy).
// For each: the page loads with no console errors, the kernel table has the
// expected rows, a heat-map row shows the expected temperatures (tooltip text
// and the canvas pixels), the page does not scroll sideways at 800 px, and a
// screenshot is written. The first screen (findings ranked by cost, one click
// to the highlighted heat-map row, the default launch), the shared colour
// scale, folding, the bank view and the timeline are checked against values
// computed here from the page's own data, and so is the view by call site. Exit 0 = pass, 1 = fail, 77 = skipped.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freshDir, loadChromium, parseArgs } from "./harness.mjs";

const chromium = await loadChromium();
const args = parseArgs(["memheat", "make-profile", "chromium", "out"], "report.test.mjs --memheat M --make-profile P --chromium C --out DIR [--ocl-examples EXE [--ocl-kernels DIR]]");
const out = freshDir(args.out);

const readText = (f) => fs.readFileSync(f, "utf8"); // (a block below names its result `fs`)
let failures = 0, checks = 0;
function check(cond, what) {
  checks++;
  if (!cond) { failures++; console.error("FAIL: " + what); } else console.log("ok   " + what);
}
function run(cmd, argv, opts = {}) {
  return execFileSync(cmd, argv, { cwd: out, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", ...opts });
}

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "memheat-chromium-"));
const ctx = await chromium.launchPersistentContext(userDir, {
  executablePath: args.chromium, headless: true, args: FLAGS, viewport: { width: 1400, height: 1000 },
});

async function openPage(file, label) {
  const page = await ctx.newPage();
  const errors = [];
  const requests = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
  await page.goto("file://" + file, { waitUntil: "load" });
  return { page, errors, requests, label };
}

async function finish(p, shot) {
  await p.page.screenshot({ path: path.join(out, shot), fullPage: false });
  check(fs.statSync(path.join(out, shot)).size > 10000, `${p.label}: screenshot ${shot} written`);
  check(p.errors.length === 0, `${p.label}: no console errors` + (p.errors.length ? ": " + p.errors.join(" | ") : ""));
  check(p.requests.length === 0, `${p.label}: no network requests` + (p.requests.length ? ": " + p.requests.join(" ") : ""));
}

// No sideways scrolling at 800 px (then back to 1400).
async function narrowCheck(p) {
  await p.page.mouse.move(0, 0); // a heat-map tooltip left from probeRow is not part of the layout
  await p.page.setViewportSize({ width: 800, height: 900 });
  const w = await p.page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(w[0] <= w[1], `${p.label}: no sideways scroll at 800 px (scrollWidth ${w[0]}, window ${w[1]})`);
  // nothing cut off at the right edge either (the page hides horizontal
  // overflow): what is wider than the window lies in a box that scrolls
  const cut = await p.page.evaluate(() => {
    const out = [];
    for (const e of document.querySelectorAll("body *")) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.right <= window.innerWidth + 0.5) continue;
      let a = e.parentElement, boxed = false;
      for (; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== "visible") { boxed = true; break; }
      if (!boxed) out.push(`${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""} to ${Math.round(r.right)} px`);
    }
    return out;
  });
  check(cut.length === 0, `${p.label}: nothing cut off at the right edge at 800 px ${cut.slice(0, 4).join(", ")}`);
  await p.page.screenshot({ path: path.join(out, `report-${p.label}-800.png`) });
  await p.page.setViewportSize({ width: 1400, height: 1000 });
}

// The first screen: "What to fix first" is the first section, its first cause
// is on screen, causes carry a cost and a saving and are ranked.
async function firstScreen(p, timed) {
  const fs = await p.page.evaluate(() => {
    const sec = document.querySelector("main > section");
    const items = [...document.querySelectorAll("#fix-list > li.fix")].map((li) => ({
      launch: +li.dataset.launch, cost: +li.dataset.cost, costText: li.querySelector(".cost").textContent,
      saving: li.querySelector(".saving").textContent, top: li.getBoundingClientRect().top,
      text: li.textContent }));
    return { first: sec && sec.id, items, groups: window.memheatReport.groups.map((g) => ({ launch: g.launch, cost: g.cost, savingNs: g.savingNs })),
      sel: +document.getElementById("launch-select").value, def: window.memheatReport.defaultLaunch };
  });
  check(fs.first === "fix-first", `${p.label}: the first section is "What to fix first" (${fs.first})`);
  check(fs.items.length > 0 && fs.items[0].top < 900, `${p.label}: the costliest cause is on the first screen (top ${fs.items.length ? fs.items[0].top : "-"})`);
  /* a saving in % where the run was timed (issue 40: from untraced times only; untimed: none, and a note says why) */
  check(fs.items.every((it) => /^[\d,]+$/.test(it.costText) && +it.costText.replace(/,/g, "") === Math.round(it.cost) &&
    (timed ? /%$/.test(it.saving) : it.saving === "\u2014")),
    `${p.label}: every cause shows its cost as a number and ${timed ? "a saving in %" : "no saving (not timed)"}`);
  const g = fs.groups;
  let ranked = true;
  for (let i = 1; i < g.length; i++) {
    if (timed && g[i - 1].savingNs != null && g[i].savingNs != null) { if (g[i - 1].savingNs < g[i].savingNs) ranked = false; }
    else if (!timed && g[i - 1].cost < g[i].cost) ranked = false;
  }
  check(ranked, `${p.label}: causes ranked by ${timed ? "estimated time saving" : "cost"}: ${JSON.stringify(g.map((x) => timed ? x.savingNs : x.cost))}`);
  return fs;
}

// Clicks "Show in heat map" of cause i: the launch opens with a highlighted row in view.
async function clickCause(p, i) {
  const li = p.page.locator("#fix-list > li.fix").nth(i);
  const launch = +(await li.getAttribute("data-launch"));
  await li.locator(".fix-open").click();
  return p.page.evaluate((launch) => {
    const R = window.memheatReport, sel = +document.getElementById("launch-select").value;
    const vs = Object.values(R.views).filter((v) => v.highlighted() >= 0);
    if (!vs.length) return { sel, launch, hl: -1 };
    const v = vs[0], ri = v.highlighted(), y = v.rowY(ri), b = v.canvas.getBoundingClientRect();
    return { sel, launch, hl: ri, label: v.rowLabel(ri), inView: y >= 0 && y + 18 <= b.height && b.top + y >= 0 && b.top + y < window.innerHeight };
  }, launch);
}

async function kernelNames(page) {
  return page.$$eval("#kernel-table tbody tr td:first-child", (tds) => tds.map((t) => t.textContent));
}

// Shows the launch whose name is `kernel`, finds the first heat-map row of
// the object `label` in `space`, hovers its word `col` and returns the
// tooltip text and the cell colours (pixel vs the page's own scale).
async function probeRow(page, kernel, space, label, cols) {
  const where = await page.evaluate(([kernel, space, label]) => {
    const R = window.memheatReport, D = R.data;
    const l = D.launches.find((x) => x.name === kernel);
    if (!l) return { err: "no launch " + kernel };
    R.showLaunch(l.id);
    const m = D.heat_maps.find((x) => x.launch === l.id && x.space === space);
    if (!m) return { err: "no " + space + " map" };
    const v = R.views[m.id];
    // the object the program calls `label`: a buffer so named, or a kernel
    // argument's view of that name ("arg 0: float* (in)", docs/metrics.md)
    const argName = (g) => { const o = (D.objects || []).find((x) => x.id === g.object); return o && o.arg ? o.arg.name : null; };
    const reg = m.regions.findIndex((g) => g.label === label || argName(g) === label);
    if (reg < 0) return { err: "no region " + label };
    const rows = v.h.rows;
    let ri = -1;
    for (let j = 0; j < rows.length; j++) if (rows[j] === -1 - (reg + 1)) { ri = j + 1; break; }
    v.scrollToRow(Math.max(0, ri - 2));
    const box = v.canvas.getBoundingClientRect();
    v.canvas.scrollIntoView({ block: "center" });
    return { mapId: m.id, ri, max: m.max_temp };
  }, [kernel, space, label]);
  if (where.err) return where;
  const res = { max: where.max, colors: [], expected: [] };
  for (const col of cols) {
    const pt = await page.evaluate(([id, ri, col]) => {
      const v = window.memheatReport.views[id];
      const b = v.canvas.getBoundingClientRect();
      const y = v.rowY(ri) + 9, x = v.cellX(col);
      const g = v.canvas.getContext("2d"), dpr = window.devicePixelRatio || 1;
      const px = g.getImageData(Math.round((x - 12) * dpr), Math.round((y - 6) * dpr), 1, 1).data;
      return { cx: b.left + x, cy: b.top + y, rgb: `rgb(${px[0]},${px[1]},${px[2]})` };
    }, [where.mapId, where.ri, col]);
    await page.mouse.move(pt.cx, pt.cy);
    res.tip = await page.$eval(".hm-tip", (t) => t.textContent);
    res.colors.push(pt.rgb);
  }
  return res;
}

async function expectColor(page, res, i, temp, what) {
  const want = await page.evaluate((t) => window.memheatReport.colorOf(t), temp);
  check(res.colors[i] === want, `${what}: cell colour ${res.colors[i]} is the scale's colour for ${temp} (${want})`);
}

// ---- 1. OpenCL examples under Oclgrind ----
const oclExe = args["ocl-examples"];
if (oclExe && fs.existsSync(oclExe)) {
  let ok = true;
  try {
    run(args.memheat, ["run", "-q", "--backend", "oclgrind", "-o", "ocl", "--", oclExe, "--only", "pat", "--n", "16"]);
    // --source: Oclgrind's input.cl is found as the examples' .cl file that defines the kernel
    run(args.memheat, ["report", "-q", "-f", "ocl.mhdb", "-o", "ocl.html", ...(args["ocl-kernels"] ? ["--source", args["ocl-kernels"]] : [])]);
  } catch (e) { ok = false; check(false, "OpenCL profile + report: " + (e.stderr || e.message)); }
  if (ok) {
    const p = await openPage(path.join(out, "ocl.html"), "opencl");
    const names = await kernelNames(p.page);
    const want = ["patCoalesced", "patFalseSharing", "patStrided", "patMisaligned", "patHot", "patSharedAbuse"];
    check(names.length === want.length && want.every((n) => names.includes(n)), `opencl: kernel table rows ${JSON.stringify(names)}`);
    // CUTHERMO Fig. 3(b): false sharing, 8 warps per sector, 1 per word.
    const r = await probeRow(p.page, "patFalseSharing", "global", "in", [0, 8]);
    check(!r.err, "opencl: false-sharing row found " + (r.err || ""));
    if (!r.err) {
      check(/words\s+1 1 1 1 1 1 1 1\n/.test(r.tip) && /sector\s+8 distinct warps/.test(r.tip), "opencl: patFalseSharing 'in' row: words 1, sector 8 -- tooltip:\n" + r.tip);
      await expectColor(p.page, r, 0, 1, "opencl false sharing word 0");
      await expectColor(p.page, r, 1, 8, "opencl false sharing sector");
    }
    // Strided: word 0 = 1, words 1-7 = 0, sector 1.
    const s = await probeRow(p.page, "patStrided", "global", "in", [0, 3]);
    check(!s.err && /words\s+1 0 0 0 0 0 0 0\n/.test(s.tip) && /sector\s+1 distinct warp\b/.test(s.tip), "opencl: patStrided 'in' row: words 1 0 0 0 0 0 0 0, sector 1 -- " + (s.err || s.tip));
    if (!s.err) await expectColor(p.page, s, 1, 0, "opencl strided word 3 (not accessed)");
    const findings = await p.page.$$eval(".finding .kind", (e) => e.map((x) => x.textContent));
    check(findings.length > 0, "opencl: findings shown for the strided launch: " + findings.join(", "));
    // first screen, ranking, default launch (no timing under Oclgrind: the costliest cause's)
    const fs = await firstScreen(p, false);
    check(fs.def === fs.groups[0].launch, `opencl: default launch is the costliest cause's (${fs.def} vs ${fs.groups[0].launch})`);
    const fixText = await p.page.$$eval(".fix-fix, .finding .advice", (e) => e.map((x) => x.textContent).join("\n"));
    check(/get_local_id|barrier\(CLK_LOCAL_MEM_FENCE\)|__local|sub-group/.test(fixText) && !/threadIdx|__syncthreads|__shfl_sync|cudaMallocPitch/.test(fixText),
      "opencl: advice in OpenCL terms, no CUDA names:\n" + fixText.slice(0, 400));
    // By your code (html.c's groups_site): every non-coalesced finding and every traced launch in some row,
    // the costliest row at the line of ocl_examples.c that enqueues the kernels
    const bc = await p.page.evaluate(() => {
      const D = window.memheatReport.data, rows = [...document.querySelectorAll("#by-code-table tr")].slice(1);
      return { rows: rows.map((r) => [...r.children].map((c) => c.textContent)), groups: (D.groups_site || []).length,
        findings: (D.findings || []).filter((f) => f.kind !== "coalesced").length, traced: (D.launches || []).length };
    });
    let exLine = 0;
    if (args["ocl-kernels"]) {
      try { exLine = readText(path.join(args["ocl-kernels"], "..", "ocl_examples.c")).split("\n").findIndex((l) => l.includes("clEnqueueNDRangeKernel(x->q")) + 1; } catch (e) { exLine = 0; }
    }
    const sum = (col) => bc.rows.reduce((a, r) => a + Number(r[col].replace(/,/g, "")), 0);
    check(bc.rows.length >= 1 && bc.rows.length === bc.groups && sum(2) === bc.findings && sum(5) === bc.traced &&
      (!args["ocl-kernels"] || (exLine > 0 && bc.rows[0][1].startsWith("ocl_examples.c:" + exLine + " "))),
      `opencl: by your code: ${bc.rows.length} rows, findings ${sum(2)} of ${bc.findings}, traced ${sum(5)} of ${bc.traced}, first ${JSON.stringify(bc.rows[0])} (enqueue at line ${exLine})`);
    if (args["ocl-kernels"]) {
      // the first cause's source: patterns.cl's lines, the marked one equal to the file's line
      const src = await p.page.evaluate(() => { const li = document.querySelector("#fix-list > li.fix"), at = li.querySelector("pre.snippet .at");
        return { where: li.querySelector(".fix-where").textContent, at: at && at.textContent }; });
      const m = /^(\S+patterns\.cl):(\d+) \(the profile says input\.cl:\2, Oclgrind's name/.exec(src.where);
      const want = m ? readText(m[1]).split("\n")[+m[2] - 1] : null;
      check(m && src.at && src.at.trim().endsWith(want.trim()) && want.trim().length > 0,
        "opencl: --source shows input.cl's lines from patterns.cl: " + JSON.stringify(src));
    }
    const c0 = await clickCause(p, 0);
    check(c0.sel === c0.launch && c0.hl >= 0 && c0.inView, `opencl: one click opens launch ${c0.launch} at a highlighted row in view: ${JSON.stringify(c0)}`);
    // absolute colour scale: the largest temperature of any map; a coalesced map is pale
    const sc = await p.page.evaluate(() => {
      const R = window.memheatReport, D = R.data;
      const l = D.launches.find((x) => x.name === "patCoalesced"); R.showLaunch(l.id);
      const m = D.heat_maps.find((x) => x.launch === l.id && x.space === "global");
      const legend = document.querySelector(".hm-sampled").textContent;
      return { max: R.scaleMax, want: Math.max(...D.heat_maps.map((x) => x.max_temp)), mapMax: m.max_temp, c1: R.colorOf(1), legend,
        sampled: l.warps_per_block * l.n_sampled };
    });
    const rgb = sc.c1.match(/\d+/g).map(Number);
    check(sc.max === sc.want && sc.mapMax === 1 && rgb[0] + rgb[1] + rgb[2] > 600, `opencl: one scale 1..${sc.max} for every map; the coalesced map's 1 warp is pale ${sc.c1}`);
    check(sc.legend.includes(sc.sampled + " warps sampled") && sc.legend.includes("at most " + sc.sampled), "opencl: legend says how many warps were sampled: " + sc.legend);
    const cz = await probeRow(p.page, "patCoalesced", "global", "in", [8]);
    if (!cz.err) await expectColor(p.page, cz, 0, 1, "opencl coalesced sector (absolute scale)");
    // bank view of the shared map; the bank table leaves degree-1 instructions out
    const bank = await p.page.evaluate(() => {
      const R = window.memheatReport, l = R.data.launches.find((x) => x.name === "patSharedAbuse"); R.showLaunch(l.id);
      const c = document.querySelector(".bank-canvas"), bc = R.data.bank_conflicts.filter((b) => b.launch === l.id);
      return { words: c ? c.getAttribute("data-words").split(" ").map(Number) : null, table: !!document.getElementById("bank-table"),
        n1: bc.filter((b) => b.max_degree <= 1).length, nx: bc.filter((b) => b.max_degree > 1).length,
        note: [...document.querySelectorAll("#launch-body p.muted")].map((x) => x.textContent).join(" | ") };
    });
    check(bank.words && bank.words.length === 32 && bank.words.reduce((a, b) => a + b, 0) > 0, "opencl: bank view of the shared map, words per bank " + JSON.stringify(bank.words));
    check(bank.table === (bank.nx > 0) && (bank.n1 === 0 || bank.note.includes(bank.n1 + " shared-memory instruction")), `opencl: bank table without degree-1 rows (${bank.nx} listed, ${bank.n1} conflict free: ${bank.note})`);
    await p.page.evaluate(() => { const l = window.memheatReport.data.launches.find((x) => x.name === "patFalseSharing"); window.memheatReport.showLaunch(l.id); });
    await p.page.locator(".hm-scroll").first().scrollIntoViewIfNeeded();
    await narrowCheck(p);
    await finish(p, "report-opencl.png");
    await p.page.close();
  }
  // Two OpenCL processes at once (issue 14): the view by rank. RANK=0 and
  // RANK=1 name them; the kernel row has both ranks and the findings of the
  // same kernel on both are folded into "the same on every rank".
  let okMp = true;
  try {
    run(args.memheat, ["run", "-q", "--backend", "oclgrind", "-o", "mp", "--", "sh", "-c",
      'RANK=0 "$0" --only pat --n 16 & RANK=1 "$0" --only pat --n 16 & wait', oclExe]);
    run(args.memheat, ["report", "-q", "-f", "mp.mhdb", "-o", "mp.html"]);
  } catch (e) { okMp = false; check(false, "two-process profile + report: " + (e.stderr || e.message)); }
  if (okMp) {
    const p = await openPage(path.join(out, "mp.html"), "ranks");
    const ranks = await p.page.$$eval("#mh-ranks .mh-ranks-summary tbody tr td:first-child", (e) => e.map((x) => x.textContent));
    check(ranks.slice().sort().join() === "rank 0,rank 1", `ranks: one summary row per rank ${JSON.stringify(ranks)}`);
    const krows = await p.page.$$eval("#mh-ranks .mh-ranks-kernels tbody tr", (e) => e.length);
    check(krows === 6, `ranks: one row per pattern kernel (${krows})`);
    const every = await p.page.$$eval("#mh-ranks .mh-every", (e) => e.length);
    const some = await p.page.$$eval("#mh-ranks .mh-some", (e) => e.length);
    check(every > 0 && some === 0, `ranks: identical findings folded (${every} on every rank, ${some} on some)`);
    check(await p.page.isVisible("#mh-ranks"), "ranks: the section is visible");
    await p.page.locator("#mh-ranks").scrollIntoViewIfNeeded();
    await finish(p, "report-ranks.png");
    await p.page.close();
  }
} else {
  console.log("note: OpenCL examples not built (--ocl-examples missing); the OpenCL part is not run");
}

// ---- 2. synthetic shapes + timing ----
run(args["make-profile"], ["synth", "synth.mhdb"]);
run(args.memheat, ["report", "-q", "-f", "synth.mhdb", "-o", "synth.html"]);
{
  const p = await openPage(path.join(out, "synth.html"), "synth");
  const names = await kernelNames(p.page);
  const shapes = ["coalesced", "false_sharing", "strided", "misaligned", "hot", "random_hot", "shared_private", "shared_warp", "shared_tile"];
  check(names.length === shapes.length && shapes.every((n) => names.includes(n)), `synth: kernel table rows ${JSON.stringify(names)}`);
  // default sort: total time, largest first (make_profile: kernel i takes (i+1)*10 us)
  check(names[0] === "shared_tile" && names[names.length - 1] === "coalesced", "synth: sorted by total time, largest first");
  await p.page.click("#kernel-table th[data-key=total]");
  const asc = await kernelNames(p.page);
  check(asc[0] === "coalesced" && asc[asc.length - 1] === "shared_tile", "synth: header click sorts ascending");
  await p.page.click("#kernel-table th[data-key=name]");
  const byName = await kernelNames(p.page);
  check(JSON.stringify(byName) === JSON.stringify([...shapes].sort((a, b) => a.localeCompare(b))), "synth: sort by name");
  const bw = await p.page.$$eval("#kernel-table tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  // one block on 4 SMs at half the bandwidth roof: the grid, not memory, limits them (docs/timing.md "Verdicts")
  check(bw.every((r) => r[4] === "32.0" && r[5] === "50.0" && r[6] === "small-grid"), "synth: bandwidth 32.0 GB/s, 50.0% of peak, small-grid in every row");
  const tips = await p.page.$$eval("#kernel-table tbody td.bound-small-grid", (tds) => tds.map((td) => td.title));
  check(tips.length === shapes.length && tips.every((t) => t.includes("grid too small to fill the GPU") && t.includes("waves 0.03 (1 blocks, 8 per SM fit)") && t.includes("bandwidth roof 50.0%")), "synth: the verdict's tooltip gives its figures " + JSON.stringify(tips[0]));
  const def = await p.page.evaluate(() => { const R = window.memheatReport; return R.data.launches.find((l) => l.id === R.defaultLaunch).name; });
  check(def === "shared_tile", "synth: the slowest kernel's launch is open by default (" + def + ")");
  await firstScreen(p, true);
  await p.page.click("#kernel-table tbody tr[data-launch] >> text=misaligned");
  const opened = await p.page.evaluate(() => { const id = +document.getElementById("launch-select").value; return window.memheatReport.data.launches.find((l) => l.id === id).name; });
  check(opened === "misaligned", "synth: a kernel row opens its launch (" + opened + ")");
  const idle = await p.page.evaluate(() => {
    const D = window.memheatReport.data, iv = [...D.kernel_runs, ...D.copies].map((x) => [x.start_ns, x.start_ns + x.dur_ns]).sort((a, b) => a[0] - b[0]);
    let busy = 0, s = -1, e = -1, end = 0;
    for (const [a, b] of iv) { end = Math.max(end, b); if (a > e) { busy += e - s; s = a; e = b; } else e = Math.max(e, b); }
    busy += e - s;
    return { want: (1 - busy / end) * 100, text: document.getElementById("idle-share").textContent };
  });
  const shown = parseFloat((/GPU idle ([\d.]+)%/.exec(idle.text) || [])[1]);
  check(Math.abs(shown - idle.want) < (idle.want < 10 ? 0.06 : 0.6), `synth: GPU idle share ${shown}% = ${idle.want.toFixed(2)}% computed from the activities (${idle.text})`);
  const r = await probeRow(p.page, "hot", "global", "hot", [0, 8]);
  check(!r.err && /words\s+8 8 8 8 8 8 8 8\n/.test(r.tip) && /sector\s+8 distinct warps/.test(r.tip), "synth: hot row: words 8, sector 8 -- " + (r.err || r.tip));
  if (!r.err) await expectColor(p.page, r, 0, 8, "synth hot word");
  const charts = await p.page.$$eval("#launches svg.chart polyline", (e) => e.length);
  check(charts >= 2, "synth: entropy and parallel-spatial-locality curves drawn");
  check(await p.page.$("#timeline-chart") !== null && await p.page.$("#overlap-chart") !== null, "synth: timeline and overlap figures drawn");
  const camp = await p.page.$$eval("#camping svg.chart polyline", (e) => e.length);
  const deg = await p.page.$eval("#camping .camp-degree", (e) => e.textContent).catch(() => "");
  check(camp === 3 && deg.startsWith("camping degree 0.11"), `synth: camping band chart (best, worst, kernel lines; ${deg})`);
  await narrowCheck(p);
  await finish(p, "report-synth.png");
  await p.page.locator("#timeline").scrollIntoViewIfNeeded();
  await p.page.screenshot({ path: path.join(out, "report-synth-timeline.png") });
  await p.page.locator("#camping").scrollIntoViewIfNeeded();
  await p.page.screenshot({ path: path.join(out, "report-synth-camping.png") });
  await p.page.close();
}

// ---- 3. hostile names ----
run(args["make-profile"], ["hostile", "hostile.mhdb"]);
run(args.memheat, ["report", "-q", "-f", "hostile.mhdb", "-o", "hostile.html"]);
{
  const p = await openPage(path.join(out, "hostile.html"), "hostile");
  const pwned = await p.page.evaluate(() => window.__pwned);
  check(pwned === undefined, "hostile: no injected script ran");
  check(await p.page.$("img") === null, "hostile: no injected element");
  const names = await kernelNames(p.page);
  check(names.length === 1 && names[0] === "</script><script>window.__pwned=1</script>", "hostile: kernel name shown as text: " + JSON.stringify(names));
  const r = await probeRow(p.page, "</script><script>window.__pwned=1</script>", "global", "<img src=x onerror=\"window.__pwned=2\">", [0, 8]);
  check(!r.err && /words\s+1 1 1 1 1 1 1 1\n/.test(r.tip) && /sector\s+8 distinct warps/.test(r.tip), "hostile: first row words 1, sector 8 -- " + (r.err || r.tip));
  check(!r.err && r.tip.includes("<img src=x onerror=\"window.__pwned=2\">"), "hostile: object label shown verbatim in the tooltip");
  const folded = await p.page.evaluate(() => { const h = Object.values(window.memheatReport.views)[0].h; return Array.from(h.meta.filter((_, i) => i % 4 === 2)); });
  check(JSON.stringify(folded) === "[1,3,1]", "hostile: three identical sectors folded into one row x3: " + JSON.stringify(folded));
  await narrowCheck(p);
  await finish(p, "report-hostile.png");
  await p.page.close();
}

// ---- 4. periodic rows, timeline ----
run(args["make-profile"], ["periodic", "periodic.mhdb"]);
// the source file the profile names for pc 0x100 (line 3), relative to where the report is written
fs.writeFileSync(path.join(out, "periodic_src.cu"), "__global__ void periodic(float *a) {\n  int i = threadIdx.x;\n  float v = a[4 * 8 * i]; // strided\n  use(v);\n}\n");
run(args.memheat, ["report", "-q", "-f", "periodic.mhdb", "-o", "periodic.html"]);
{
  const p = await openPage(path.join(out, "periodic.html"), "periodic");
  // make_profile: "a" = 1 row x 128 every 4 sectors, "b" = 2 rows x 32 every 16 sectors
  const f = await p.page.evaluate(() => {
    const R = window.memheatReport, m = R.data.heat_maps[0], v = R.views[m.id];
    return { runs: m.runs, rows: v.h.rows.length, labels: [...v.h.rows].map((_, i) => v.rowLabel(i)) };
  });
  check(f.runs === 192 && f.rows === 7, `periodic: 192 runs shown as 7 rows (2 objects, 3 pattern rows, 2 folds): ${f.rows}`);
  check(f.labels.some((t) => /row above repeats every 128 B \(4 sectors\) 127 more times/.test(t)) &&
    f.labels.some((t) => /2 rows above repeat every 512 B \(16 sectors\) 31 more times/.test(t)), "periodic: fold rows say what repeats: " + JSON.stringify(f.labels.slice(0, 8)));
  check(f.labels.includes("+0x0 [0]") && f.labels.includes("+0x100 [64]"), "periodic: rows show offsets [element] in the object");
  const hint = await p.page.$eval("#launch-body", (e) => e.textContent);
  check(/pc 0x200: no file:line \(build with nvcc -lineinfo/.test(hint), "periodic: a pc without file:line gets the -lineinfo hint");
  const snip = await p.page.$$eval("#fix-first pre.snippet", (e) => e.map((x) => [x.textContent, x.querySelector(".at") && x.querySelector(".at").textContent]));
  check(snip.length === 1 && /^\s+2 .*\n\s+3 .*a\[4 \* 8 \* i\].*\n\s+4 /.test(snip[0][0]) && /^\s+3 /.test(snip[0][1] || ""),
    "periodic: the cause shows lines 2-4 of periodic_src.cu, line 3 marked: " + JSON.stringify(snip));
  // b's example sector is 0x1008 (i = 1): the row "+0x100 [64]"
  const cb = await p.page.evaluate(() => {
    const R = window.memheatReport, fb = R.data.findings.find((x) => x.object_label === "b");
    R.openFinding(fb);
    const v = Object.values(R.views)[0]; return { tag: fb.example_tag, label: v.rowLabel(v.highlighted()) };
  });
  check(cb.tag === "0x1008" && cb.label === "+0x100 [64]", "periodic: the finding opens at the row of its example sector: " + JSON.stringify(cb));
  /* one fix per (kernel, cause, object) (issue 40): a and b are two, of one cause, beside the run's other causes */
  const causes = await p.page.$$eval("#fix-list > li.fix", (e) => e.map((x) => ({ cause: x.dataset.cause, text: x.textContent })));
  const unc = causes.filter((c) => c.cause === "uncoalesced");
  check(unc.length === 2 && unc.some((c) => / a \(global\)/.test(c.text)) && unc.some((c) => / b \(global\)/.test(c.text)) &&
    unc.every((c) => /Uncoalesced access/.test(c.text)),
    "periodic: strided 'a' and false-sharing 'b' are one cause, a fix per object: " + JSON.stringify(causes.map((c) => c.cause)));
  // a click on b's fold row shows its 62 rows
  const ex = await p.page.evaluate(() => {
    const v = Object.values(window.memheatReport.views)[0], rows = [...v.h.rows];
    const ri = rows.lastIndexOf(Math.min(...rows));
    v.scrollToRow(ri);
    const b = v.canvas.getBoundingClientRect();
    return { x: b.left + 40, y: b.top + v.rowY(ri) + 9 };
  });
  await p.page.mouse.click(ex.x, ex.y);
  const ex2 = await p.page.evaluate(() => { const v = Object.values(window.memheatReport.views)[0]; return { n: v.h.rows.length, last: v.rowLabel(v.h.rows.length - 1) }; });
  check(ex2.n === 7 - 1 + 62 && ex2.last === "+0x3f00 [4032]", "periodic: clicking a fold row shows the rows it folds: " + JSON.stringify(ex2));
  const hot = await p.page.$$eval(".hm-hottest li", (e) => e.map((x) => x.textContent));
  check(hot.length === 3 && /b: 2 warps$/.test(hot[0]), "periodic: hottest sectors listed, hottest first: " + JSON.stringify(hot));
  // timeline: labels, copy bandwidth, pageable copy, zoom
  const tl = await p.page.evaluate(() => ({ labels: [...document.querySelectorAll("#timeline-chart .tl-label")].map((x) => x.textContent),
    warn: !!document.getElementById("pageable-warn"), rows: [...document.querySelectorAll("#copy-table tr")].map((r) => r.textContent),
    range: document.getElementById("timeline-chart").getAttribute("data-range") }));
  check(tl.labels.some((t) => /DtoH 4\.0 MiB 2\.50 GB\/s/.test(t)), "periodic: copies labelled with their bandwidth: " + JSON.stringify(tl.labels));
  check(tl.warn && tl.rows.some((r) => /DtoH \(pageable speed\)/.test(r) && /2\.50/.test(r)), "periodic: the 2.5 GB/s copy is flagged as pageable speed");
  await p.page.click("#timeline .tl-controls button >> text=zoom in");
  const r2 = await p.page.$eval("#timeline-chart", (e) => e.getAttribute("data-range"));
  const [a0, a1] = tl.range.split(" ").map(Number), [b0, b1] = r2.split(" ").map(Number);
  check(Math.abs((b1 - b0) - (a1 - a0) / 2) < 1, `periodic: zoom in halves the time range (${tl.range} -> ${r2})`);
  const kl = await p.page.evaluate(() => { window.memheatReport.timelineZoom(50000, 110000); return [...document.querySelectorAll("#timeline-chart .tl-label")].map((x) => x.textContent); });
  check(kl.some((t) => t.startsWith("periodic")), "periodic: kernels labelled with their name when zoomed in: " + JSON.stringify(kl));
  await narrowCheck(p);
  await finish(p, "report-periodic.png");
  await p.page.close();
}

// ---- 4b. three ranks (make_profile ranks): findings folded across ranks,
// identical heat maps shown once, a rank selector where they differ, and the
// diff by rank against the same job with rank 1 three times faster ----
{
  let ok = true;
  try {
    run(args["make-profile"], ["ranks", path.join(out, "ranks.mhdb")]);
    run(args.memheat, ["report", "-q", "-f", "ranks.mhdb", "-o", "ranks.html"]);
  } catch (e) { ok = false; check(false, "ranks profile + report: " + (e.stderr || e.message)); }
  if (ok) {
    const p = await openPage(path.join(out, "ranks.html"), "ranks3");
    await p.page.waitForSelector("body[data-ready='1']");
    const fx = await p.page.$$eval("#fix-list > li.fix", (e) => e.map((li) => ({ text: li.textContent, ranks: li.querySelector(".fix-ranks") ? li.querySelector(".fix-ranks").textContent : "" })));
    const onA = fx.filter((x) => /scale/.test(x.text) && /\ba \(global\)/.test(x.text));
    const onC = fx.filter((x) => /gather/.test(x.text) && /\bc \(global\)/.test(x.text));
    check(onA.length === 1 && /^on all 3 ranks \(cost [\d,]+ per rank\)$/.test(onA[0].ranks), "ranks3: the finding on every rank is one cause, 'on all 3 ranks': " + JSON.stringify(onA.map((x) => x.ranks)));
    check(onC.length === 1 && onC[0].ranks === "on rank 1 only", "ranks3: the finding of rank 1 alone names its rank: " + JSON.stringify(onC.map((x) => x.ranks)));
    const onB = fx.filter((x) => /gather/.test(x.text) && /\bb \(global\)/.test(x.text));
    check(onB.length === 1 && /^on all 3 ranks/.test(onB[0].ranks) && !/\bc \(global\)/.test(onB[0].text), "ranks3: b on every rank is one cause of its own, beside rank 1's c: " + JSON.stringify(onB.map((x) => x.ranks)));
    const krows = await p.page.$$eval("#kernel-table tbody tr td:first-child", (e) => e.map((x) => x.textContent));
    const kref = await p.page.$eval("#kernels-rank", (e) => e.textContent).catch(() => "");
    check(krows.length === 2 && krows.indexOf("scale") >= 0 && /rank 0, the reference rank/.test(kref), "ranks3: kernel table, the reference rank's kernels: " + JSON.stringify(krows) + " " + kref);
    const opts = await p.page.$$eval("#launch-select option", (e) => e.map((o) => o.textContent));
    check(opts.length === 2 && /scale.*identical on ranks 0-2/.test(opts.join("|")) && /gather.*differs by rank/.test(opts.join("|")), "ranks3: one launch entry per launch across ranks: " + JSON.stringify(opts));
    const scale = await p.page.evaluate(() => {
      const D = window.memheatReport.data, l = D.launches.find((x) => x.name === "scale");
      window.memheatReport.showLaunch(l.id);
      return { note: document.getElementById("rank-note").textContent, sel: getComputedStyle(document.getElementById("rank-select")).display, maps: document.querySelectorAll("#launch-body .hm-wrap").length };
    });
    check(/identical on ranks 0-2/.test(scale.note) && scale.sel === "none" && scale.maps === 1, "ranks3: scale's heat map shown once, 'identical on ranks 0-2' " + JSON.stringify(scale));
    const gather = await p.page.evaluate(() => {
      const D = window.memheatReport.data, l = D.launches.find((x) => x.name === "gather");
      window.memheatReport.showLaunch(l.id);
      const rs = document.getElementById("rank-select");
      return { opts: [...rs.options].map((o) => o.textContent), shown: getComputedStyle(rs).display };
    });
    check(gather.shown !== "none" && gather.opts.join(",") === "ranks 0, 2 (2 ranks),rank 1", "ranks3: gather differs by rank: a selector of its two contents " + JSON.stringify(gather));
    const r1 = await p.page.evaluate(() => {
      const rs = document.getElementById("rank-select");
      rs.value = rs.options[1].value; rs.dispatchEvent(new Event("change"));
      const D = window.memheatReport.data, id = +rs.value, m = D.heat_maps.filter((x) => x.launch === id)[0];
      return { kv: document.querySelector("#launch-body dl.kv").textContent, regions: (m.regions || []).map((g) => g.label), launchSel: document.getElementById("launch-select").value, first: D.launches.find((x) => x.name === "gather").id };
    });
    check(/Processrank 1/.test(r1.kv) && r1.regions.indexOf("c") >= 0 && +r1.launchSel === r1.first, "ranks3: the selector opens rank 1's launch, with its object c " + JSON.stringify(r1.regions));
    await finish(p, "report-ranks3.png");
    await p.page.close();
    // diff by rank: B = A with rank 1 as fast as the others
    let text = "";
    try {
      fs.copyFileSync(path.join(out, "ranks.mhdb"), path.join(out, "ranks_b.mhdb"));
      run("python3", ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('UPDATE kernel SET total_ns = total_ns / 3 WHERE process = (SELECT id FROM process WHERE rank = 1)'); c.commit()", "ranks_b.mhdb"]);
      text = run(args.memheat, ["diff", "ranks.mhdb", "ranks_b.mhdb", "--html", "diff-ranks.html"]);
    } catch (e) { check(false, "ranks diff: " + (e.stderr || e.message)); }
    check(/by rank \(A: 3 processes, B: 3/.test(text) && /slowest\/median\s+3\.00x \(rank 1\)\s+1\.00x/.test(text), "ranks3: diff by rank in the terminal: imbalance 3.00x -> 1.00x");
    if (fs.existsSync(path.join(out, "diff-ranks.html"))) {
      const d = await openPage(path.join(out, "diff-ranks.html"), "diff-ranks");
      const rows = await d.page.$$eval("#diff-ranks tbody tr", (e) => e.map((r) => [...r.children].map((c) => c.textContent)));
      const imb = rows.filter((r) => r[1] === "slowest / median");
      check(rows.length === 8 && imb.length === 2 && imb.every((r) => r[2] === "3.00x (rank 1)" && /^1\.00x/.test(r[3])), "ranks3: diff page, 3 ranks + imbalance per kernel: " + JSON.stringify(imb));
      check(rows.some((r) => r[1] === "rank 1" && r[4] === "-66.7%"), "ranks3: diff page, rank 1 -66.7%");
      await narrowCheck(d);
      await finish(d, "diff-ranks.png");
      await d.page.close();
    }
  }
}

// ---- 4c. a PyTorch-like profile at 800 px (issue 40): the synthetic profile
// with three kernels renamed to real CUTLASS/ATen names and an object named by
// a by-value struct field. At 800 px the kernel table fits its box (no
// sideways scroll inside it either), a kernel name wraps at most over a few
// lines (never one character a line), the launch selector lies within the
// page, object labels are shortened, the timeline's tooltips name kernels
// demangled, and the first screen shows the fixes C ranked, each saving
// with its model in the hover, the SGEMM's in PyTorch's terms. ----
{
  const EW = "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE8_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_";
  const CT = "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE";
  const RD = "_ZN2at6native13reduce_kernelILi128ELi4ENS0_8ReduceOpIfNS0_7MeanOpsIfffEEjfLi4EEEEEvT1_";
  const field = "arg 1: at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#10}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1} (field +112)";
  run(args["make-profile"], ["synth", "torch.mhdb"]);
  const sql = [["strided", EW], ["false_sharing", CT], ["hot", RD]].map(([o, n]) =>
    `UPDATE kernel SET name='${n}' WHERE name='${o}'; UPDATE kernel_run SET name='${n}' WHERE name='${o}'; ` +
    `UPDATE launch SET name='${n}', display_name='${n}' WHERE name='${o}';`).join(" ") +
    ` UPDATE finding SET object_label='${field}' WHERE kind='strided'; UPDATE heat_region SET label='${field}' WHERE label='strided';`;
  let ok = true;
  try { run("sqlite3", ["torch.mhdb", sql]); } catch (e) { ok = false; check(false, "torch: sqlite3 renames the kernels: " + (e.stderr || e.message)); }
  if (ok) {
    run(args.memheat, ["report", "-q", "-f", "torch.mhdb", "-o", "torch.html"]);
    const p = await openPage(path.join(out, "torch.html"), "torch");
    await p.page.setViewportSize({ width: 800, height: 900 });
    const m = await p.page.evaluate(() => {
      const t = document.getElementById("kernel-table"), box = t.parentElement;
      const names = [...t.querySelectorAll("tbody tr td:first-child")].map((td) => {
        const r = td.getBoundingClientRect(), lh = parseFloat(getComputedStyle(td).lineHeight) || 18;
        return { text: td.textContent, width: r.width, lines: Math.round((r.height - 8) / lh) };
      });
      const sel = document.getElementById("launch-select").getBoundingClientRect();
      const fixes = [...document.querySelectorAll("#fix-list > li.fix")].filter((li) => li.querySelector(".saving-ns")).map((li) => ({ text: li.textContent, hover: (li.querySelector(".saving") || {}).title || "" }));
      const tl = [...document.querySelectorAll("svg.timeline title")].map((x) => x.textContent);
      return { tw: t.scrollWidth, bw: box.clientWidth, names, selRight: sel.right, selWidth: sel.width, win: window.innerWidth, fixes, tl,
        labels: [...document.querySelectorAll(".finding, #fix-list li")].map((e) => e.textContent).join("\n") };
    });
    check(m.tw <= m.bw + 1, `torch: the kernel table fits its box at 800 px (${m.tw} px in ${m.bw} px)`);
    const worst = m.names.reduce((a, n) => (n.lines > a.lines ? n : a), { lines: 0 });
    check(m.names.length >= 9 && worst.lines <= 4 && m.names.every((n) => n.width >= 120),
      `torch: kernel names wrap over at most 4 lines and keep 120 px (worst ${worst.lines} lines: ${worst.text})`);
    check(m.names.some((n) => n.text === "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>") &&
      m.names.some((n) => n.text === "at::native::elementwise_kernel<128, 2, \u2026>"), "torch: kernel names as ncu prints them");
    check(m.selRight <= m.win && m.selWidth <= m.win, `torch: the launch selector lies within the page (right ${Math.round(m.selRight)} of ${m.win})`);
    check(!m.labels.includes("(field +112)") || /arg 1: at::native::gpu_kernel_impl_nocast<\u2026>\S* \(field \+112\)/.test(m.labels),
      "torch: a by-value struct field's label is shortened");
    check(!m.labels.includes("{lambda(float)#1}>(at::TensorIteratorBase&"), "torch: no label repeats the whole functor type");
    check(m.tl.length > 0 && m.tl.some((x) => x.startsWith("cutlass::Kernel2<")) && !m.tl.some((x) => x.startsWith("_ZN")),
      "torch: timeline tooltips name kernels demangled: " + m.tl.slice(0, 2).join(" | "));
    check(m.fixes.length > 0 && m.fixes.filter((f) => /saving/.test(f.text)).every((f) => /pipes of the launch|blocks for|copies of|runs of|warps resident|measured by bench\/advice/.test(f.hover)),
      "torch: every estimated saving carries its model in the hover");
    check(m.fixes.some((f) => /FP32 GEMM on the CUDA cores/.test(f.text) && /allow_tf32/.test(f.text) && /measured by bench\/advice \(gemm_tf32/.test(f.hover)),
      "torch: the CUTLASS SGEMM of a PyTorch program is told, in PyTorch's terms, to use TF32");
    await narrowCheck(p);
    await finish(p, "torch-800.png");
    await p.page.close();
  }
}

// ---- 5. diff page ----
{
  let text = "";
  try { text = run(args.memheat, ["diff", "synth.mhdb", "hostile.mhdb", "--html", "diff.html"]); }
  catch (e) { check(false, "memheat diff: " + (e.stderr || e.message)); }
  check(/false_sharing/.test(text) && /disappeared/.test(text), "diff: terminal table lists kernels and disappeared findings");
  if (fs.existsSync(path.join(out, "diff.html"))) {
    const p = await openPage(path.join(out, "diff.html"), "diff");
    const rows = await p.page.$$eval("#diff-table tbody tr", (e) => e.length);
    check(rows === 10, "diff: one row per kernel of either profile (" + rows + ")");
    await narrowCheck(p);
    await finish(p, "diff.png");
    await p.page.close();
  }
}

await ctx.close();
fs.rmSync(userDir, { recursive: true, force: true });
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
