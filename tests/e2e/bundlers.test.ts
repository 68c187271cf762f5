// The package bundled as users bundle it, minified, then gzipped against a size budget and run in Chromium:
// esbuild and Vite, each from a project that depends on cuckoo-wasm (the repository, linked as
// node_modules/cuckoo-wasm) and imports it by name. Three apps: one that only uses the filter, one that
// also deduplicates lines (the package's dedup.js is left out of the first: package.json's sideEffects),
// and the first on the lite entry.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { launchChromium, repoRoot } from './browser';

const filterApp = `import { ready, CuckooFilter } from 'cuckoo-wasm';
await ready();
const f = new CuckooFilter({ capacity: 1000 });
f.addMany(['a', 'b']);
const copy = CuckooFilter.fromJSON(JSON.stringify(f));
const loaded = CuckooFilter.import(f.export());
document.body.dataset.result = JSON.stringify([f.has('a'), f.has('zz'), copy.has('b'), loaded.delete('b'),
  loaded.has('b'), String(f).split(',')[0]]);
`;
const filterExpected = JSON.stringify([true, false, true, true, false, 'CuckooFilter { size: 2']);
const dedupApp = `import { ready, CuckooFilter, dedupLines } from 'cuckoo-wasm';
await ready();
const f = new CuckooFilter({ capacity: 1000 });
f.add('a');
const lines = new Blob(['b\\na\\nb\\nc\\na\\n']).stream().pipeThrough(dedupLines());
document.body.dataset.result = JSON.stringify([f.has('a'), await new Response(lines).text()]);
`;
const dedupExpected = JSON.stringify([true, 'b\na\nc\n']);
// The filter app on the lite entry (cuckoo-wasm/lite: a module of its own, the sized filter alone).
const liteApp = filterApp.replaceAll("'cuckoo-wasm'", "'cuckoo-wasm/lite'");

// Gzipped bytes (level 9) of each app's minified bundle, wasm included (it is inlined). Issue 45 aims at
// 40 KB for the filter-only app and 72 KB with the deduplicator: on 2026-11-27 they were 71.6 and 75.0 KB
// with esbuild, then 72.3 and 75.8 after the doubling table's memory and first-bucket changes of that day
// (docs/PERFORMANCE.md, "What the package weighs", says where the bytes go), then 77.7 and 81.4 with the
// 40-bit slots of the table that doubles (a third width of it; the 16- and 32-bit ones stay, for exports),
// then 81.2 and 85.2 with the engine's partitioned runs (the command's second thread: line_dedup.hpp).
// 81.3 and 85.2 KB on 2026-11-28; round 4's fixes and dedup's window (one wasm module): 82.1 and 86.4 KB.
// The lite app (its own wasm module, without embind or Emscripten's glue): issue 59 asks for at most 30 KB
// with esbuild. 31.8 KB (Vite 32.0) with dlmalloc as the module's allocator, 29.2 with emmalloc, which an
// adversarial pass found overwriting live filters when a table did not fit (tests/js/memory.test.ts);
// 29.0 KB with small_heap.hpp (2026-11-29). Format version 7 (the table's width from the rate: 20- and
// 24-bit tables besides 16, 32 and 40): 91.8 and 96.3 KB (2026-11-29). A growing filter that refuses copies
// crowding a key's buckets instead of growing for them (its rule in each width's table, the chain's, the
// messages): 92.7 and 97.3 KB (2026-11-30). The deduplicator deciding a line that repeats the line before
// it without the filter (issue 58), in the one wasm module: 93.4 and 98.0 KB (2026-11-30). Runs of one
// record found from the record before (issue 58, the same module): 94.3 and 98.9 KB (2026-11-30). Slots
// that widen as the table doubles (issue 57, format version 8; +2.8 KB of wasm code before compression):
// 97.1 and 101.6 KB (2026-12-01), about 0.3 more with an outside review's fixes.
const budgets = { filter: 97_600, dedup: 102_100, lite: 30_000 };
// Vite's bundles of the same apps (a few bytes more: its module preamble).
const viteBudgets = { ...budgets, lite: 30_500 };

type App = keyof typeof budgets;

