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
// only changes the class of the bits whose state changed. Each bit's state is a small code (how many keys
// set it: none, one, several; pointed at; set by a key deleted from the cuckoo filter), compared with the
// one drawn, so that a call costs a pass over typed arrays and touches only the bits that changed.
const drawn = { id: '', cells: [], codes: new Uint8Array(0), counts: new Uint16Array(0), bitsOf: new Map() };
const FOCUS = 4;
const STUCK = 8;

function className(code) {
  const level = code & 3;
  return `bit${level === 1 ? ' set' : level === 2 ? ' shared' : ''}${code & STUCK ? ' stuck' : ''}${code & FOCUS ? ' focus' : ''}`;
}
const CLASS_NAMES = Array.from({ length: 16 }, (_, code) => className(code));

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
  // The box's height while it is off screen (and not rendered): the drawing's, within its 240 px.
  $('bloom-box').style.containIntrinsicSize = `auto ${Math.min(240, rows * CELL + 10)}px`;
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

// The box's width, from a resize observer: read from the box at every call, it forced a layout of the whole
// page in the middle of a replay step (the page redraws the panel itself after a resize).
const box = { width: 0, watched: false };

function boxWidth() {
  if (!box.watched) {
    box.watched = true;
    new ResizeObserver(() => {
      box.width = $('bloom-box').clientWidth;
    }).observe($('bloom-box'));
  }
  if (box.width === 0) box.width = $('bloom-box').clientWidth;
  return box.width;
}

/** The keys (of those drawn) that set `bit`. */
/** What the drawn Bloom filter holds of `key`: its bits, those other keys set too, and those keys' names. */
export function bitsSharedBy(key) {
  const counts = new Map();
  for (const bits of drawn.bitsOf.values()) for (const bit of bits) counts.set(bit, (counts.get(bit) ?? 0) + 1);
  return sharers(key, drawn.bitsOf, (bit) => counts.get(bit) ?? 0);
}

function ownersOf(bit) {
  const out = [];
  for (const [key, bits] of drawn.bitsOf) if (bits.includes(bit)) out.push(key);
  return out;
}

/**
 * Draws the Bloom filter of `keys` (a Map of key -> copies, or null when the keys are unknown) beside
 * `filter`, whose shape sets the target rate. `focus` is a key to outline; `lost` maps keys the cuckoo
 * filter lost to an unsafe delete to the key whose delete did it; `deleted` holds the keys deleted from
 * the cuckoo filter (the last one last). A Bloom filter cannot delete, so those keys keep their bits here:
 * the drawing never performs the delete it says is impossible.
 */
