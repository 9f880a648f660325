// harness.mjs -- what the report's browser tests (and bench/ranks) share:
// playwright-core's chromium (Debian's binary, named on the command line),
// launched headless with the flags every test uses, the command line itself
// (--name value pairs, the required ones checked with one usage line), the
// skip (exit 77) when there is no chromium, a fresh output folder, and the
// ok/FAIL lines of the checks.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

// beside this file (the build tree's copy), else through NODE_PATH (a script
// run from the source tree: ES imports do not read NODE_PATH, require does)
export async function loadChromium() {
  try { return createRequire(import.meta.url)("playwright-core").chromium; } catch { /* the import says why */ }
  try {
    return (await import("playwright-core")).chromium;
  } catch (e) {
    console.error("playwright-core is not installed (npm ci in tests/report/browser): " + e.message);
    process.exit(1);
  }
}

export const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

// A headless chromium with a profile folder of its own (removed by close()).
export async function launchChromium(chromium, executablePath, viewport = { width: 1400, height: 1000 }) {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), "memheat-chromium-"));
  const ctx = await chromium.launchPersistentContext(userDir, { executablePath, headless: true, args: CHROMIUM_FLAGS, viewport });
  return { ctx, async close() { await ctx.close(); fs.rmSync(userDir, { recursive: true, force: true }); } };
}

// check(cond, what) prints "ok   what" or "FAIL: what"; failed() counts the failures.
export function checker() {
  let failures = 0, checks = 0;
  return {
    check(cond, what) {
      checks++;
      if (!cond) { failures++; console.error("FAIL: " + what); } else console.log("ok   " + what);
    },
    failed() { console.log(`${checks - failures} passed, ${failures} failed`); return failures; },
  };
}

// --k v pairs of process.argv; exits 2 with `usage` when one of `required` is
// missing, 77 when the chromium named by --chromium does not exist.
export function parseArgs(required, usage) {
  const args = {};
  for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
  for (const k of required) {
    if (!args[k]) { console.error("usage: " + usage); process.exit(2); }
  }
  if (args.chromium && !fs.existsSync(args.chromium)) { console.log(`SKIP: no chromium at ${args.chromium}`); process.exit(77); }
  return args;
}

// dir, emptied (made when missing); returns its absolute path.
export function freshDir(dir) {
  const d = path.resolve(dir);
  fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(d, { recursive: true });
  return d;
}
