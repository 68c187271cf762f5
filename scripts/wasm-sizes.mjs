// Where a wasm module's bytes go: its sections, its code by part of the library, and its largest functions.
//
//   node scripts/wasm-sizes.mjs [MODULE.wasm] [--top N]
//
// MODULE is a build that kept its functions' names (the CMake targets cuckoo_wasm_names and
// cuckoo_redis_wasm_names link the package's modules with --profiling-funcs, which changes nothing else;
// `npm run sizes` builds the first and lists it). Sizes are of the code before gzip; the shipped module is
// about 2.4 times smaller gzipped, evenly enough that the shares hold.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 25;
const file = args[0] ?? 'build/wasm/names/cuckoo_wasm_names.wasm';
const bytes = readFileSync(file);

// The binary format (webassembly.github.io/spec, "Binary Format"): sections of (id, LEB128 size, body).
let at = 8;
const u32 = () => {
  let result = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[at++];
    result += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return result;
};
const name = () => {
  const length = u32();
  at += length;
  return bytes.toString('utf8', at - length, at);
};
const sectionNames = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start'];
sectionNames.push('element', 'code', 'data', 'data count');
/** @type {[string, number][]} */
const sections = [];
const bodies = []; // code size of each defined function, in order
const names = new Map(); // function index -> name
let imported = 0;
while (at < bytes.length) {
  const id = bytes[at++];
  const size = u32();
  const end = at + size;
  let label = sectionNames[id] ?? `section ${id}`;
  if (id === 2) {
    for (let n = u32(); n > 0; n--) {
      name();
      name();
      const kind = bytes[at++];
      if (kind === 0) {
        u32();
        imported++;
      } else if (kind === 1) {
        at++;
        if (u32() & 1) u32();
        u32();
      } else if (kind === 2) {
        if (u32() & 1) u32();
        u32();
      } else at += 2; // a global: value type and mutability
    }
  } else if (id === 10) {
    for (let n = u32(); n > 0; n--) {
      const length = u32();
      bodies.push(length);
      at += length;
    }
  } else if (id === 0) {
    label = `custom "${name()}"`;
    if (label === 'custom "name"') {
      while (at < end) {
        const sub = bytes[at++];
        const subEnd = u32() + at;
        if (sub === 1) for (let n = u32(); n > 0; n--) names.set(u32(), name());
        at = subEnd;
      }
    }
  }
  sections.push([label, size]);
  at = end;
}
if (names.size === 0) throw new Error(`${file} has no function names: list a build linked with --profiling-funcs`);

let demangled = [...names.values()];
try {
  demangled = execFileSync('c++filt', { input: demangled.join('\n'), encoding: 'utf8' }).split('\n');
} catch {
  // No c++filt: the mangled names still tell the parts apart.
}
const nameOf = new Map([...names.keys()].map((index, i) => [index, demangled[i]]));

// The parts of the library, first match wins (a function inlined into another counts where it landed).
/** @type {[string, RegExp][]} */
const parts = [
  ['line deduplicator (line_dedup.hpp, its bindings)', /LineDeduper|LineRules|dedup_|Dedup/],
  ['growth in place (doubling_filter.hpp)', /DoublingFilter|in_place_shape/],
  ['joins (merge, union)', /combine|merge|union|mergeable/],
  ['export and import (format.hpp)', /format::|Importer|Exporter|Checksum|import_|export_|declared_length/],
  ['batches (addMany, hasMany, deleteMany, integer keys)', /_many|_hashes|PackedOrWideKeys|integer_batch|_ranges/],
  ['semi-sorted buckets', /semi_sort/],
  ['hashing (XXH3)', /XXH|KeyHasher/],
  ['allocator (Emscripten\'s dlmalloc)', /malloc|free|dispose_chunk|dlrealloc|dlcalloc|sbrk|tmalloc|prepend_alloc|memalign|operator new|operator delete/],
  ['embind and the C++ runtime', /embind|__cxxabiv1|__cxa|__wasm_call_ctors|emscripten::|typeinfo|std::__2::basic_string/],
  ['the table, its kicks and the chain (add, has, delete, create)', /CuckooFilter|SubFilter|BucketTable|Options|create|destroy|add|contains|remove|count/],
];
/** @type {Map<string, number>} */
const totals = new Map(parts.map(([label]) => [label, 0]));
totals.set('other (libc, math, small helpers)', 0);
const rows = bodies.map((size, i) => ({ size, name: nameOf.get(i + imported) ?? `function ${i + imported}` }));
for (const row of rows) {
  const part = parts.find(([, pattern]) => pattern.test(row.name));
  const label = part ? part[0] : 'other (libc, math, small helpers)';
  totals.set(label, (totals.get(label) ?? 0) + row.size);
}

const code = bodies.reduce((a, b) => a + b, 0);
const pad = (n) => String(n).padStart(8);
const share = (n, of) => `${((100 * n) / of).toFixed(1).padStart(5)}%`;
const shipped = sections.filter(([label]) => label !== 'custom "name"').reduce((a, [, size]) => a + size, 0);
console.log(`${file}: ${shipped} bytes without its names, ${bodies.length} functions\n\nsections`);
for (const [label, size] of sections) if (label !== 'custom "name"') console.log(`${pad(size)} ${share(size, shipped)}  ${label}`);
console.log(`\ncode by part (${code} bytes of function bodies)`);
for (const [label, size] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`${pad(size)} ${share(size, code)}  ${label}`);
console.log(`\nthe ${top} largest functions`);
for (const row of rows.sort((a, b) => b.size - a.size).slice(0, top)) {
  console.log(`${pad(row.size)} ${share(row.size, code)}  ${row.name.length > 110 ? `${row.name.slice(0, 107)}...` : row.name}`);
}
