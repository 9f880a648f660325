// screens.test.mjs -- the memheat HTML report's look, compared pixel by pixel
// against committed reference screenshots (tests/report/browser/screens/*.png).
//
// Fixed synthetic profiles (mh_make_profile synth and periodic: no dates, no
// paths, no simulator output in the parts shot) are rendered in headless
// Debian chromium at fixed sizes (device scale 1, animations off, mouse away)
// and each screenshot is compared with its reference: a pixel differs when a
// channel differs by more than CHANNEL_TOL; the test fails when the image size
// changed or more than RATIO_TOL of the pixels differ. A failing shot leaves
// NAME.actual.png and NAME.diff.png (differing pixels in red) in --out.
// A negative control shows the comparison can fail: one small style change
// (2 px more padding in the first cause) must be caught.
//
// Refresh the references after an intended change of the page's look:
//   MEMHEAT_UPDATE_SCREENS=1 ctest -R report_screens     (then review and commit the PNGs)
//
// Usage: screens.test.mjs --memheat M --make-profile P --chromium C --out DIR --ref DIR
// (the arguments of report.test.mjs; --ocl-examples is accepted and not used:
// a simulator's profile is not stable across Oclgrind versions).
// Exit 0 = pass, 1 = fail, 77 = skipped (no chromium, or another chromium
// version than the references': tests/report/browser/screens/chromium-version.txt).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { freshDir, loadChromium, parseArgs } from "./harness.mjs";

const CHANNEL_TOL = 24;    // of 255: anti-aliasing noise
const RATIO_TOL = 0.001;   // share of pixels that may differ

const chromium = await loadChromium();
const args = parseArgs(["memheat", "make-profile", "chromium", "out", "ref"], "screens.test.mjs --memheat M --make-profile P --chromium C --out DIR --ref DIR");
const update = !!process.env.MEMHEAT_UPDATE_SCREENS;
const out = freshDir(args.out), ref = path.resolve(args.ref);
if (update) fs.mkdirSync(ref, { recursive: true });

let failures = 0, checks = 0;
function check(cond, what) {
  checks++;
  if (!cond) { failures++; console.error("FAIL: " + what); } else console.log("ok   " + what);
}
const run = (cmd, argv) => execFileSync(cmd, argv, { cwd: out, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });

// ---- PNG: decode (8-bit greyscale/RGB/RGBA, not interlaced: what Chromium writes) and encode ----
function pngDecode(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error("not a PNG");
  let pos = 8, w = 0, h = 0, depth = 0, ctype = 0, inter = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos), type = buf.toString("latin1", pos + 4, pos + 8), data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === "IHDR") { w = data.readUInt32BE(0); h = data.readUInt32BE(4); depth = data[8]; ctype = data[9]; inter = data[12]; }
    else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    pos += 12 + len;
  }
  const bpp = { 0: 1, 2: 3, 4: 2, 6: 4 }[ctype];
  if (depth !== 8 || !bpp || inter) throw new Error(`unsupported PNG (depth ${depth}, colour type ${ctype}, interlace ${inter})`);
  const raw = zlib.inflateSync(Buffer.concat(idat)), stride = w * bpp, px = new Uint8Array(w * h * 4);
  let prev = new Uint8Array(stride), cur = new Uint8Array(stride);
  for (let y = 0; y < h; y++) {
    const ft = raw[y * (stride + 1)], row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? cur[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
      let p;
      switch (ft) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: { const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c); p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; break; }
        default: throw new Error("bad PNG filter " + ft);
      }
      cur[x] = (row[x] + p) & 255;
    }
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 4, s = x * bpp;
      if (bpp >= 3) { px[o] = cur[s]; px[o + 1] = cur[s + 1]; px[o + 2] = cur[s + 2]; px[o + 3] = bpp === 4 ? cur[s + 3] : 255; }
      else { px[o] = px[o + 1] = px[o + 2] = cur[s]; px[o + 3] = bpp === 2 ? cur[s + 1] : 255; }
    }
    [prev, cur] = [cur, prev];
  }
  return { w, h, px };
}
const CRC = new Int32Array(256).map((_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c; });
function crc32(b) { let c = -1; for (const x of b) c = CRC[(c ^ x) & 255] ^ (c >>> 8); return (c ^ -1) >>> 0; }
function chunk(type, data) {
  const len = Buffer.alloc(4), crc = Buffer.alloc(4), td = Buffer.concat([Buffer.from(type, "latin1"), data]);
  len.writeUInt32BE(data.length); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function pngEncode({ w, h, px }) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 6;
  const raw = Buffer.alloc(h * (w * 4 + 1));
  for (let y = 0; y < h; y++) Buffer.from(px.buffer, px.byteOffset + y * w * 4, w * 4).copy(raw, y * (w * 4 + 1) + 1);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", zlib.deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}
// The share of pixels that differ, and an image of them (red on a pale copy of the reference).
function compare(a, b) {
  if (a.w !== b.w || a.h !== b.h) return { sizeDiffers: true, ratio: 1 };
  const d = new Uint8Array(a.px.length);
  let n = 0;
  for (let i = 0; i < a.px.length; i += 4) {
    const diff = Math.max(Math.abs(a.px[i] - b.px[i]), Math.abs(a.px[i + 1] - b.px[i + 1]), Math.abs(a.px[i + 2] - b.px[i + 2]), Math.abs(a.px[i + 3] - b.px[i + 3]));
    if (diff > CHANNEL_TOL) { n++; d[i] = 255; d[i + 1] = 0; d[i + 2] = 0; }
    else { const g = 200 + (a.px[i] + a.px[i + 1] + a.px[i + 2]) / 3 * 55 / 255; d[i] = d[i + 1] = d[i + 2] = g; }
    d[i + 3] = 255;
  }
  return { ratio: n / (a.w * a.h), n, diff: { w: a.w, h: a.h, px: d } };
}
// Self-check of the decoder and the comparison: identical images do not
// differ, one changed pixel is counted, an encode/decode round trip holds.
{
  const img = { w: 3, h: 2, px: new Uint8Array(24).map((_, i) => (i * 37) & 255) };
  const back = pngDecode(pngEncode(img));
  check(back.w === 3 && back.h === 2 && back.px.every((v, i) => v === img.px[i]), "PNG encode/decode round trip");
  const other = { w: 3, h: 2, px: img.px.slice() }; other.px[4] ^= 0x80;
  check(compare(img, img).n === 0 && compare(img, other).n === 1, "compare counts the one changed pixel");
}

// ---- the shots ----
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--font-render-hinting=none", "--disable-lcd-text", "--force-color-profile=srgb"];
const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "memheat-screens-"));
const ctx = await chromium.launchPersistentContext(userDir, {
  executablePath: args.chromium, headless: true, args: FLAGS, viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1,
  reducedMotion: "reduce", colorScheme: "light", locale: "en-US", timezoneId: "UTC",
});

