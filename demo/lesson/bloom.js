// The foil: a Bloom filter holding the same keys as the page's cuckoo filter, sized for the same target
// rate, drawn bit by bit, and the chart of what each costs per item. The Bloom filter is a few lines
// written for this page (it only has to show why bits shared by keys forbid deletes); the cuckoo side is
// the library's real sizing.
import { decades, drawChart, linearTicks } from './charts.js';
import { $, percent, plural, quote, svgElement } from './text.js';
import { bloomBitsPerItem, crossover, cuckooSizing, formulaCrossover, fullLoadBound, LOAD_REACHED, rateGrid, RATE_RANGE, tableBytes } from './sizing.js';

/** An optimal Bloom filter for n keys at rate p: m bits and k hash functions. */
export function bloomShape(n, rate) {
  const m = Math.ceil((n * Math.log(1 / rate)) / Math.LN2 ** 2);
  return { m, k: Math.max(1, Math.round((m / n) * Math.LN2)) };
}

/** The k bits of a key, by double hashing its 64-bit hash: (h1 + i h2) mod m (Kirsch and Mitzenmacher). */
export function bloomBits(hash, { m, k }) {
  const h1 = hash & 0xffffffffn;
  const h2 = (hash >> 32n) | 1n;
  const bits = new Set();
  for (let i = 0n; i < BigInt(k); i++) bits.add(Number((h1 + i * h2) % BigInt(m)));
  return [...bits].sort((a, b) => a - b);
}

const CELL = 11;

// What is drawn, kept between calls: rebuilding all the rectangles (8,400 for a 64 x 8 table of 16-bit
// fingerprints) made each insert take 150 ms, so they are built once per shape and width, and a call
// only changes the class of the bits whose state changed.
const drawn = { id: '', cells: [], classes: [], owners: [] };
// A key's bits, per filter and shape: finding them needs the key's hash from the filter.
const bitsCache = new WeakMap();

function keyBits(filter, shape, key) {
  const id = `${shape.m}:${shape.k}`;
  let cache = bitsCache.get(filter);
  if (cache?.id !== id) {
    cache = { id, bits: new Map() };
    bitsCache.set(filter, cache);
  }
  let bits = cache.bits.get(key);
  if (bits === undefined) {
    bits = bloomBits(filter.locate(key).hash, shape);
    cache.bits.set(key, bits);
  }
  return bits;
}

function buildCells(svg, m, columns) {
  const rows = Math.ceil(m / columns);
  svg.setAttribute('viewBox', `0 0 ${columns * CELL} ${rows * CELL}`);
  svg.setAttribute('width', String(columns * CELL));
  svg.setAttribute('height', String(rows * CELL));
  const fragment = document.createDocumentFragment();
  const cells = [];
  for (let bit = 0; bit < m; bit++) {
    cells.push(svgElement('rect', {
      x: (bit % columns) * CELL, y: Math.floor(bit / columns) * CELL, width: CELL - 2, height: CELL - 2, rx: 2, class: 'bit', 'data-bit': bit, 'data-keys': 0,
    }, undefined, fragment));
  }
  svg.replaceChildren(fragment);
  return cells;
}

/**
 * Draws the Bloom filter of `keys` (a Map of key -> copies, or null when the keys are unknown) beside
 * `filter`, whose shape sets the target rate. `focus` is a key to outline; `lost` maps keys the cuckoo
 * filter lost to an unsafe delete to the key whose delete did it.
 */
