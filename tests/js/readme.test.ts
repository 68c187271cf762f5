// The README's code examples, run as they are written (only the package import is pointed at the build).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ts from 'typescript';
import { CuckooFilter, ready } from '../../js/src/index';
import { repoRoot } from './helpers';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const block = (language: string) => {
  const match = readme.match(new RegExp('```' + language + '\\n([\\s\\S]*?)```'));
  if (!match) throw new Error(`no ${language} block in README.md`);
  return match[1];
};
const tsBlocks = () => [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-readme-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the lite entry's example runs, and what it says of the export is true", async () => {
  const source = tsBlocks().find((code) => code.includes("from 'cuckoo-wasm/lite'"));
  expect(source).toBeDefined();
  const lite = `from ${JSON.stringify(join(repoRoot, 'js', 'dist', 'esm', 'lite.js'))}`;
  const full = JSON.stringify(join(repoRoot, 'js', 'dist', 'esm', 'index.js'));
  const program = `Symbol.dispose ??= Symbol.for('Symbol.dispose');
import { ready as fullReady, CuckooFilter as Full } from ${full};
${source!.replace("from 'cuckoo-wasm/lite'", lite).replace(/^(shown\.addIfAbsent\('item-42'\));\s*\/\/ (true|false)$/gm, "if ($1 !== $2) throw new Error('$1');")}
await fullReady();
const again = new Full({ capacity: 10_000, fpRate: 0.001 });
again.addIfAbsent('item-42');
if (Buffer.compare(Buffer.from(again.export()), Buffer.from(saved)) !== 0) throw new Error('different bytes');
if (!Full.import(saved).has('item-42') || !CuckooFilter.import(again.export()).has('item-42')) throw new Error('not read');
console.log('ok');`;
  const js = ts.transpileModule(program, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText;
  const file = join(dir, 'lite.mjs');
  writeFileSync(file, js);
  expect(execFileSync('node', [file], { encoding: 'utf8' }).trim()).toBe('ok');
});

test('the TypeScript example runs', () => {
  const source = block('ts').replace(
    "from 'cuckoo-wasm'",
    `from ${JSON.stringify(join(repoRoot, 'js', 'dist', 'esm', 'index.js'))}`,
  );
  // Every expression statement with a `// value` comment is checked against that value.
  const checked = source.replace(
    /^(\w+\.\w+\([^)]*\));\s*\/\/ (true|false|\[[^\]]*\])(?!\w).*$/gm,
    (_line, call: string, value: string) => `check(${JSON.stringify(call)}, ${call}, ${value});`,
  );
  const program = `Symbol.dispose ??= Symbol.for('Symbol.dispose');
const check = (what, actual, expected) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(what + ' gave ' + JSON.stringify(actual));
};
${checked}
console.log('ok');`;
  const js = ts.transpileModule(program, {
    compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext },
  }).outputText;
  writeFileSync(join(dir, 'example.mjs'), js);
  expect(checked.match(/check\(/g)?.length).toBeGreaterThanOrEqual(7);
  expect(execFileSync('node', [join(dir, 'example.mjs')], { encoding: 'utf8' }).trim()).toBe('ok');
});

test('the C++ example compiles and runs', () => {
  const body = block('cpp');
  const includes = body
    .split('\n')
    .filter((line) => line.startsWith('#include'))
    .join('\n');
  const statements = body
    .split('\n')
    .filter((line) => !line.startsWith('#include'))
    .join('\n    ');
  writeFileSync(
    join(dir, 'example.cpp'),
    `${includes}
#include <cstdio>
int main() {
    ${statements}
    return maybe && copy.contains("user-42") ? 0 : 1;
}
`,
  );
  const exe = join(dir, 'example');
  execFileSync('g++', [
    '-std=c++20',
    '-O1',
    `-I${join(repoRoot, 'cpp', 'include')}`,
    `-I${join(repoRoot, 'build', 'native', 'vendor-include')}`,
    join(dir, 'example.cpp'),
    '-o',
    exe,
  ]);
  execFileSync(exe);
});