// The references hold for the chromium build that made them (fonts and
// rasterizer differ between builds): another build skips the pixel comparison (77)
// with a line saying so, unless the references are being refreshed.
const verFile = path.join(ref, "chromium-version.txt");
let version = "?";
try {
  const m = /([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+)/.exec(execFileSync(args.chromium, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  if (m) version = m[1];
} catch (e) { /* no version: compared as "?" */ }
if (update) fs.writeFileSync(verFile, version + "\n");
else {
  const want = fs.existsSync(verFile) ? fs.readFileSync(verFile, "utf8").trim() : "";
  // a security update changes only the last number (Debian's 156.0.8078.79 ->
  // .108 rendered the same pages within the tolerances): compared without it
  const build = (v) => v.split(".").slice(0, 3).join(".");
  if (build(want) !== build(version)) {
    console.log(`SKIP: references made with chromium ${want || "?"}, this is ${version}: refresh them with MEMHEAT_UPDATE_SCREENS=1`);
    await ctx.close();
    fs.rmSync(userDir, { recursive: true, force: true });
    process.exit(77);
  }
}

run(args["make-profile"], ["synth", "synth.mhdb"]);
run(args.memheat, ["report", "-q", "-f", "synth.mhdb", "-o", "synth.html"]);
run(args["make-profile"], ["periodic", "periodic.mhdb"]);
run(args.memheat, ["report", "-q", "-f", "periodic.mhdb", "-o", "periodic.html"]);

// name, page, viewport width, what is shot (null: the first screen), set-up in the page
const SHOTS = [
  ["synth-first-1400", "synth.html", 1400, null],
  ["synth-first-800", "synth.html", 800, null],
  ["synth-launch-1400", "synth.html", 1400, "#launch-body"],
  ["periodic-heatmap-1400", "periodic.html", 1400, "#launch-body .hm-wrap"],
  ["periodic-timeline-800", "periodic.html", 800, "#timeline"],
];

async function shoot(file, width, sel, css) {
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.setViewportSize({ width, height: 900 });
  await page.goto("file://" + path.join(out, file), { waitUntil: "load" });
  await page.evaluate(() => document.fonts.ready);
  if (css) await page.addStyleTag({ content: css });
  await page.mouse.move(0, 0);
  const opts = { animations: "disabled", caret: "hide", scale: "css" };
  const png = sel ? await page.locator(sel).first().screenshot(opts) : await page.screenshot(opts);
  await page.close();
  return { png, errors };
}

let firstShot = null;
for (const [name, file, width, sel] of SHOTS) {
  const { png, errors } = await shoot(file, width, sel);
  check(errors.length === 0, `${name}: no page errors ${errors.join(" | ")}`);
  const refFile = path.join(ref, name + ".png");
  if (update) { fs.writeFileSync(refFile, png); console.log(`updated ${refFile}`); continue; }
  if (!fs.existsSync(refFile)) { check(false, `${name}: no reference ${refFile} (make it with MEMHEAT_UPDATE_SCREENS=1)`); continue; }
  const want = pngDecode(fs.readFileSync(refFile)), got = pngDecode(png), c = compare(want, got);
  const ok = !c.sizeDiffers && c.ratio <= RATIO_TOL;
  if (!ok) {
    fs.writeFileSync(path.join(out, name + ".actual.png"), png);
    if (c.diff) fs.writeFileSync(path.join(out, name + ".diff.png"), pngEncode(c.diff));
  }
  check(ok, `${name}: ${c.sizeDiffers ? `size ${got.w}x${got.h}, reference ${want.w}x${want.h}` : `${(c.ratio * 100).toFixed(3)}% of ${got.w}x${got.h} pixels differ (at most ${RATIO_TOL * 100}%)`}`);
  if (!firstShot) firstShot = { want, file, width };
}

// Negative control: a small style change is caught.
if (firstShot) {
  const { png } = await shoot(firstShot.file, firstShot.width, null, "li.fix { padding-top: 8px; }");
  const c = compare(firstShot.want, pngDecode(png));
  check(c.sizeDiffers || c.ratio > RATIO_TOL, `negative control: 2 px more padding in the causes is caught (${(c.ratio * 100).toFixed(2)}% of pixels differ)`);
}

await ctx.close();
fs.rmSync(userDir, { recursive: true, force: true });
console.log(`${checks - failures} passed, ${failures} failed${update ? " (references updated)" : ""}`);
process.exit(failures ? 1 : 0);