export function drawBloom(filter, keys, focus, lost = new Map()) {
  const rate = fullLoadBound(filter.bucketSize, filter.fingerprintBits);
  const n = filter.capacity;
  const shape = bloomShape(n, rate);
  const owners = Array.from({ length: shape.m }, () => []);
  const bitsOf = new Map();
  for (const key of keys?.keys() ?? []) {
    const bits = keyBits(filter, shape, key);
    bitsOf.set(key, bits);
    for (const bit of bits) owners[bit].push(key);
  }
  const svg = $('bloom-bits');
  const width = Math.max(200, ($('bloom-box').clientWidth || 600) - 8);
  const columns = Math.max(8, Math.floor(width / CELL));
  const id = `${shape.m}:${columns}`;
  if (drawn.id !== id || drawn.cells[0]?.parentNode !== svg) {
    drawn.id = id;
    drawn.cells = buildCells(svg, shape.m, columns);
    drawn.classes = new Array(shape.m).fill('bit');
  }
  drawn.owners = owners;
  const focused = new Set(focus ? bitsOf.get(focus) ?? [] : []);
  let set = 0;
  let shared = 0;
  for (let bit = 0; bit < shape.m; bit++) {
    const count = owners[bit].length;
    if (count > 0) set++;
    if (count > 1) shared++;
    const name = `bit${count === 0 ? '' : count === 1 ? ' set' : ' shared'}${focused.has(bit) ? ' focus' : ''}`;
    if (drawn.classes[bit] !== name) {
      drawn.classes[bit] = name;
      drawn.cells[bit].setAttribute('class', name);
      drawn.cells[bit].setAttribute('data-keys', String(count));
    }
  }
  const cuckooBytes = tableBytes(filter);
  const summary = `For ${plural(n, 'key')} at ε = ${percent(rate)} (what this ${filter.bucketSize}-slot, ${filter.fingerprintBits}-bit table is sized for), ` +
    `a Bloom filter needs ${plural(shape.m, 'bit')} (${Math.ceil(shape.m / 8)} bytes; the cuckoo table: ${cuckooBytes} bytes) and ${plural(shape.k, 'hash function')}. ` +
    (keys === null
      ? 'The keys of an imported filter are unknown, so this Bloom filter stays empty.'
      : `${plural(keys.size, 'key')}: ${plural(set, 'bit')} set, ${plural(shared, 'bit')} set by two keys or more (dark).`);
  $('bloom-summary').textContent = summary;
  // A counting Bloom filter is the Bloom filter that can delete: each bit becomes a 4-bit counter.
  $('bloom-counting').textContent = `A counting Bloom filter can delete: each bit becomes a counter (usually 4 bits) that an insert ` +
    `increments and a delete decrements, so it takes about 4 times the space: ${plural(4 * shape.m, 'bit')} ` +
    `(${Math.ceil((4 * shape.m) / 8)} bytes) here, against the cuckoo table's ${cuckooBytes} bytes. Deleting a key that was never ` +
    'added is as unsafe there: it decrements other keys\' counters.';
  const kept = [...lost].filter(([key]) => bitsOf.has(key));
  $('bloom-delete').textContent = [
    whyNoDelete(focus ?? [...(keys?.keys() ?? [])].pop(), bitsOf, owners),
    ...kept.map(([key, by]) => `${quote(key)} is still here, its ${bitsOf.get(key).length === 1 ? 'bit' : 'bits'} set: a Bloom filter has no delete, ` +
      `so nothing removed ${bitsOf.get(key).length === 1 ? 'it' : 'them'}, and it still answers "possibly present" for ${quote(key)}. ` +
      `In the cuckoo filter, deleting ${quote(by)}, which was never added, removed ${quote(key)}'s fingerprint.`),
  ].join(' ');
}

// A bit's tooltip names its keys, written when it is pointed at rather than for every bit at every call.
$('bloom-bits').addEventListener('mouseover', (event) => {
  const cell = event.target;
  if (!(cell instanceof SVGRectElement)) return;
  const keys = drawn.owners[Number(cell.getAttribute('data-bit'))];
  if (keys === undefined) return;
  cell.replaceChildren();
  if (keys.length > 0) svgElement('title', {}, `bit ${cell.getAttribute('data-bit')}: set by ${keys.map(quote).join(', ')}`, cell);
});

/** "bit 7" or "bits 3, 7, 12": a key's bits can be fewer than k (one hash function, or two that agree). */
function bitList(bits) {
  return `${bits.length === 1 ? 'bit' : 'bits'} ${bits.join(', ')}`;
}

function whyNoDelete(key, bitsOf, owners) {
  if (key === undefined) return 'Insert a few keys to see them here as bits.';
  const bits = bitsOf.get(key) ?? [];
  const others = new Set();
  const sharedBits = [];
  for (const bit of bits) {
    const sharers = owners[bit].filter((other) => other !== key);
    if (sharers.length > 0) sharedBits.push(bit);
    for (const other of sharers) others.add(other);
  }
  if (sharedBits.length === 0) {
    return `${quote(key)} sets ${bitList(bits)}; ${bits.length === 1 ? 'it is not' : 'none is'} shared yet. As the filter fills, almost every bit is shared: ` +
      'clearing a key\'s bits to delete it would then erase other keys too.';
  }
  const names = [...others].slice(0, 4).map(quote).join(', ') + (others.size > 4 ? ` and ${others.size - 4} more` : '');
  const also = bits.length === 1 ? 'it is' : `${plural(sharedBits.length, 'of them is', 'of them are')}`;
  return `${quote(key)} sets ${bitList(bits)}; ${also} also set by ${names}. ` +
    `Clearing ${bits.length === 1 ? 'it' : 'them'} to delete ${quote(key)} would make ${others.size === 1 ? 'that key' : 'those keys'} "definitely not present" — a false negative. ` +
    'So a Bloom filter cannot delete; the cuckoo filter removes one fingerprint from one slot.';
}

