// The drawing of the table (SVG) and its text alternative. It draws one frame: the slots as they were at
// that step, with the step's buckets and slots outlined. It holds no filter state of its own.
import { $, digits, hex, svgElement } from './text.js';

const GAP = 10;
const ROW_GAP = 24; // between rows: room for the fingerprint in hand above the bucket it goes to
const LABEL_H = 15;
const TOP = 40; // room above the first row for the kick arrow and the fingerprint in hand
const CODE_H = 13; // a semi-sorted bucket's code, under its slots
// The middle of the gap above a row's boxes: where the kick arrow runs and the fingerprint in hand waits.
const above = (y) => y - (ROW_GAP + 4) / 2;

/**
 * The 12-bit code a semi-sorted bucket stores in place of its four fingerprints' top four bits: the rank
 * of the sorted nibbles n0 <= n1 <= n2 <= n3 among the 3,876 such tuples, C(n0, 1) + C(n1 + 1, 2) +
 * C(n2 + 2, 3) + C(n3 + 3, 4) (docs/FORMAT.md; the browser tests compare it with the core's bucketCode).
 */
export function semiSortedCode(values, bits) {
  const binomial = (n, k) => {
    if (k > n) return 0;
    let r = 1;
    for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
    return r;
  };
  const nibbles = Array.from(values, (v) => v >> (bits - 4)).sort((x, y) => x - y);
  return nibbles.reduce((code, n, i) => code + binomial(n + i, i + 1), 0);
}

function geometry(params, width) {
  const small = width < 560;
  const slotW = small ? 46 : 56;
  const slotH = small ? 18 : 22;
  const fit = Math.max(3, Math.min(params.buckets, Math.floor((width - 4) / (slotW + GAP))));
  // Balanced rows: 16 buckets in a 15-wide space make two rows of 8, not 15 and 1.
  const rows = Math.ceil(params.buckets / fit);
  const columns = Math.ceil(params.buckets / rows);
  const bucketH = LABEL_H + params.slots * slotH + 6 + (params.semiSorted ? CODE_H : 0);
  return { small, slotW, slotH, columns, rows, bucketH, width: columns * (slotW + GAP), height: TOP + rows * (bucketH + ROW_GAP) };
}

function origin(i, g) {
  return { x: GAP / 2 + (i % g.columns) * (g.slotW + GAP), y: TOP + Math.floor(i / g.columns) * (g.bucketH + ROW_GAP) };
}

// The buckets and slots drawn, kept between frames: a 64 x 8 table is some 2,000 elements, and building
// them for every step of the replay took longer than a frame. They are built when the shape or width
// changes; a frame only changes classes and texts, and redraws the arrow and the fingerprint in hand.
const drawn = { id: '', buckets: [], slots: [], codes: [], overlay: undefined, classes: new Map() };

function build(svg, params, g) {
  svg.setAttribute('viewBox', `0 0 ${g.width} ${g.height}`);
  svg.setAttribute('width', String(g.width));
  svg.setAttribute('height', String(g.height));
  const fragment = document.createDocumentFragment();
  svgElement('defs', {}, undefined, fragment).innerHTML =
    '<marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b3261e"/></marker>';
  drawn.buckets = [];
  drawn.slots = [];
  drawn.codes = [];
  drawn.classes = new Map();
  for (let i = 0; i < params.buckets; i++) {
    const { x, y } = origin(i, g);
    const group = svgElement('g', { 'data-bucket': i, transform: `translate(${x},${y})` }, undefined, fragment);
    svgElement('rect', { class: 'bucket-box', width: g.slotW, height: g.bucketH - 4, rx: 5 }, undefined, group);
    // "bucket 14" is wider than a phone's 46-pixel bucket: there the number alone, kept inside its box.
    svgElement('text', { class: 'bucket-label', x: g.slotW / 2, y: 11 }, g.small ? String(i) : `bucket ${i}`, group);
    drawn.buckets.push(group);
    for (let s = 0; s < params.slots; s++) {
      const slot = svgElement('g', { 'data-slot': s, transform: `translate(4,${LABEL_H + s * g.slotH})` }, undefined, group);
      svgElement('rect', { class: 'slot-box', width: g.slotW - 8, height: g.slotH - 3, rx: 3 }, undefined, slot);
      svgElement('text', { x: (g.slotW - 8) / 2, y: (g.slotH - 3) / 2 }, '', slot);
      drawn.slots.push(slot);
    }
    if (params.semiSorted) {
      drawn.codes.push(svgElement('text', { class: 'bucket-code', x: g.slotW / 2, y: LABEL_H + params.slots * g.slotH + 8 }, '', group));
    }
  }
  // Drawn last, so that the arrow and the fingerprint in hand are on top of the buckets.
  drawn.overlay = svgElement('g', { class: 'overlay' }, undefined, fragment);
  svg.replaceChildren(fragment);
}

