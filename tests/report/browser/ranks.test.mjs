// ranks.test.mjs -- the report of a job of many ranks in headless Chromium
// (Debian's chromium driven by playwright-core), issue 44.
//
// Profile: 64 ranks synthesised from `make_profile synth` by
// bench/ranks/rank_synth (seed 5: every rank's times scaled, ranks 32-39 a
// slow node, a third of the ranks' objects elsewhere, a few ranks' data
// different in three launches, with a finding fewer), merged with
// `memheat merge`. Checked against the page's own data: the page holds one
// launch per distinct content and every launch across ranks once in the
// selector; a launch that differs by rank offers its contents by their ranks
// and shows each; the first screen says on which ranks a cause is; the
// summary has a row per rank, the ranks off the median first (the slow node
// among them), then those with other findings, then by time; the kernel
// table is the reference rank's. Exit 0 = pass, 1 = fail, 77 = skipped.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { checker, freshDir, launchChromium, loadChromium, parseArgs } from "./harness.mjs";

const chromium = await loadChromium();
const args = parseArgs(["memheat", "make-profile", "rank-synth", "chromium", "out"],
  "ranks.test.mjs --memheat M --make-profile P --rank-synth S --chromium C --out DIR");
const out = freshDir(path.resolve(args.out) + "-ranks");
const N = 64;

const { check, failed } = checker();
function run(cmd, argv) {
  return execFileSync(cmd, argv, { cwd: out, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
}

try {
  run(args["make-profile"], ["synth", "base.mhdb"]);
  run(args["rank-synth"], ["--base", "base.mhdb", "--ranks", String(N), "--out", "many", "--seed", "5"]);
  const inputs = fs.readdirSync(path.join(out, "many")).filter((f) => f.endsWith(".mhdb")).sort().map((f) => path.join("many", f));
  run(args.memheat, ["merge", "-q", "-o", "job.mhdb", ...inputs]);
  run(args.memheat, ["report", "-q", "-f", "job.mhdb", "-o", "job.html"]);
} catch (e) {
  console.error("FAIL: making the job's profile and report: " + (e.stderr || e.message));
  process.exit(1);
}

const browser = await launchChromium(chromium, args.chromium);
const page = await browser.ctx.newPage();
const errors = [];
page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
page.on("pageerror", (e) => errors.push(String(e)));
await page.goto("file://" + path.join(out, "job.html"), { waitUntil: "load" });
await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });

// one launch per distinct content, every launch across ranks once in the selector
const data = await page.evaluate(() => {
  const D = window.memheatReport.data, G = D.rank_groups || [];
  return { n: D.rank_view && D.rank_view.n, launches: D.launches.map((l) => l.id).sort((a, b) => a - b),
    variants: G.flatMap((g) => (g.variants || []).map((v) => v.launch)).sort((a, b) => a - b), groups: G.length,
    ranksOn: G.map((g) => (g.variants || []).reduce((s, v) => s + v.n, 0)), processes: D.processes.length,
    options: document.querySelectorAll("#launch-select option").length,
    kernelRows: document.querySelectorAll("#kernel-table tbody tr").length, kernels: D.kernels.length,
    kref: (document.getElementById("kernels-rank") || {}).textContent || "" };
});
check(data.n === N, `rank_view: ${N} ranks (${data.n})`);
check(data.groups === 9 && data.options === 9, `one selector entry per launch across ranks: ${data.groups} groups, ${data.options} options`);
check(JSON.stringify(data.launches) === JSON.stringify(data.variants) && data.launches.length > 9 && data.launches.length < 2 * 9,
  `the page holds one launch per distinct content: ${data.launches.length} launches, ${data.variants.length} contents`);
check(data.ranksOn.every((x) => x === N), `every rank in one content of each launch: ${JSON.stringify(data.ranksOn)}`);
check(data.processes < 2 * 9, `the processes of the contents shown, not all ${N}: ${data.processes}`);
check(data.kernelRows === data.kernels && /the reference rank/.test(data.kref), `kernel table: the reference rank's ${data.kernels} kernels (${data.kernelRows} rows) "${data.kref}"`);