/** The chart of bits per item against the false-positive rate, and the sentence that reads it. */
export function drawSizing() {
  const grid = rateGrid(160);
  const series = [2, 4, 8].map((slots) => ({
    name: `cuckoo filter, ${slots} slots per bucket (this library)`,
    className: `cuckoo-${slots}`,
    kind: 'line',
    points: grid.map((rate) => ({ x: rate, y: cuckooSizing(rate, slots).bitsPerItem })),
  }));
  series.push({
    name: 'cuckoo filter, 4 slots, semi-sorted (semiSorted: true)',
    className: 'cuckoo-semi',
    kind: 'line',
    points: grid.map((rate) => ({ x: rate, y: cuckooSizing(rate, 4, true).bitsPerItem })),
  });
  series.push({ name: 'optimal Bloom filter: log2(1/ε) / ln 2', className: 'bloom-line', kind: 'line', points: grid.map((rate) => ({ x: rate, y: bloomBitsPerItem(rate) })) });
  const points = crossoverPoints();
  const yMax = Math.ceil(Math.max(...series.flatMap((s) => s.points.map((p) => p.y))) / 5) * 5;
  drawChart($('chart-sizing'), $('legend-sizing'), {
    x: { min: RATE_RANGE[0], max: RATE_RANGE[1], log: true, label: 'false-positive rate ε (log scale)', ticks: decades(...RATE_RANGE), format: (v) => percent(v) },
    y: { min: 0, max: yMax, label: 'bits per item', ticks: linearTicks(yMax, 5), format: (v) => String(v) },
    series,
    markers: points.filter((p) => p.first !== undefined).map((p) => ({
      x: p.first, label: `${p.semiSorted ? 'semi-sorted' : `b = ${p.slots}`}: ${percent(p.first)}`, className: p.semiSorted ? 'cuckoo-semi' : `cuckoo-${p.slots}`,
    })),
  });
  const formula = [2, 4, 8].map((slots) => `${percent(formulaCrossover(slots))} for b = ${slots} (α = ${Math.round(LOAD_REACHED[slots] * 100)}%)`);
  $('sizing-formula-cross').textContent = `By the formula, a cuckoo filter becomes the smaller one below about ${formula.join(', ')}, ` +
    `and ${percent(formulaCrossover(4, true))} semi-sorted; the library's real filters, marked on the chart, at about ` +
    `${points.map((p) => (p.first === undefined ? 'never' : percent(p.first))).join(', ')} in the same order. They differ because the library ` +
    'rounds each fingerprint up to whole bits (the steps in its lines) and sizes its tables for loads of its own, not exactly these α.';
  const say = (p) => (p.first === undefined ? 'never, in this range' : `${percent(p.first)} and ${percent(p.always)}`);
  const [two, four, eight, semi] = points;
  $('sizing-text').textContent = 'With this library\'s sizing, a cuckoo filter with 4 slots per bucket (the default) first takes fewer bits per item ' +
    `than an optimal Bloom filter at a false-positive rate of about ${percent(four.first)}, and does so at every rate below about ${percent(four.always)} ` +
    '(in between the two alternate, because fingerprints grow in whole bits). ' +
    `With 2 slots: ${say(two)}; with 8 slots: ${say(eight)}. Above that the Bloom filter is smaller, but it cannot delete. ` +
    'The paper\'s crossover of about 3% assumes semi-sorted buckets, which save one bit per item. With them (4 slots, the option ' +
    `semiSorted: true), this library's filters first take fewer bits than the Bloom filter at about ${semi.first === undefined ? '(never, in this range)' : `${percent(semi.first)}, and at every rate below about ${percent(semi.always)}`}.`;
  return points;
}

export function crossoverPoints() {
  return [
    ...[2, 4, 8].map((slots) => ({ slots, semiSorted: false, ...crossover(slots) })),
    { slots: 4, semiSorted: true, ...crossover(4, undefined, true) },
  ];
}
