// The package bundled as users bundle it, run in Chromium: esbuild and Vite, each from a project that
// depends on cuckoo-wasm (the repository, linked as node_modules/cuckoo-wasm) and imports it by name.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium, repoRoot } from './browser';

const main = `import { ready, CuckooFilter } from 'cuckoo-wasm';
await ready();
const f = new CuckooFilter({ capacity: 1000 });
f.addMany(['a', 'b']);
const copy = CuckooFilter.fromJSON(JSON.stringify(f));
document.body.dataset.result = JSON.stringify([f.has('a'), f.has('zz'), copy.has('b'), String(f).split(',')[0]]);
`;
const expected = JSON.stringify([true, false, true, 'CuckooFilter { size: 2']);

let project: string;
let browser: Browser;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'cuckoo-bundle-'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(repoRoot, join(project, 'node_modules', 'cuckoo-wasm'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'bundled', private: true, type: 'module' }));
  writeFileSync(join(project, 'main.js'), main);
  writeFileSync(
    join(project, 'index.html'),
    '<!doctype html><body><script type="module" src="./main.js"></script></body>\n',
  );
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

test('an esbuild bundle runs in Chromium', async () => {
  execFileSync(
    join(repoRoot, 'node_modules', '.bin', 'esbuild'),
    ['main.js', '--bundle', '--format=esm', '--platform=browser', '--outfile=esbuild-out.js', '--log-level=warning'],
    { cwd: project, stdio: 'pipe' },
  );
  expect(await runInChromium(readFileSync(join(project, 'esbuild-out.js'), 'utf8'))).toBe(expected);
});

test('a Vite build runs in Chromium', async () => {
  execFileSync(
    join(repoRoot, 'node_modules', '.bin', 'vite'),
    ['build', '--logLevel', 'warn', '--outDir', 'vite-out'],
    { cwd: project, stdio: 'pipe' },
  );
  const assets = join(project, 'vite-out', 'assets');
  const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
  expect(scripts).toHaveLength(1);
  expect(await runInChromium(readFileSync(join(assets, scripts[0]), 'utf8'))).toBe(expected);
});