export function drawBloom(filter, keys, focus, lost = new Map(), deleted = new Set()) {
  const rate = fullLoadBound(filter.bucketSize, filter.fingerprintBits);
  const n = filter.capacity;
  const shape = bloomShape(n, rate);
  const gone = keys === null ? [] : [...deleted].filter((key) => !keys.has(key));
  const members = keys === null ? [] : [...keys.keys(), ...gone];
  const counts = new Uint16Array(shape.m);
  const stuck = new Uint8Array(shape.m);
  const bitsOf = new Map();
  for (const key of members) {
    const bits = keyBits(filter, shape, key);
    bitsOf.set(key, bits);
    for (const bit of bits) counts[bit]++;
  }
  for (const key of gone) for (const bit of bitsOf.get(key)) stuck[bit] = 1;
  const svg = $('bloom-bits');
  const width = Math.max(200, (boxWidth() || 600) - 8);
  const columns = Math.max(8, Math.floor(width / CELL));
  const id = `${shape.m}:${columns}`;
  if (drawn.id !== id || drawn.cells[0]?.parentNode !== svg) {
    drawn.id = id;
    drawn.cells = buildCells(svg, shape.m, columns);
    drawn.codes = new Uint8Array(shape.m);
    drawn.counts = new Uint16Array(shape.m);
  }
  drawn.bitsOf = bitsOf;
  const focused = new Set(focus ? bitsOf.get(focus) ?? [] : []);
  let set = 0;
  let shared = 0;
  for (let bit = 0; bit < shape.m; bit++) {
    const count = counts[bit];
    if (count > 0) set++;
    if (count > 1) shared++;
    const code = (count === 0 ? 0 : count === 1 ? 1 : 2) | (focused.has(bit) ? FOCUS : 0) | (stuck[bit] ? STUCK : 0);
    if (drawn.codes[bit] !== code) {
      drawn.codes[bit] = code;
      drawn.cells[bit].setAttribute('class', CLASS_NAMES[code]);
    }
    if (drawn.counts[bit] !== count) {
      drawn.counts[bit] = count;
      drawn.cells[bit].setAttribute('data-keys', String(count));
    }
  }
  const sharing = members.filter((key) => bitsOf.get(key).some((bit) => counts[bit] > 1)).length;
  const cuckooBytes = tableBytes(filter);
  const summary = `For ${plural(n, 'key')} at ε = ${percent(rate)} (what this ${filter.bucketSize}-slot, ${filter.fingerprintBits}-bit table is sized for), ` +
    `a Bloom filter needs ${plural(shape.m, 'bit')} (${Math.ceil(shape.m / 8)} bytes; the cuckoo table: ${cuckooBytes} bytes) and ${plural(shape.k, 'hash function')}. ` +
    (keys === null
      ? 'The keys of an imported filter are unknown, so this Bloom filter stays empty.'
      : `${plural(members.length, 'key')}: ${plural(set, 'bit')} set, ${plural(shared, 'bit')} set by two keys or more (dark)` +
        (members.length > 1 ? `; ${sharing} of the ${plural(members.length, 'key')} share at least one bit with another key.`
          : members.length === 1 ? '; with one key, no bit can be shared yet.' : '.') +
        (gone.length > 0 ? ` ${gone.length === 1 ? 'One of them was' : `${gone.length} of them were`} deleted from the cuckoo filter: here ${gone.length === 1 ? 'its' : 'their'} bits stay set (outlined in red).` : ''));
  $('bloom-summary').textContent = summary;
  // A counting Bloom filter is the Bloom filter that can delete: each bit becomes a 4-bit counter.
  $('bloom-counting').textContent = `A counting Bloom filter can delete: each bit becomes a counter (usually 4 bits) that an insert ` +
    `increments and a delete decrements, so it takes about 4 times the space: ${plural(4 * shape.m, 'bit')} ` +
    `(${Math.ceil((4 * shape.m) / 8)} bytes) here, against the cuckoo table's ${cuckooBytes} bytes. Deleting a key that was never ` +
    'added is as unsafe there: it decrements other keys\' counters.';
  const kept = [...lost].filter(([key]) => bitsOf.has(key));
  const lastGone = gone[gone.length - 1];
  const live = keys === null ? undefined : [...keys.keys()].pop();
  const sentences = [];
  if (focus !== undefined) sentences.push(whyNoDelete(focus, bitsOf, counts, members));
  else {
    if (lastGone !== undefined) sentences.push(stuckBits(lastGone, bitsOf, counts));
    if (live !== undefined || lastGone === undefined) sentences.push(whyNoDelete(live, bitsOf, counts, members));
  }
  $('bloom-delete').textContent = [
    ...sentences,
    ...kept.map(([key, by]) => `${quote(key)} is still here, its ${bitsOf.get(key).length === 1 ? 'bit' : 'bits'} set: a Bloom filter has no delete, ` +
      `so nothing removed ${bitsOf.get(key).length === 1 ? 'it' : 'them'}, and it still answers "possibly present" for ${quote(key)}. ` +
      `In the cuckoo filter, deleting ${quote(by)}, which was never added, removed ${quote(key)}'s fingerprint.`),
  ].join(' ');
}

// A bit's tooltip names its keys, written when it is pointed at rather than for every bit at every call.
$('bloom-bits').addEventListener('mouseover', (event) => {
  const cell = event.target;
  if (!(cell instanceof SVGRectElement)) return;
  const bit = Number(cell.getAttribute('data-bit'));
  if (!Number.isInteger(bit)) return;
  const keys = ownersOf(bit);
  cell.replaceChildren();
  if (keys.length > 0) svgElement('title', {}, `bit ${bit}: set by ${keys.map(quote).join(', ')}`, cell);
});

/** "bit 7" or "bits 3, 7, 12": a key's bits can be fewer than k (one hash function, or two that agree). */
function bitList(bits) {
  return `${bits.length === 1 ? 'bit' : 'bits'} ${bits.join(', ')}`;
}

/** The other keys that set any of `key`'s bits, and which of its bits they set. */
function sharers(key, bitsOf, counts) {
  const bits = bitsOf.get(key) ?? [];
  const count = typeof counts === 'function' ? counts : (bit) => counts[bit];
  const sharedBits = bits.filter((bit) => count(bit) > 1);
  const others = new Set();
  if (sharedBits.length > 0) {
    for (const [other, theirs] of bitsOf) if (other !== key && theirs.some((bit) => sharedBits.includes(bit))) others.add(other);
  }
  const names = [...others].slice(0, 4).map(quote).join(', ') + (others.size > 4 ? ` and ${others.size - 4} more` : '');
  return { bits, sharedBits, others, names };
}

/** A key deleted from the cuckoo filter: its bits stay, and why the Bloom filter cannot clear them. */
function stuckBits(key, bitsOf, counts) {
  const { bits, sharedBits, names } = sharers(key, bitsOf, counts);
  const them = bits.length === 1 ? 'it' : 'them';
  return `${quote(key)} was deleted from the cuckoo filter, but its ${bitList(bits)} ${bits.length === 1 ? 'stays' : 'stay'} set in the Bloom filter (outlined in red): ` +
    (sharedBits.length > 0
      ? `clearing ${them} would erase other keys' bits (${sharedBits.length === bits.length && bits.length > 1 ? 'all of them are' : `${bitList(sharedBits)} ${sharedBits.length === 1 ? 'is' : 'are'}`} also set by ${names}), `
      : `a bit does not record which keys set it, so clearing ${them} could erase other keys' bits (none of ${bits.length === 1 ? 'it' : 'these'} is shared yet, but the Bloom filter cannot know that), `) +
    `so it keeps answering "possibly present" for ${quote(key)}.`;
}