test('the RedisCuckooFilter example runs, and its chunks read back', () => {
  const match = readme.match(/```js\n(import \{ RedisCuckooFilter \} from 'cuckoo-wasm\/redis';[\s\S]*?)```/);
  if (!match) throw new Error('no cuckoo-wasm/redis example in README.md');
  const entry = JSON.stringify(join(repoRoot, 'js', 'dist', 'esm', 'redis.js'));
  const source = `${match[1].replace("from 'cuckoo-wasm/redis'", `from ${entry}`)}
const copy = await RedisCuckooFilter.fromChunks(chunks);
console.log(copy.has('user-42') && chunks.length === 2 ? 'ok' : 'wrong');`;
  writeFileSync(join(dir, 'redis-example.mjs'), source);
  expect(execFileSync('node', [join(dir, 'redis-example.mjs')], { encoding: 'utf8' }).trim()).toBe('ok');
});

test('the semi-sorted example gives the byteLength it states, one bit less per item than plain buckets', async () => {
  const snippet = tsBlocks()
    .find((code) => code.includes('using small = '))
    ?.match(/([\s\S]*)/);
  expect(snippet).not.toBeUndefined();
  const stated = snippet![1].match(
    /small\.byteLength;\s*\/\/ ([\d,]+) bytes: ([\d.]+) bits per item \(([\d.]+) without semiSorted\)/,
  );
  expect(stated).not.toBeNull();
  await ready();
  using small = new CuckooFilter({ capacity: 1_000_000, fpRate: 0.001, semiSorted: true });
  using plain = new CuckooFilter({ capacity: 1_000_000, fpRate: 0.001 });
  expect(small.byteLength).toBe(Number(stated![1].replace(/,/g, '')));
  expect((((small.byteLength - 8) * 8) / 1e6).toFixed(2)).toBe(stated![2]);
  expect((((plain.byteLength - 8) * 8) / 1e6).toFixed(2)).toBe(stated![3]);
});

test('the semi-sorted section states where 4-slot filters become smaller than a Bloom filter, as the library sizes them', async () => {
  const claim = readme.match(
    /first takes fewer bits than an optimal Bloom filter at about ([\d.]+)% false positives, and at\s+every rate below about ([\d.]+)% \(without: ([\d.]+)% and ([\d.]+)%/,
  );
  expect(claim).not.toBeNull();
  await ready();
  // The demo's grid and reading (demo/lesson/sizing.js): 240 rates from 20% down to 1e-6, log-spaced.
  const grid = Array.from({ length: 240 }, (_, i) =>
    Math.exp(Math.log(0.2) - ((Math.log(0.2) - Math.log(1e-6)) * i) / 239),
  );
  const bloom = (rate: number) => Math.log2(1 / rate) / Math.LN2;
  const crossover = (semiSorted: boolean) => {
    const smaller = grid.map((fpRate) => {
      using f = new CuckooFilter({ capacity: 100_000, fpRate, semiSorted });
      return (f.byteLength * 8) / f.capacity <= bloom(fpRate);
    });
    let always = 0;
    for (let i = grid.length - 1; i >= 0 && smaller[i]; i--) always = grid[i];
    return [grid[smaller.indexOf(true)], always];
  };
  const shown = (p: number) => Number((p * 100).toPrecision(2));
  expect([...crossover(true), ...crossover(false)].map(shown)).toEqual(claim!.slice(1, 5).map(Number));
});

test('every TypeScript example type-checks against the package as written, and runs', () => {
  // Each is a module of its own, as a reader would paste it: only the package name points at the build.
  const entry = join(repoRoot, 'js', 'dist', 'esm', 'index.js');
  const blocks = tsBlocks();
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  const files = blocks.map((code, i) => {
    const file = join(dir, `block-${i}.mts`);
    const lite = join(repoRoot, 'js', 'dist', 'esm', 'lite.js');
    writeFileSync(
      file,
      code
        .replace("from 'cuckoo-wasm/lite'", `from ${JSON.stringify(lite)}`)
        .replace("from 'cuckoo-wasm'", `from ${JSON.stringify(entry)}`),
    );
    return file;
  });
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.esnext.disposable.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
  });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? d.file.fileName.replace(dir, '') : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
  expect(problems).toEqual([]);
  for (const file of files) {
    const js = ts.transpileModule(`Symbol.dispose ??= Symbol.for('Symbol.dispose');\n${readFileSync(file, 'utf8')}`, {
      compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext },
    }).outputText;
    writeFileSync(file.replace(/\.mts$/, '.mjs'), js);
    execFileSync('node', [file.replace(/\.mts$/, '.mjs')], { encoding: 'utf8' });
  }
});
