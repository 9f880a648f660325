// open.mjs -- how fast the report of a profile of many ranks is on screen and
// answers in headless Chromium. Not a test: it prints figures for
// bench/ranks/README.md (run.sh calls it).
//
//   node open.mjs --chromium C --html REPORT.html [--runs R]
//
// Loads the page R times in a fresh tab and prints one JSON line with the
// median of:
//   ready     navigation start -> page built and first heat map drawn (the
//             page's own mark, window.memheatReport.readyMs)
//   painted   ... -> two animation frames after the load event (on screen)
//   load      navigation start -> the load event, as the tab saw it
//   switch    one interaction once ready: the launch selector moved to a
//             launch that differs by rank and its second content shown
//             (heat maps drawn), or to the next launch where none differs
//   task      Chromium's TaskDuration of the load (main-thread work: HTML
//             parsing, script, layout, paint; CDP Performance.getMetrics)
// and the page's summary rows, launches held and errors.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launchChromium, loadChromium } from "../../tests/report/browser/harness.mjs";

const chromium = await loadChromium();

const a = {};
for (let i = 2; i < process.argv.length; i += 2) a[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
if (!a.chromium || !a.html) { console.error("usage: open.mjs --chromium C --html REPORT.html [--runs R]"); process.exit(2); }
const R = parseInt(a.runs || "3", 10), html = path.resolve(a.html);
const browser = await launchChromium(chromium, a.chromium), ctx = browser.ctx;
const res = { ready: [], painted: [], load: [], switch: [], task: [] }, loads = [], errors = [];
let info = {};
for (let r = 0; r < R; r++) {
  const page = await ctx.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("Performance.enable");
  loads.push(os.loadavg()[0]);
  await page.goto("file://" + html, { waitUntil: "load", timeout: 120000 });
  const m = await page.evaluate(async () => {
    const R = window.memheatReport, D = R.data, nav = performance.getEntriesByType("navigation")[0];
    const frame = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(performance.now()))));
    const painted = await frame();
    const groups = D.rank_groups || [], differs = groups.find((g) => g.variants.length > 1);
    const sel = document.getElementById("launch-select");
    const t = performance.now();
    if (differs) {
      R.showLaunch(differs.variants[0].launch);
      R.showLaunch(differs.variants[1].launch);
    } else {
      sel.selectedIndex = (sel.selectedIndex + 1) % sel.options.length;
      sel.dispatchEvent(new Event("change"));
    }
    const sw = (await frame()) - t;
    return { ready: R.readyMs, painted, load: nav ? nav.loadEventEnd : null, switch: sw,
      rows: document.querySelectorAll("#mh-ranks .mh-ranks-summary tbody tr").length,
      launches: (D.launches || []).length, groups: groups.length, variants: groups.reduce((s, g) => s + g.variants.length, 0) };
  });
  const met = Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((x) => [x.name, x.value]));
  m.task = met.TaskDuration * 1000;
  for (const k of Object.keys(res)) res[k].push(m[k]);
  info = { rows: m.rows, launches: m.launches, groups: m.groups, variants: m.variants };
  await page.close();
}
await browser.close();
const med = (v) => { const s = [...v].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const out = { html: path.basename(html), bytes: fs.statSync(html).size, runs: R, loadavg: loads.map((x) => +x.toFixed(1)), ...info, errors };
for (const k of Object.keys(res)) { out[k + "_ms"] = +med(res[k]).toFixed(0); out[k + "_runs"] = res[k].map((x) => +x.toFixed(0)); }
console.log(JSON.stringify(out));
if (errors.length) process.exit(1);
