// scripts/wasm-sizes.mjs, the listing docs/PERFORMANCE.md's "What the package weighs" comes from: run on
// the build's module linked with its functions' names (scripts/build.sh builds it).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers';

const script = join(repoRoot, 'scripts', 'wasm-sizes.mjs');

// The size of a module's code section (the binary format: sections of id, LEB128 size, body).
function codeSectionBytes(path: string): number {
  const bytes = readFileSync(path);
  let at = 8;
  const u32 = () => {
    let result = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++];
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = u32();
    if (id === 10) return size;
    at += size;
  }
  return 0;
}

test('lists the code of the module the package ships, by part of the library', () => {
  const out = execFileSync('node', [script, join(repoRoot, 'build/wasm/names/cuckoo_wasm_names.wasm'), '--top', '3'], {
    encoding: 'utf8',
  });
  const code = Number(/^code by part \((\d+) bytes of function bodies\)$/m.exec(out)?.[1]);
  const partsText = out.slice(out.indexOf('code by part'), out.indexOf('the 3 largest'));
  const parts = [...partsText.matchAll(/^\s*(\d+)\s+[\d.]+%\s+(.+)$/gm)].map((m) => [m[2], Number(m[1])] as const);
  expect(code).toBeGreaterThan(50_000);
  // The build with names is the shipped module's code: its code section is the same size, to a few bytes
  // (the two links may order the functions differently, and a call's function index is a LEB128 of one
  // or two bytes: 158,313 against 158,310 on 2026-11-29, the same functions).
  const listedSection = Number(/^\s*(\d+)\s+[\d.]+%\s+code$/m.exec(out)?.[1]);
  expect(Math.abs(listedSection - codeSectionBytes(join(repoRoot, 'js/generated/cuckoo_wasm.wasm')))).toBeLessThan(64);
  expect(parts.reduce((sum, [, size]) => sum + size, 0)).toBe(code);
  // Each part is found in the module (a renamed function would move its bytes to another part).
  for (const [label, size] of parts) expect([label, size > 0]).toEqual([label, true]);
  expect(parts.map(([label]) => label)).toEqual(
    expect.arrayContaining(['line deduplicator (line_dedup.hpp, its bindings)', 'hashing (XXH3)']),
  );
  expect(out.split('the 3 largest functions\n')[1].trim().split('\n')).toHaveLength(3);
});

test('says so for a module without names, such as the one the package ships', () => {
  const run = spawnSync('node', [script, join(repoRoot, 'js/generated/cuckoo_wasm.wasm')], { encoding: 'utf8' });
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('has no function names: list a build linked with --profiling-funcs');
});
