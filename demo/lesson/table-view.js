// The drawing of the table (SVG) and its text alternative. It draws one frame: the slots as they were at
// that step, with the step's buckets and slots outlined. It holds no filter state of its own.
import { $, digits, hex, svgElement } from './text.js';

const GAP = 10;
const ROW_GAP = 24; // between rows: room for the fingerprint in hand above the bucket it goes to
const LABEL_H = 15;
const TOP = 40; // room above the first row for the kick arrow and the fingerprint in hand
const CODE_H = 13; // a semi-sorted bucket's code, under its slots

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
  return { slotW, slotH, columns, rows, bucketH, width: columns * (slotW + GAP), height: TOP + rows * (bucketH + ROW_GAP) };
}

function origin(i, g) {
  return { x: GAP / 2 + (i % g.columns) * (g.slotW + GAP), y: TOP + Math.floor(i / g.columns) * (g.bucketH + ROW_GAP) };
}

/**
 * Draws `frame` ({ slots, candidates, marks, arrows, hand, reach }) for a table of `params` ({ buckets,
 * slots, bits }). `focus` (optional) outlines one key's buckets and slots: { buckets: [i1, i2], slots: [[b, s]] }.
 */
export function drawTable(params, frame, focus) {
  const svg = $('table');
  const box = $('table-box');
  const g = geometry(params, box.clientWidth || 800);
  svg.setAttribute('viewBox', `0 0 ${g.width} ${g.height}`);
  svg.setAttribute('width', String(g.width));
  svg.setAttribute('height', String(g.height));
  svg.replaceChildren();
  svgElement('defs', {}, undefined, svg).innerHTML =
    '<marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b3261e"/></marker>';
  const marks = new Map(frame.marks.map(([bucket, slot, kind]) => [`${bucket}:${slot}`, kind]));
  const focusSlots = new Set((focus?.slots ?? []).map(([bucket, slot]) => `${bucket}:${slot}`));
  const reach = new Set(frame.reach ?? []);
  for (let i = 0; i < params.buckets; i++) {
    const { x, y } = origin(i, g);
    const group = svgElement('g', { 'data-bucket': i, transform: `translate(${x},${y})` }, undefined, svg);
    const candidate = frame.candidates.indexOf(i);
    if (candidate >= 0) group.classList.add(`candidate-${candidate + 1}`);
    if (reach.has(i)) group.classList.add('reach');
    if (frame.hand && frame.hand.from !== frame.hand.to) {
      if (i === frame.hand.from) group.classList.add('hand-from');
      if (i === frame.hand.to) group.classList.add('hand-to');
    }
    if (focus?.buckets.includes(i)) group.classList.add('focus');
    svgElement('rect', { class: 'bucket-box', width: g.slotW, height: g.bucketH - 4, rx: 5 }, undefined, group);
    svgElement('text', { class: 'bucket-label', x: g.slotW / 2, y: 11 }, `bucket ${i}`, group);
    for (let s = 0; s < params.slots; s++) {
      const value = frame.slots[i * params.slots + s];
      const slot = svgElement('g', { 'data-slot': s, transform: `translate(4,${LABEL_H + s * g.slotH})` }, undefined, group);
      slot.classList.add(value === 0 ? 'free' : 'used');
      const mark = marks.get(`${i}:${s}`);
      if (mark) slot.classList.add(mark);
      if (focusSlots.has(`${i}:${s}`)) slot.classList.add('focus');
      svgElement('rect', { class: 'slot-box', width: g.slotW - 8, height: g.slotH - 3, rx: 3 }, undefined, slot);
      svgElement('text', { x: (g.slotW - 8) / 2, y: (g.slotH - 3) / 2 }, value === 0 ? '' : digits(value, params.bits), slot);
    }
    if (params.semiSorted) {
      const code = semiSortedCode(frame.slots.slice(i * params.slots, (i + 1) * params.slots), params.bits);
      svgElement('text', { class: 'bucket-code', 'data-code': code, x: g.slotW / 2, y: LABEL_H + params.slots * g.slotH + 8 }, `code ${code}`, group);
    }
  }
  for (const [from, to] of frame.arrows) {
    const a = origin(from, g);
    const b = origin(to, g);
    const x1 = a.x + g.slotW / 2;
    const x2 = b.x + g.slotW / 2;
    const y1 = a.y;
    const y2 = b.y;
    const bend = Math.min(TOP - 6, Math.max(18, Math.abs(x2 - x1) / 4));
    svgElement('path', { class: 'arrow', d: `M${x1},${y1} C${x1},${y1 - bend} ${x2},${y2 - bend} ${x2},${y2}` }, undefined, svg);
  }
  if (frame.hand) {
    // The fingerprint in hand, drawn above the bucket it is travelling to.
    const b = origin(frame.hand.to, g);
    const chip = svgElement('g', { class: 'hand-chip', transform: `translate(${b.x + 6},${b.y - ROW_GAP + 3})` }, undefined, svg);
    svgElement('rect', { width: g.slotW - 12, height: 17, rx: 8.5 }, undefined, chip);
    svgElement('text', { x: (g.slotW - 12) / 2, y: 8.5 }, digits(frame.hand.fingerprint, params.bits), chip);
  }
  describe(params, frame);
  keepInView(frame, g);
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
