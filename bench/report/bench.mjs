// bench.mjs -- how fast the HTML report shows a 10^6-sector heat map in
// headless Chromium. Not a test: it prints figures for bench/report/README.md.
//
//   node bench.mjs --memheat M --make-profile P --chromium C --out DIR [--sectors N] [--runs R]
//
// Builds a profile with one launch of N distinct sectors (no two neighbours
// equal, so nothing folds: the worst case), writes its report, then loads the
// page R times in a fresh tab and reports the median of:
//   load      navigation start -> page built and first heat-map frame drawn
//             (HTML parse, JSON parse, base64 decode, first canvas draw)
//   painted   ... -> two animation frames later (the frame is on screen)
//   scroll    one redraw after jumping to the middle of the map
//   hover     one tooltip lookup
//   script    Chromium's own ScriptDuration of the load (CDP Performance.getMetrics:
//             main-thread time in JS, the DevTools "Scripting" figure), and
//   task      its TaskDuration (all main-thread work: HTML parsing, script, layout, paint)
// with the 1-minute load average at the start of each load (the wall-clock
// figures stretch with the machine's load, the main-thread times much less).
// --cpuprofile FILE also writes a V8 CPU profile of the first load (open it in
// DevTools' Performance panel) and prints the functions with most self time.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let chromium;
try { ({ chromium } = require("playwright-core")); }
catch { ({ chromium } = await import("playwright-core")); }

const a = {};
for (let i = 2; i < process.argv.length; i += 2) a[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const N = parseInt(a.sectors || "1000000", 10), R = parseInt(a.runs || "5", 10);
const out = path.resolve(a.out || "bench-report-out");
fs.mkdirSync(out, { recursive: true });
const db = path.join(out, `big${N}.mhdb`), html = path.join(out, `big${N}.html`);
let t0 = Date.now();
execFileSync(a["make-profile"], ["big", db, String(N)], { stdio: "inherit" });
const tImport = (Date.now() - t0) / 1000;
t0 = Date.now();
execFileSync(a.memheat, ["report", "-q", "-f", db, "-o", html], { stdio: "inherit" });
const tReport = (Date.now() - t0) / 1000;

const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "memheat-bench-"));
const ctx = await chromium.launchPersistentContext(userDir, {
  executablePath: a.chromium, headless: true, viewport: { width: 1400, height: 1000 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const res = { load: [], painted: [], scroll: [], hover: [], script: [], task: [] };
const loads = [];
let rows = 0, errors = [];
const metrics = async (cdp) => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((x) => [x.name, x.value]));
for (let r = 0; r < R; r++) {
  const page = await ctx.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("Performance.enable");
  const prof = r === 0 && a.cpuprofile;
  if (prof) { await cdp.send("Profiler.enable"); await cdp.send("Profiler.setSamplingInterval", { interval: 500 }); await cdp.send("Profiler.start"); }
  const m0 = await metrics(cdp);
  loads.push(os.loadavg()[0]);
  await page.goto("file://" + html, { waitUntil: "load", timeout: 120000 });
  const m = await page.evaluate(async () => {
    const R = window.memheatReport;
    const painted = await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(performance.now()))));
    const v = Object.values(R.views)[0];
    const n = v.h.rows.length;
    let t = performance.now();
    v.scrollToRow(Math.floor(n / 2));
    const scroll = performance.now() - t;
    t = performance.now();
    const tip = v.describe(v.cellX(3), 100);
    const hover = performance.now() - t;
    return { load: R.readyMs, painted, scroll, hover, rows: n, tip };
  });
  const m1 = await metrics(cdp);
  m.script = (m1.ScriptDuration - (m0.ScriptDuration || 0)) * 1000;
  m.task = (m1.TaskDuration - (m0.TaskDuration || 0)) * 1000;
  if (prof) {
    const { profile } = await cdp.send("Profiler.stop");
    fs.writeFileSync(a.cpuprofile, JSON.stringify(profile));
    const self = new Map(), byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => { const f = byId.get(id).callFrame, k = `${f.functionName || "(anonymous)"}:${f.lineNumber + 1}`; self.set(k, (self.get(k) || 0) + (profile.timeDeltas[i] || 0)); });
    console.log("cpu profile of load 1 (self time; \"(program)\" = Chromium outside JS: HTML parsing, layout, paint):");
    [...self].sort((x, y) => y[1] - x[1]).slice(0, 12).forEach(([k, v]) => console.log(`  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`));
  }
  for (const k of Object.keys(res)) res[k].push(m[k]);
  rows = m.rows;
  if (r === 0) await page.screenshot({ path: path.join(out, "bench-mid.png") });
  await page.close();
}
await ctx.close();
fs.rmSync(userDir, { recursive: true, force: true });
const med = (v) => { const s = [...v].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
console.log(`sectors ${N}, display rows ${rows}, html ${(fs.statSync(html).size / 1e6).toFixed(1)} MB, profile ${(fs.statSync(db).size / 1e6).toFixed(1)} MB`);
console.log(`make_profile (trace + import) ${tImport.toFixed(1)} s, memheat report ${tReport.toFixed(2)} s`);
console.log(`load average (1 min) at each load: ${loads.map((x) => x.toFixed(1)).join(", ")} on ${os.cpus().length} CPUs`);
for (const k of Object.keys(res)) console.log(`${k.padEnd(8)} median ${med(res[k]).toFixed(1)} ms  (runs: ${res[k].map((x) => x.toFixed(0)).join(", ")})`);
if (errors.length) { console.log("page errors: " + errors.join(" | ")); process.exit(1); }