// Sets an element's class (and its text) only when it changed: unchanged elements cost no style work.
function setClass(element, name) {
  if (drawn.classes.get(element) === name) return;
  drawn.classes.set(element, name);
  element.setAttribute('class', name);
}

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/**
 * Draws `frame` ({ slots, candidates, marks, arrows, hand, reach }) for a table of `params` ({ buckets,
 * slots, bits }). `focus` (optional) outlines one key's buckets and slots: { buckets: [i1, i2], slots: [[b, s]] }.
 */
export function drawTable(params, frame, focus) {
  const svg = $('table');
  const box = $('table-box');
  const g = geometry(params, box.clientWidth || 800);
  const id = `${params.buckets}:${params.slots}:${Boolean(params.semiSorted)}:${g.slotW}:${g.columns}`;
  if (drawn.id !== id || drawn.overlay?.parentNode !== svg) {
    drawn.id = id;
    build(svg, params, g);
  }
  const marks = new Map(frame.marks.map(([bucket, slot, kind]) => [`${bucket}:${slot}`, kind]));
  const focusSlots = new Set((focus?.slots ?? []).map(([bucket, slot]) => `${bucket}:${slot}`));
  const reach = new Set(frame.reach ?? []);
  const moving = frame.hand && frame.hand.from !== frame.hand.to ? frame.hand : undefined;
  for (let i = 0; i < params.buckets; i++) {
    const names = [];
    const candidate = frame.candidates.indexOf(i);
    if (candidate >= 0) names.push(`candidate-${candidate + 1}`);
    if (reach.has(i)) names.push('reach');
    if (moving && i === moving.from) names.push('hand-from');
    if (moving && i === moving.to) names.push('hand-to');
    if (focus?.buckets.includes(i)) names.push('focus');
    setClass(drawn.buckets[i], names.join(' '));
    for (let s = 0; s < params.slots; s++) {
      const value = frame.slots[i * params.slots + s];
      const slot = drawn.slots[i * params.slots + s];
      const mark = marks.get(`${i}:${s}`);
      setClass(slot, `${value === 0 ? 'free' : 'used'}${mark ? ` ${mark}` : ''}${focusSlots.has(`${i}:${s}`) ? ' focus' : ''}`);
      setText(slot.lastChild, value === 0 ? '' : digits(value, params.bits));
    }
    if (params.semiSorted) {
      const code = semiSortedCode(frame.slots.slice(i * params.slots, (i + 1) * params.slots), params.bits);
      drawn.codes[i].setAttribute('data-code', String(code));
      setText(drawn.codes[i], `code ${code}`);
    }
  }
  const overlay = drawn.overlay;
  overlay.replaceChildren();
  for (const [from, to] of frame.arrows) svgElement('path', { class: 'arrow', d: arrowPath(origin(from, g), origin(to, g), g) }, undefined, overlay);
  if (frame.hand) {
    // The fingerprint in hand, drawn above the bucket it is travelling to.
    const b = origin(frame.hand.to, g);
    const chip = svgElement('g', { class: 'hand-chip', transform: `translate(${b.x + 6},${above(b.y) - 8.5})` }, undefined, overlay);
    svgElement('rect', { width: g.slotW - 12, height: 17, rx: 8.5 }, undefined, chip);
    svgElement('text', { x: (g.slotW - 12) / 2, y: 8.5 }, digits(frame.hand.fingerprint, params.bits), chip);
  }
  describe(params, frame);
  keepInView(frame, g);
}