function whyNoDelete(key, bitsOf, counts, members) {
  if (key === undefined) return 'Insert a few keys to see them here as bits.';
  const { bits, sharedBits, others, names } = sharers(key, bitsOf, counts);
  if (sharedBits.length === 0) {
    const sharing = members.filter((other) => bitsOf.get(other).some((bit) => counts[bit] > 1)).length;
    let set = 0;
    let shared = 0;
    for (const count of counts) {
      if (count > 0) set++;
      if (count > 1) shared++;
    }
    // With one key, or none shared yet, the counts say nothing ("0 of the 1 key already do, though only 0 of
    // the 1 set bit are shared"): only say them once some key shares a bit.
    const now = sharing === 0 ? '' : ` — here ${sharing} of the ${plural(members.length, 'key')} already do, though only ${shared} of the ${plural(set, 'set bit')} ${shared === 1 ? 'is' : 'are'} shared —`;
    return `${quote(key)} sets ${bitList(bits)}; ${bits.length === 1 ? 'it is not' : 'none is'} shared yet. As the filter fills, more and more keys ` +
      `share a bit with another key${now || ','} ` +
      'and clearing such a key\'s bits to delete it would erase other keys\' bits too.';
  }
  const also = bits.length === 1 ? 'it is' : `${plural(sharedBits.length, 'of them is', 'of them are')}`;
  return `${quote(key)} sets ${bitList(bits)}; ${also} also set by ${names}. ` +
    `Clearing ${bits.length === 1 ? 'it' : 'them'} to delete ${quote(key)} would make ${others.size === 1 ? 'that key' : 'those keys'} "definitely not present" — a false negative. ` +
    'So a Bloom filter cannot delete; the cuckoo filter removes one fingerprint from one slot.';
}

/** The chart of bits per item against the false-positive rate, and the sentences that read it. */
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
  const four = points[1];
  const yMax = Math.ceil(Math.max(...series.flatMap((s) => s.points.map((p) => p.y))) / 5) * 5;
  // Only the default's two lines are marked, the headline's: below the left one the cuckoo filter is the
  // smaller, above the right one the Bloom filter; the other bucket sizes are in the list under the chart.
  const markers = [];
  if (four.first !== undefined) {
    markers.push({ x: four.first, label: `Bloom smaller above ${percent(four.first)} →`, short: `Bloom above ${percent(four.first)} →`, className: 'bloom-line' });
  }
  if (four.always !== undefined && four.always !== four.first) {
    markers.push({ x: four.always, label: `← cuckoo smaller below ${percent(four.always)}`, short: `← cuckoo below ${percent(four.always)}`, className: 'cuckoo-4' });
  }
  drawChart($('chart-sizing'), $('legend-sizing'), {
    x: { min: RATE_RANGE[0], max: RATE_RANGE[1], log: true, label: 'false-positive rate ε (log scale)', ticks: decades(...RATE_RANGE), format: (v) => percent(v) },
    y: { min: 0, max: yMax, label: 'bits per item', ticks: linearTicks(yMax, 5), format: (v) => String(v) },
    series,
    markers,
  });
  const headline = $('sizing-headline');
  if (four.first === undefined) {
    headline.textContent = 'With the default 4 slots per bucket, the optimal Bloom filter is smaller at every rate shown here; only the cuckoo filter can delete.';
  } else {
    const strong = document.createElement('strong');
    strong.textContent = `With the default 4 slots per bucket, this library's cuckoo filter is the smaller one when the target false-positive rate is below about ${percent(four.always ?? four.first)}.`;
    headline.replaceChildren(strong, ` Above about ${percent(four.first)} the optimal Bloom filter is smaller${four.always !== undefined && four.always < four.first
      ? '; in between, the two take turns, because fingerprints grow in whole bits'
      : ''}. Either way, only the cuckoo filter can delete.`);
  }
  $('sizing-formula-cross').textContent = `By the formula, the two meet at about ${percent(formulaCrossover(4))} for b = 4 (α = ${Math.round(LOAD_REACHED[4] * 100)}%). ` +
    'The library\'s real filters differ from the formula because they round each fingerprint up to whole bits (the steps in their lines) ' +
    'and size their tables for loads of their own, not exactly these α.';
  // The other rows (semi-sorted buckets, the paper's figure) are in one table, the lesson's chapter 6: the
  // page states each crossing once.
  $('sizing-text').textContent = 'Where the two cross with semi-sorted buckets, by the formula without rounding, and in the cuckoo filter paper: the table in chapter 6 of the lesson, at the top of the page.';
  return points;
}

export function crossoverPoints() {
  return [
    ...[2, 4, 8].map((slots) => ({ slots, semiSorted: false, ...crossover(slots) })),
    { slots: 4, semiSorted: true, ...crossover(4, undefined, true) },
  ];
}
