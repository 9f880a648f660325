// harness.mjs -- what the report's browser tests share: playwright-core's
// chromium (Debian's binary, named on the command line), the command line
// itself (--name value pairs, the required ones checked with one usage line),
// the skip (exit 77) when there is no chromium, and a fresh output folder.
import fs from "node:fs";
import path from "node:path";

export async function loadChromium() {
  try {
    return (await import("playwright-core")).chromium;
  } catch (e) {
    console.error("playwright-core is not installed (npm ci in tests/report/browser): " + e.message);
    process.exit(1);
  }
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
