// The published artefact: `npm pack`, installed into an empty project, used from ESM and CommonJS.
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './helpers';

let project: string;
let tarball: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'cuckoo-wasm-pack-'));
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', project], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const info = JSON.parse(packed)[0] as { filename: string; files: Array<{ path: string }> };
  tarball = join(project, info.filename);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: project, stdio: 'ignore' });
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

const script = (load: string) => `${load}
(async () => {
  await ready();
  const f = new CuckooFilter({ capacity: 1000, fpRate: 0.001 });
  const results = [f.add('hello'), f.has('hello'), f.has('absent'), f.hasMany(['hello', 'x'])];
  const copy = CuckooFilter.import(f.export());
  results.push(copy.has('hello'));
  let code = '';
  try { CuckooFilter.import(new Uint8Array(10)); } catch (e) { code = e instanceof CuckooFilterError ? e.code : 'wrong type'; }
  results.push(code);
  f.dispose(); copy.dispose();
  console.log(JSON.stringify(results));
})();
`;

const expected = JSON.stringify([true, true, false, [true, false], true, 'BAD_FORMAT']);

test('the tarball holds the built package and nothing else of the repo', () => {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
  expect(listing).toEqual(expect.arrayContaining([
    'package/package.json', 'package/js/dist/esm/index.js', 'package/js/dist/cjs/index.js',
    'package/js/dist/types/index.d.ts', 'package/js/dist/generated/cuckoo_wasm.mjs', 'package/README.md',
    'package/js/dist/bin/cuckoo.mjs',
  ]));
  expect(listing.filter((p) => p.startsWith('package/cpp/') || p.startsWith('package/tests/'))).toEqual([]);
});

test('stays within its size budget: all JavaScript, wasm included, at most 60 KB gzipped', () => {
  const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter((p) => /\.(c|m)?js$/.test(p));
  const code = Buffer.concat(listing.map((p) => execFileSync('tar', ['-xzOf', tarball, p])));
  const gzipped = gzipSync(code, { level: 9 }).length;
  expect(listing.length).toBeGreaterThanOrEqual(10);
  expect(gzipped).toBeLessThanOrEqual(60_000);
});

test('works from an ES module', () => {
  writeFileSync(join(project, 'use.mjs'), script("import { ready, CuckooFilter, CuckooFilterError } from 'cuckoo-wasm';"));
  expect(execFileSync('node', ['use.mjs'], { cwd: project, encoding: 'utf8' }).trim()).toBe(expected);
});

test('works from CommonJS', () => {
  writeFileSync(join(project, 'use.cjs'), script("const { ready, CuckooFilter, CuckooFilterError } = require('cuckoo-wasm');"));
  expect(execFileSync('node', ['use.cjs'], { cwd: project, encoding: 'utf8' }).trim()).toBe(expected);
});

test('has no install scripts', () => {
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[hook]).toBeUndefined();
  expect(readdirSync(join(project, 'node_modules', 'cuckoo-wasm'))).toContain('js');
});

test('installs the cuckoo command', () => {
  const out = execFileSync(join(project, 'node_modules', '.bin', 'cuckoo'), ['dedup'], { cwd: project, input: 'b\na\nb\n', encoding: 'utf8' });
  expect(out).toBe('b\na\n');
});
