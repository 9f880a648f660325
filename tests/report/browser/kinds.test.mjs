// kinds.test.mjs -- access kinds and bank degrees in the memheat HTML report,
// in headless Chromium (Debian's chromium driven by playwright-core).
//
// Profile: `make_profile kinds` (tests/report/make_profile.c: sectors loaded,
// stored and atomically updated by 8 warps, a mixed sector, three identical
// loaded sectors; a shared tile whose column store is a 32-way bank conflict).
// Checked against the page's own data and pixels: rows of equal temperatures
// but other kinds are not folded together; the tooltip names the kinds; the
// filter all / loads / stores / atomics changes the drawn cells (pixel colours)
// and the overview; the legend explains stripes, letters and the filter; the
// bank view draws the worst request's degree per bank (bank 0 at 32). Also
// `memheat heatmap` on the profile prints the kinds per word, and a profile
// without the kinds columns (as written before them) reports "not recorded".
// Exit 0 = pass, 1 = fail, 77 = skipped.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freshDir, loadChromium, parseArgs } from "./harness.mjs";

const chromium = await loadChromium();
const args = parseArgs(["memheat", "make-profile", "chromium", "out"], "kinds.test.mjs --memheat M --make-profile P --chromium C --out DIR [--ocl-examples EXE]");
const out = freshDir(path.resolve(args.out) + "-kinds");