// a launch that differs by rank: its contents by their ranks, each shown
const sw = await page.evaluate(() => {
  const R = window.memheatReport, D = R.data, g = (D.rank_groups || []).find((x) => (x.variants || []).length > 1);
  if (!g) return null;
  R.showLaunch(g.variants[0].launch);
  const rs = document.getElementById("rank-select");
  const opts = [...rs.options].map((o) => o.textContent), shown = getComputedStyle(rs).display;
  rs.value = String(g.variants[1].launch);
  rs.dispatchEvent(new Event("change"));
  const kv = document.querySelector("#launch-body dl.kv").textContent;
  return { opts, shown, want: g.variants.map((v) => v.ranks), second: g.variants[1], kv, note: document.getElementById("rank-note").textContent,
    maps: document.querySelectorAll("#launch-body .hm-wrap canvas").length, sel: +document.getElementById("launch-select").value, first: g.variants[0].launch };
});
check(sw && sw.shown !== "none" && sw.opts.length === sw.want.length && sw.opts.every((t, i) => t.startsWith(sw.want[i])),
  "a launch that differs by rank: a selector of its contents by their ranks " + JSON.stringify(sw && sw.opts));
check(sw && /^all but ranks? /.test(sw.opts[0]) && /\(\d+ ranks\)$/.test(sw.opts[0]), "the common content is 'all but' the few other ranks: " + JSON.stringify(sw && sw.opts[0]));
check(sw && sw.kv.indexOf("Same heat maps on" + sw.second.ranks) >= 0 && sw.maps > 0 && sw.sel === sw.first && /distinct, each shown once/.test(sw.note),
  "the second content shown, with its ranks and heat maps: " + JSON.stringify(sw && { kv: sw.kv, maps: sw.maps, note: sw.note }));

// the first screen: causes on every rank, and one on most ranks but not all
const fx = await page.$$eval("#fix-list > li.fix .fix-ranks", (e) => e.map((x) => x.textContent));
check(fx.some((t) => new RegExp(`^on all ${N} ranks \\(cost `).test(t)), "a cause on every rank: " + JSON.stringify(fx));
check(fx.some((t) => new RegExp(`^on \\d+ of ${N} ranks, all but ranks? [\\d, -]+ \\(cost `).test(t)), "a cause missing on a few ranks names them: " + JSON.stringify(fx));

// the summary: a row per rank; off the median first (most off first), then other findings, then slowest first
const rows = await page.$$eval("#mh-ranks .mh-ranks-summary tbody tr", (e) => e.map((r) => ({ cls: r.className, ratio: +r.getAttribute("data-ratio"), rank: r.children[0].textContent, findings: r.children[7].textContent })));
check(rows.length === N, `summary: one row per rank (${rows.length})`);
const order = rows.map((r) => r.cls), lastOut2 = order.lastIndexOf("mh-out2"), firstOut1 = order.indexOf("mh-out1"), lastOut1 = order.lastIndexOf("mh-out1"), firstOut0 = order.indexOf("mh-out0");
check(lastOut2 >= 0 && (firstOut1 < 0 || lastOut2 < firstOut1) && (firstOut0 < 0 || Math.max(lastOut2, lastOut1) < firstOut0), "summary: off the median, then other findings, then the rest: " + order.join(" "));
const out2 = rows.filter((r) => r.cls === "mh-out2"), out0 = rows.filter((r) => r.cls === "mh-out0");
const dev = (x) => Math.abs(Math.log(x));
check(out2.every((r, i) => i === 0 || dev(out2[i - 1].ratio) >= dev(r.ratio)) && out2.every((r) => r.ratio > 1.1 || r.ratio < 1 / 1.1), "summary: the ranks most off the median first " + JSON.stringify(out2.map((r) => r.ratio)));
check(out0.every((r, i) => i === 0 || out0[i - 1].ratio >= r.ratio), "summary: the rest slowest first");
const slowNode = ["rank 32", "rank 33", "rank 34", "rank 35", "rank 36", "rank 37", "rank 38", "rank 39"];
check(slowNode.every((r) => out2.some((x) => x.rank === r)), "summary: the slow node's ranks 32-39 among those off the median: " + JSON.stringify(out2.map((r) => r.rank)));
check(rows.filter((r) => r.cls === "mh-out1").every((r) => /^(lacks|also) /.test(r.findings)) && rows.some((r) => /^lacks /.test(r.findings)),
  "summary: ranks with other findings say which they lack " + JSON.stringify(rows.filter((r) => r.cls !== "mh-out2" && !/^all /.test(r.findings)).map((r) => r.findings)));
check(errors.length === 0, "no page errors: " + errors.join(" | "));
await page.screenshot({ path: path.join(out, "report-ranks64.png"), fullPage: false });
await browser.close();
process.exit(failed() ? 1 : 0);