/**
 * The kick arrow, from the top of the bucket the fingerprint leaves to the fingerprint in hand, which
 * waits above the bucket it goes to. It runs in the gaps between buckets only: up into the gap above its
 * row and, to another row, along it to the gap beside its column, through the column gaps and along the
 * gap above the other row. A curve straight across rows crossed other buckets' labels and slots.
 */
function arrowPath(a, b, g) {
  const x1 = a.x + g.slotW / 2;
  const chip = { left: b.x + 6, right: b.x + g.slotW - 6 };
  if (a.y === b.y) return `M${x1},${a.y} V${above(a.y)} H${x1 < b.x ? chip.left : chip.right}`;
  const column = Math.round((a.x - GAP / 2) / (g.slotW + GAP));
  const leftGap = a.x - GAP / 2;
  const rightGap = a.x + g.slotW + GAP / 2;
  const side = b.x > a.x || (b.x === a.x && column === 0) ? rightGap : leftGap;
  return `M${x1},${a.y} V${above(a.y)} H${side} V${above(b.y)} H${side < b.x ? chip.left : chip.right}`;
}

// Scrolls the table's own box (never the page) so that the buckets of this step are in view.
function keepInView(frame, g) {
  const box = $('table-box');
  const wanted = [...frame.candidates, ...(frame.hand ? [frame.hand.from, frame.hand.to] : [])];
  if (wanted.length === 0 || box.scrollHeight <= box.clientHeight) return;
  const tops = wanted.map((i) => origin(i, g).y);
  const low = Math.min(...tops) - TOP + 4;
  const high = Math.max(...tops) + g.bucketH;
  if (low >= box.scrollTop && high <= box.scrollTop + box.clientHeight) return;
  const centre = (low + high) / 2;
  box.scrollTop = Math.max(0, Math.min(low, centre - box.clientHeight / 2));
}

/** The table as text: one line per bucket, for screen readers and for anyone who prefers to read it. */
function describe(params, frame) {
  const used = frame.slots.reduce((n, v) => n + (v !== 0 ? 1 : 0), 0);
  const [i1, i2] = frame.candidates;
  $('table').setAttribute('aria-label', `The table: ${params.buckets} buckets of ${params.slots} slots, ${used} fingerprints stored` +
    `${frame.candidates.length === 2 ? `; the key's buckets are ${i1} and ${i2}` : ''}. The same table as text follows.`);
  const lines = [];
  for (let i = 0; i < params.buckets; i++) {
    const values = [];
    for (let s = 0; s < params.slots; s++) {
      const v = frame.slots[i * params.slots + s];
      values.push(v === 0 ? 'empty' : hex(v, params.bits));
    }
    const notes = [];
    if (params.semiSorted) notes.push(`code ${semiSortedCode(frame.slots.slice(i * params.slots, (i + 1) * params.slots), params.bits)}`);
    if (i === i1) notes.push('i1');
    if (i === i2) notes.push('i2');
    if (frame.hand?.to === i && frame.hand.from !== i) notes.push(`the fingerprint in hand goes here`);
    const item = document.createElement('li');
    item.textContent = `Bucket ${i}: ${values.join(', ')}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
    lines.push(item);
  }
  $('table-text').replaceChildren(...lines);
}

/** The slot under a pointer or tap: [bucket, slot] or undefined. */
export function slotAt(target) {
  const slot = target.closest?.('[data-slot]');
  const bucket = slot?.closest('[data-bucket]');
  if (!slot || !bucket) return undefined;
  return [Number(bucket.getAttribute('data-bucket')), Number(slot.getAttribute('data-slot'))];
}