// What the README says each app downloads once bundled by esbuild ("... an app that only uses the filter
// downloads N KB, one that also deduplicates lines M KB").
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8').replace(/\s+/g, ' ');
const said = readme.match(
  /an app that only uses the filter downloads (\d+) KB, one that also deduplicates lines (\d+) KB, and one that uses the lite entry (\d+) KB/,
);
const readmeKB: Record<App, number | undefined> = {
  filter: Number(said?.[1]),
  dedup: Number(said?.[2]),
  lite: Number(said?.[3]),
};
const apps: Record<App, [source: string, expected: string]> = {
  filter: [filterApp, filterExpected],
  dedup: [dedupApp, dedupExpected],
  lite: [liteApp, filterExpected],
};

let project: string;
let browser: Browser;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'cuckoo-bundle-'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(repoRoot, join(project, 'node_modules', 'cuckoo-wasm'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'bundled', private: true, type: 'module' }));
  for (const [app, [source]] of Object.entries(apps)) {
    mkdirSync(join(project, app));
    writeFileSync(join(project, app, 'main.js'), source);
    writeFileSync(
      join(project, app, 'index.html'),
      '<!doctype html><body><script type="module" src="./main.js"></script></body>\n',
    );
  }
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  rmSync(project, { recursive: true, force: true });
});

// Runs a self-contained bundle (the wasm is inlined) as a module script of a blank page.
async function runInChromium(bundle: string): Promise<string | undefined> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.setContent('<!doctype html><body></body>');
  await page.addScriptTag({ content: bundle, type: 'module' });
  await page
    .waitForFunction(() => document.body.dataset.result !== undefined || false, undefined, { timeout: 20000 })
    .catch(() => undefined);
  const result = await page.evaluate(() => document.body.dataset.result);
  await page.close();
  expect(errors).toEqual([]);
  return result;
}

const gzipped = (bundle: string) => gzipSync(bundle, { level: 9 }).length;

describe.each(Object.keys(apps) as App[])('the %s app', (app) => {
  const [, expected] = apps[app];

  test('bundled by esbuild --minify: within its budget, and runs in Chromium', async () => {
    execFileSync(
      join(repoRoot, 'node_modules', '.bin', 'esbuild'),
      ['main.js', '--bundle', '--minify', '--format=esm', '--platform=browser', '--outfile=esbuild-out.js'],
      { cwd: join(project, app), stdio: 'pipe' },
    );
    const bundle = readFileSync(join(project, app, 'esbuild-out.js'), 'utf8');
    expect(gzipped(bundle)).toBeLessThanOrEqual(budgets[app]);
    // The README's figure for this app is its size rounded up to a whole KB (it said 72 and 76 KB for
    // weeks after the apps had reached 78 and 82).
    expect(readmeKB[app]).toBe(Math.ceil(gzipped(bundle) / 1000));
    expect(await runInChromium(bundle)).toBe(expected);
  });

  test('built by Vite: within its budget, and runs in Chromium', async () => {
    execFileSync(join(repoRoot, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn', '--outDir', 'out'], {
      cwd: join(project, app),
      stdio: 'pipe',
    });
    const assets = join(project, app, 'out', 'assets');
    const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
    expect(scripts).toHaveLength(1);
    const bundle = readFileSync(join(assets, scripts[0]), 'utf8');
    expect(gzipped(bundle)).toBeLessThanOrEqual(viteBudgets[app]);
    expect(await runInChromium(bundle)).toBe(expected);
  });
});

// A bundle for Node keeps the Node entry's own statement (it hands the loader node:zlib's inflater, 25 ms
// faster than DecompressionStream's first use there), although the app uses only index.js's exports.
test('bundled by esbuild for Node, the filter app inflates the wasm with node:zlib, and runs', () => {
  const app = join(project, 'filter');
  writeFileSync(
    join(app, 'node-main.mjs'),
    'import { ready, CuckooFilter } from "cuckoo-wasm";\nawait ready();\nconst f = new CuckooFilter({ capacity: 10 });\nf.add("x");\nconsole.log(f.has("x"), f.has("y"));\n',
  );
  execFileSync(
    join(repoRoot, 'node_modules', '.bin', 'esbuild'),
    ['node-main.mjs', '--bundle', '--minify', '--format=esm', '--platform=node', '--outfile=node-out.mjs'],
    { cwd: app, stdio: 'pipe' },
  );
  expect(readFileSync(join(app, 'node-out.mjs'), 'utf8')).toContain('node:zlib');
  expect(execFileSync('node', ['node-out.mjs'], { cwd: app, encoding: 'utf8' }).trim()).toBe('true false');
});