let failures = 0, checks = 0;
function check(cond, what) {
  checks++;
  if (!cond) { failures++; console.error("FAIL: " + what); } else console.log("ok   " + what);
}
function run(cmd, argv) {
  return execFileSync(cmd, argv, { cwd: out, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
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
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto("file://" + file, { waitUntil: "load" });
  return { page, errors, label };
}

// Shows launch "kinds" and returns the global map's view id and the display
// rows of its runs (region separator rows skipped).
async function showKinds(page) {
  return page.evaluate(() => {
    const R = window.memheatReport, D = R.data, l = D.launches.find((x) => x.name === "kinds");
    R.showLaunch(l.id);
    const g = D.heat_maps.find((m) => m.launch === l.id && m.space === "global");
    const s = D.heat_maps.find((m) => m.launch === l.id && m.space === "shared");
    const v = R.views[g.id];
    v.canvas.scrollIntoView({ block: "center" });
    return { id: g.id, sid: s && s.id, counts: Array.from(v.h.meta.filter((_, i) => i % 4 === 2)), kinds: Array.from(v.h.kinds),
      rows: [...v.h.rows].map((c, ri) => (c >= 0 ? ri : -1)).filter((x) => x >= 0), known: v.h.kindsKnown };
  });
}

// The drawn colour of cell `col` of display row ri, and the colour the scale gives its temperature.
async function cell(page, id, ri, col) {
  return page.evaluate(([id, ri, col]) => {
    const R = window.memheatReport, v = R.views[id], g = v.canvas.getContext("2d"), dpr = window.devicePixelRatio || 1;
    v.scrollToRow(0);
    const y = v.rowY(ri) + 9, x = v.cellX(col), px = g.getImageData(Math.round((x - 12) * dpr), Math.round((y - 6) * dpr), 1, 1).data;
    const code = v.h.rows[ri], t = v.h.temps[code * 9 + col];
    return { rgb: `rgb(${px[0]},${px[1]},${px[2]})`, scale: R.colorOf(t), t };
  }, [id, ri, col]);
}

async function setFilter(page, value) {
  await page.selectOption("select.hm-kind-filter >> nth=0", value);
}

async function tipOf(page, id, ri, col) {
  const pt = await page.evaluate(([id, ri, col]) => {
    const v = window.memheatReport.views[id], b = v.canvas.getBoundingClientRect();
    return { x: b.left + v.cellX(col), y: b.top + v.rowY(ri) + 9 };
  }, [id, ri, col]);
  await page.mouse.move(pt.x, pt.y);
  return page.$eval(".hm-tip", (t) => t.textContent);
}

run(args["make-profile"], ["kinds", "kinds.mhdb"]);
run(args.memheat, ["report", "-q", "-f", "kinds.mhdb", "-o", "kinds.html"]);
{
  const p = await openPage(path.join(out, "kinds.html"), "kinds");
  const m = await showKinds(p.page);
  // make_profile: loads, stores, atomic, mixed, three identical loaded sectors
  check(m.known && JSON.stringify(m.counts) === "[1,1,1,1,3]", `kinds: equal temperatures with other kinds are not folded (runs ${JSON.stringify(m.counts)})`);
  const L = 0x249249, S = 0x492492; // every word loaded / stored
  check(m.kinds[0] === L && m.kinds[1] === S && m.kinds[2] === 4 && m.kinds[3] === (3 | 1 << 3) && m.kinds[4] === L,
    "kinds: per-word kinds of each run " + JSON.stringify(m.kinds.map((k) => k.toString(16))));
  const [rLoad, rStore, rAtomic] = m.rows;
  // tooltip names the kinds
  const t1 = await tipOf(p.page, m.id, rStore, 2);
  check(/kinds\s+stores\s+\(per word SSSSSSSS\)/.test(t1) && /word 2 .*8 distinct warps \(stores\)/.test(t1), "kinds: tooltip of the stored sector:\n" + t1);
  const t3 = await tipOf(p.page, m.id, m.rows[3], 0);
  check(/kinds\s+loads \+ stores\s+\(per word ML\.{6}\)/.test(t3), "kinds: tooltip of the mixed sector:\n" + t3);
  // all kinds: every accessed cell in its temperature's colour
  let a = await cell(p.page, m.id, rLoad, 0), b = await cell(p.page, m.id, rStore, 0), c = await cell(p.page, m.id, rAtomic, 0);
  check(a.rgb === a.scale && b.rgb === b.scale && c.rgb === c.scale && a.t === 8, `kinds: filter all: loads ${a.rgb}, stores ${b.rgb}, atomics ${c.rgb} drawn in the scale's colours`);
  const blank = await p.page.evaluate(() => { const c = document.createElement("canvas").getContext("2d"); c.fillStyle = "rgb(252,252,252)"; c.fillRect(0, 0, 1, 1); const d = c.getImageData(0, 0, 1, 1).data; return `rgb(${d[0]},${d[1]},${d[2]})`; });
  // stores: the loaded and atomic sectors go blank, the stored one keeps its colour
  await setFilter(p.page, "2");
  a = await cell(p.page, m.id, rLoad, 0); b = await cell(p.page, m.id, rStore, 0); c = await cell(p.page, m.id, rAtomic, 8);
  check(a.rgb === blank && b.rgb === b.scale && c.rgb === blank, `kinds: filter stores: loaded ${a.rgb} and atomic ${c.rgb} blank, stored ${b.rgb} drawn`);
  const mixed = await cell(p.page, m.id, m.rows[3], 1); // word 1 of the mixed sector: loaded only
  const mixed0 = await cell(p.page, m.id, m.rows[3], 0); // word 0: loaded and stored
  check(mixed.rgb === blank && mixed0.rgb === mixed0.scale, `kinds: filter stores on the mixed sector: word 0 (L+S) drawn ${mixed0.rgb}, word 1 (L) blank ${mixed.rgb}`);
  // loads: the reverse
  await setFilter(p.page, "1");
  a = await cell(p.page, m.id, rLoad, 0); b = await cell(p.page, m.id, rStore, 0);
  check(a.rgb === a.scale && b.rgb === blank, `kinds: filter loads: loaded ${a.rgb} drawn, stored ${b.rgb} blank`);
  // atomics: only word 0 of the atomic sector and its sector cell
  await setFilter(p.page, "4");
  a = await cell(p.page, m.id, rLoad, 8); c = await cell(p.page, m.id, rAtomic, 0);
  const c8 = await cell(p.page, m.id, rAtomic, 8);
  check(a.rgb === blank && c.rgb === c.scale && c8.rgb === c8.scale, `kinds: filter atomics: loaded sector blank ${a.rgb}, atomic word ${c.rgb} and sector ${c8.rgb} drawn`);
  const sync = await p.page.$$eval("select.hm-kind-filter", (e) => e.map((x) => x.value));
  check(sync.length >= 2 && sync.every((v) => v === "4"), "kinds: one filter for the page: every map's selector shows it " + JSON.stringify(sync));
  await p.page.screenshot({ path: path.join(out, "kinds-atomics.png") });
  await setFilter(p.page, "0");
  a = await cell(p.page, m.id, rLoad, 0); b = await cell(p.page, m.id, rStore, 0);
  check(a.rgb === a.scale && b.rgb === b.scale, "kinds: back to all kinds: both drawn again");
  // legend
  const lg = await p.page.$eval(".hm-kinds", (e) => ({ text: e.textContent, opts: [...e.querySelectorAll("option")].map((o) => o.textContent) }));
  check(JSON.stringify(lg.opts) === '["all kinds","loads","stores","atomics"]', "kinds: legend filter options " + JSON.stringify(lg.opts));
  check(/L loads/.test(lg.text) && /S stores/.test(lg.text) && /A atomics/.test(lg.text) && /stripe under a cell/.test(lg.text) && /every kind/.test(lg.text),
    "kinds: legend explains stripes, letters and the filter: " + lg.text);
  // bank view: pc 0x300's worst request is one bank of 32 words
  const bank = await p.page.evaluate(() => {
    const c = document.querySelector(".bank-degree"), sel = document.querySelector(".bank-degree-pc");
    if (!c) return null;
    const g = c.getContext("2d"), px = (x, y) => { const d = g.getImageData(x, y, 1, 1).data; return d[0] + d[1] + d[2]; };
    const r = { pc: c.getAttribute("data-pc"), deg: c.getAttribute("data-degrees").split(" ").map(Number), note: c.previousSibling.textContent,
      bar0: px(7, 20), bar1: px(14 + 7, 20), opts: sel ? sel.options.length : 0 };
    if (sel) { sel.value = "1"; sel.dispatchEvent(new Event("change")); r.pc2 = c.getAttribute("data-pc"); r.deg2 = c.getAttribute("data-degrees").split(" ").map(Number); }
    return r;
  });
  check(bank && bank.pc === "0x300" && bank.deg[0] === 32 && bank.deg.slice(1).every((x) => x === 0), "kinds: bank view: worst request of pc 0x300 is bank 0 at 32 " + JSON.stringify(bank && bank.deg));
  check(bank && bank.bar0 < 700 && bank.bar1 === 765, `kinds: bank 0 drawn as one tall bar, bank 1 empty (pixel sums ${bank && bank.bar0}, ${bank && bank.bar1})`);
  check(bank && /32-way conflict/.test(bank.note), "kinds: bank view says 32-way conflict: " + (bank && bank.note));
  /* issue 40: the chart is collapsed to the instructions with conflicts; the conflict-free pc 0x310 is left out */
  check(bank && bank.opts === 0 && bank.pc2 === undefined, "kinds: the chart lists only the conflicting pc (conflict-free 0x310 left out): " + (bank && bank.opts) + " choices");
  await p.page.locator(".bank-degrees").scrollIntoViewIfNeeded();
  await p.page.screenshot({ path: path.join(out, "kinds-banks.png") });
  check(p.errors.length === 0, "kinds: no console errors" + (p.errors.length ? ": " + p.errors.join(" | ") : ""));
  await p.page.close();
}

// ---- the terminal view and an old profile ----
{
  const text = run(args.memheat, ["heatmap", "kinds.mhdb", "--no-color", "--space", "global"]);
  check(/ 8\s+LLLLLLLL\n/.test(text) && / 8\s+SSSSSSSS\n/.test(text) && /A\.{7}\n/.test(text) && /ML\.{6}\n/.test(text) && /LLLLLLLL\s+x3\n/.test(text),
    "kinds: memheat heatmap prints the kinds per word:\n" + text);
  fs.copyFileSync(path.join(out, "kinds.mhdb"), path.join(out, "old.mhdb"));
  let ok = true;
  try {
    run("python3", ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('ALTER TABLE heat_row DROP COLUMN kinds'); c.execute('ALTER TABLE bank_conflict DROP COLUMN banks'); c.commit()", "old.mhdb"]);
    run(args.memheat, ["report", "-q", "-f", "old.mhdb", "-o", "old.html"]);
  } catch (e) { ok = false; check(false, "old profile: " + (e.stderr || e.message)); }
  if (ok) {
    const p = await openPage(path.join(out, "old.html"), "old");
    const m = await showKinds(p.page);
    check(!m.known && JSON.stringify(m.counts) === "[2,1,1,3]", "old: kinds unknown; equal temperatures fold as before " + JSON.stringify(m.counts));
    const t = await tipOf(p.page, m.id, m.rows[0], 0);
    check(/kinds\s+not recorded/.test(t), "old: tooltip says the kinds were not recorded:\n" + t);
    await setFilter(p.page, "2");
    const a = await cell(p.page, m.id, m.rows[0], 0);
    check(a.rgb === a.scale, "old: the filter leaves a map without kinds as it is");
    const lg = await p.page.$eval(".hm-kinds", (e) => e.textContent);
    check(/written before memheat kept the kinds/.test(lg), "old: the legend says so");
    check(!(await p.page.$(".bank-degree")), "old: no per-bank degrees without the banks column");
    check(p.errors.length === 0, "old: no console errors" + (p.errors.length ? ": " + p.errors.join(" | ") : ""));
    await p.page.close();
  }
}

await ctx.close();
fs.rmSync(userDir, { recursive: true, force: true });
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
