// The drawing of the table (SVG) and its text alternative. It draws one frame: the slots as they were at
// that step, with the step's buckets and slots outlined. It holds no filter state of its own.
import { $, digits, hex, svgElement } from './text.js';

const GAP = 10;
const ROW_GAP = 24; // between rows: room for the fingerprint in hand above the bucket it goes to
const LABEL_H = 16;
const TOP = 40; // room above the first row for the kick arrow and the fingerprint in hand
const CODE_H = 16; // a semi-sorted bucket's code, under its slots (12 px text)
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
  // On a phone a bucket is as narrow as its fingerprints allow (12 px digits, about 7.5 px each), so that
  // 16 buckets of 8-bit fingerprints make two rows of 8 and the player stays near the table; a semi-sorted
  // bucket's code ("code 3875") needs a little more.
  const digits = Math.ceil(params.bits / 4);
  const slotW = small ? Math.max(params.semiSorted ? 52 : 32, Math.ceil(16 + digits * 7.5)) : 60;
  const slotH = small ? 18 : 22;
  const fit = Math.max(3, Math.min(params.buckets, Math.floor((width - 4) / (slotW + GAP))));
  // Balanced rows: 16 buckets in a 15-wide space make two rows of 8, not 15 and 1.
  const rows = Math.ceil(params.buckets / fit);
  const columns = Math.ceil(params.buckets / rows);
  const bucketH = LABEL_H + params.slots * slotH + 6 + (params.semiSorted ? CODE_H : 0);
  // No gap under the last row: it would only make a table that fits look as if it scrolled.
  return { small, slotW, slotH, columns, rows, bucketH, width: columns * (slotW + GAP), height: TOP + rows * (bucketH + ROW_GAP) - ROW_GAP + 6 };
}

function origin(i, g) {
  return { x: GAP / 2 + (i % g.columns) * (g.slotW + GAP), y: TOP + Math.floor(i / g.columns) * (g.bucketH + ROW_GAP) };
}

// The table box's size and scroll position, kept from the resize observer and the scroll events: reading
// them from the box at every step forced a layout of the whole page (about 10,000 elements on a big table).
const box = { width: 0, height: 0, scrollTop: 0, watched: false, drawnAt: 0, redraw: () => {} };

/** What to call when the box's width changes under a drawing made for another width (a re-layout). */
export function onTableResize(redraw) {
  box.redraw = redraw;
}

function watchBox() {
  if (box.watched) return;
  box.watched = true;
  const element = $('table-box');
  new ResizeObserver(() => {
    box.width = element.clientWidth;
    box.height = element.clientHeight;
    scrollHint();
    if (box.drawnAt !== 0 && box.width !== box.drawnAt) requestAnimationFrame(() => box.redraw());
  }).observe(element);
  element.addEventListener('scroll', () => {
    box.scrollTop = element.scrollTop;
    scrollHint();
  }, { passive: true });
}

