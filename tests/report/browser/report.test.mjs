// report.test.mjs -- the memheat HTML report and diff page in headless
// Chromium (Debian's chromium driven by playwright-core).
//
// Profiles: (1) the OpenCL pattern examples run under Oclgrind by
// `memheat run --backend oclgrind` (when the examples and oclgrind exist),
// (2) a synthetic trace + timing file of every CUTHERMO shape, (3) a profile
// whose names are built to break the page. For each: the page loads with no
// console errors, the kernel table has the expected rows, a heat-map row shows
// the expected temperatures (tooltip text and the canvas pixels), and a
// screenshot is written. Exit 0 = pass, 1 = fail, 77 = skipped.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let chromium;
try {
  ({ chromium } = await import("playwright-core"));
} catch (e) {
  console.error("playwright-core is not installed (npm ci in tests/report/browser): " + e.message);
  process.exit(1);
}

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
for (const k of ["memheat", "make-profile", "chromium", "out"]) {
  if (!args[k]) { console.error(`usage: report.test.mjs --memheat M --make-profile P --chromium C --out DIR [--ocl-examples EXE]`); process.exit(2); }
}
if (!fs.existsSync(args.chromium)) { console.log(`SKIP: no chromium at ${args.chromium}`); process.exit(77); }
const out = path.resolve(args.out);
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

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
    const reg = m.regions.findIndex((g) => g.label === label);
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
  const want = await page.evaluate(([t, m]) => window.memheatReport.colorOf(t, m), [temp, res.max]);
  check(res.colors[i] === want, `${what}: cell colour ${res.colors[i]} is the scale's colour for ${temp} (${want})`);
}

// ---- 1. OpenCL examples under Oclgrind ----
const oclExe = args["ocl-examples"];
if (oclExe && fs.existsSync(oclExe)) {
  let ok = true;
  try {
    run(args.memheat, ["run", "-q", "--backend", "oclgrind", "-o", "ocl", "--", oclExe, "--only", "pat", "--n", "16"]);
    run(args.memheat, ["report", "-q", "-f", "ocl.mhdb", "-o", "ocl.html"]);
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
    await p.page.evaluate(() => { const l = window.memheatReport.data.launches.find((x) => x.name === "patFalseSharing"); window.memheatReport.showLaunch(l.id); });
    await p.page.locator(".hm-scroll").first().scrollIntoViewIfNeeded();
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
    const heads = await p.page.$$eval("#mh-ranks .mh-ranks-kernels th", (e) => e.map((x) => x.textContent));
    check(heads[1] === "rank 0" && heads[2] === "rank 1", `ranks: kernel table columns in rank order ${JSON.stringify(heads)}`);
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
  check(bw.every((r) => r[4] === "32.0" && r[5] === "50.0" && r[6] === "memory"), "synth: bandwidth 32.0 GB/s, 50.0% of peak, memory-bound in every row");
  const r = await probeRow(p.page, "hot", "global", "hot", [0, 8]);
  check(!r.err && /words\s+8 8 8 8 8 8 8 8\n/.test(r.tip) && /sector\s+8 distinct warps/.test(r.tip), "synth: hot row: words 8, sector 8 -- " + (r.err || r.tip));
  if (!r.err) await expectColor(p.page, r, 0, 8, "synth hot word");
  const charts = await p.page.$$eval("#launches svg.chart polyline", (e) => e.length);
  check(charts >= 2, "synth: entropy and parallel-spatial-locality curves drawn");
  check(await p.page.$("#timeline-chart") !== null && await p.page.$("#overlap-chart") !== null, "synth: timeline and overlap figures drawn");
  const camp = await p.page.$$eval("#camping svg.chart polyline", (e) => e.length);
  const deg = await p.page.$eval("#camping .camp-degree", (e) => e.textContent).catch(() => "");
  check(camp === 3 && deg.startsWith("camping degree 0.11"), `synth: camping band chart (best, worst, kernel lines; ${deg})`);
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
  await finish(p, "report-hostile.png");
  await p.page.close();
}

// ---- 4. diff page ----
{
  let text = "";
  try { text = run(args.memheat, ["diff", "synth.mhdb", "hostile.mhdb", "--html", "diff.html"]); }
  catch (e) { check(false, "memheat diff: " + (e.stderr || e.message)); }
  check(/false_sharing/.test(text) && /disappeared/.test(text), "diff: terminal table lists kernels and disappeared findings");
  if (fs.existsSync(path.join(out, "diff.html"))) {
    const p = await openPage(path.join(out, "diff.html"), "diff");
    const rows = await p.page.$$eval("#diff-table tbody tr", (e) => e.length);
    check(rows === 10, "diff: one row per kernel of either profile (" + rows + ")");
    await finish(p, "diff.png");
    await p.page.close();
  }
}

await ctx.close();
fs.rmSync(userDir, { recursive: true, force: true });
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