// The buckets and slots drawn, kept between frames: a 64 x 8 table is some 2,000 elements, and building
// them for every step of the replay took longer than a frame. They are built when the shape or width
// changes; a frame only changes classes and texts, and redraws the arrow and the fingerprint in hand.
const drawn = { id: '', buckets: [], slots: [], codes: [], overlay: undefined, classes: new Map(), g: undefined, params: undefined, lines: [] };

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
    svgElement('text', { class: 'bucket-label', x: g.slotW / 2, y: 12.5 }, g.small ? String(i) : `bucket ${i}`, group);
    drawn.buckets.push(group);
    for (let s = 0; s < params.slots; s++) {
      const slot = svgElement('g', { 'data-slot': s, transform: `translate(4,${LABEL_H + s * g.slotH})` }, undefined, group);
      svgElement('rect', { class: 'slot-box', width: g.slotW - 8, height: g.slotH - 3, rx: 3 }, undefined, slot);
      svgElement('text', { x: (g.slotW - 8) / 2, y: (g.slotH - 3) / 2 }, '', slot);
      drawn.slots.push(slot);
    }
    if (params.semiSorted) {
      drawn.codes.push(svgElement('text', { class: 'bucket-code', x: g.slotW / 2, y: LABEL_H + params.slots * g.slotH + 10 }, '', group));
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
  watchBox();
  if (box.width === 0) box.width = $('table-box').clientWidth;
  box.drawnAt = box.width;
  const g = geometry(params, box.width || 800);
  const id = `${params.buckets}:${params.slots}:${params.bits}:${Boolean(params.semiSorted)}:${g.slotW}:${g.columns}`;
  drawn.g = g;
  drawn.params = params;
  if (drawn.id !== id || drawn.overlay?.parentNode !== svg) {
    drawn.id = id;
    build(svg, params, g);
    // A new shape changes the box's height and may clamp its scroll: measured once here, not per step.
    const element = $('table-box');
    box.height = element.clientHeight;
    box.scrollTop = element.scrollTop;
    scrollHint();
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
  // It starts 1 px above the bucket's top, clear of the bucket's label just under it.
  if (a.y === b.y) return `M${x1},${a.y - 1} V${above(a.y)} H${x1 < b.x ? chip.left : chip.right}`;
  const column = Math.round((a.x - GAP / 2) / (g.slotW + GAP));
  const leftGap = a.x - GAP / 2;
  const rightGap = a.x + g.slotW + GAP / 2;
  const side = b.x > a.x || (b.x === a.x && column === 0) ? rightGap : leftGap;
  return `M${x1},${a.y - 1} V${above(a.y)} H${side} V${above(b.y)} H${side < b.x ? chip.left : chip.right}`;
}

// Scrolls the table's own box (never the page) so that the buckets of this step are in view.
function keepInView(frame, g) {
  const wanted = [...frame.candidates, ...(frame.hand ? [frame.hand.from, frame.hand.to] : [])];
  if (wanted.length === 0 || g.height <= box.height) return;
  const tops = wanted.map((i) => origin(i, g).y);
  const low = Math.min(...tops) - TOP + 4;
  const high = Math.max(...tops) + g.bucketH;
  if (low >= box.scrollTop && high <= box.scrollTop + box.height) return;
  const centre = (low + high) / 2;
  const top = Math.max(0, Math.min(low, centre - box.height / 2, g.height - box.height));
  $('table-box').scrollTop = top;
  box.scrollTop = top;
  scrollHint();
}

/**
 * Under a table taller than its box: that it scrolls, and which rows are in view, so that a cut-off last
 * row is never taken for the end of the table.
 */
function scrollHint() {
  const hint = $('table-scroll');
  const g = drawn.g;
  if (!hint || !g || box.height === 0) return;
  const scrolls = g.height > box.height + 1;
  if (hint.hidden === scrolls) hint.hidden = !scrolls;
  $('table-box').classList.toggle('scrolls', scrolls);
  if (!scrolls) return;
  const rowH = g.bucketH + ROW_GAP;
  // Rows wholly in view: a row is its bucket boxes, from its top to its bottom.
  const rowTop = (r) => TOP + r * rowH;
  let first = 0;
  while (first < g.rows - 1 && rowTop(first) < box.scrollTop - 1) first++;
  let last = first;
  while (last + 1 < g.rows && rowTop(last + 1) + g.bucketH <= box.scrollTop + box.height + 1) last++;
  const n = drawn.params.buckets;
  const from = first * g.columns;
  const to = Math.min(n, (last + 1) * g.columns) - 1;
  if (first === 0 && last === g.rows - 1) {
    setText(hint, `The table scrolls a little: all ${g.rows} rows are in view (buckets 0–${n - 1}).`);
    return;
  }
  const more = last < g.rows - 1 ? ' Scroll down in it for the rest.' : ' Scroll up in it for the first rows.';
  setText(hint, `The table scrolls: rows ${first + 1}–${last + 1} of ${g.rows} in view (buckets ${from}–${to} of ${n}).${more}`);
}

/** The table as text: one line per bucket, for screen readers and for anyone who prefers to read it. */
function describe(params, frame) {
  const used = frame.slots.reduce((n, v) => n + (v !== 0 ? 1 : 0), 0);
  const [i1, i2] = frame.candidates;
  $('table').setAttribute('aria-label', `The table: ${params.buckets} buckets of ${params.slots} slots, ${used} fingerprints stored` +
    `${frame.candidates.length === 2 ? `; the key's buckets are ${i1} and ${i2}` : ''}. The same table as text follows.`);
  const list = $('table-text');
  if (drawn.lines.length !== params.buckets || drawn.lines[0]?.parentNode !== list) {
    drawn.lines = Array.from({ length: params.buckets }, () => document.createElement('li'));
    list.replaceChildren(...drawn.lines);
  }
  const arrived = frame.marks.find((m) => m[2] === 'arrived');
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
    if (arrived?.[0] === i && frame.arrived) {
      notes.push(`slot ${arrived[1]}: ${hex(frame.arrived.fingerprint, params.bits)} arrived by a kick; ${hex(frame.arrived.replaced, params.bits)}, which it replaced, is in hand`);
    }
    if (frame.hand?.to === i && frame.hand.from !== i) notes.push(`the fingerprint in hand goes here`);
    // Only the lines that changed are written: 64 buckets rebuilt at every step were a cost of their own.
    setText(drawn.lines[i], `Bucket ${i}: ${values.join(', ')}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`);
  }
}

/** The bucket under a pointer or tap (anywhere in it: its label, its frame or a slot), or undefined. */
export function bucketAt(target) {
  const bucket = target.closest?.('#table [data-bucket]');
  return bucket ? Number(bucket.getAttribute('data-bucket')) : undefined;
}

/** The slot under a pointer or tap: [bucket, slot] or undefined. */
export function slotAt(target) {
  const slot = target.closest?.('[data-slot]');
  const bucket = slot?.closest('[data-bucket]');
  if (!slot || !bucket) return undefined;
  return [Number(bucket.getAttribute('data-bucket')), Number(slot.getAttribute('data-slot'))];
}
