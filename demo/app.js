// The teaching page. Every answer and every slot on screen comes from the real filter (the wasm build of
// the C++ core, through the package's API); animations replay the insert trace the core recorded, on a
// copy of the table taken just before the insert, and end by checking that copy against the real table.
import { ready, CuckooFilter } from './dist/esm/index.js';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const hex = (n) => n.toString(16);

const state = {
  filter: undefined,
  params: undefined,
  added: new Map(), // keys inserted through this page and their copies, for the explanations only
  shown: undefined, // the slots as drawn (behind the real table while an insert is being replayed)
  highlight: { candidates: [], slots: new Map(), arrows: [] },
  player: emptyPlayer(),
};

// The replay of the last insert: its trace, how far it has been shown, and the play timer.
function emptyPlayer() {
  return { steps: [], index: 0, timer: undefined, trace: undefined, key: '' };
}

// --- the filter -------------------------------------------------------------------------------------

// The API sizes filters by capacity; the page wants an exact bucket count, so it searches the capacity
// whose table has that many buckets (the count never decreases as the capacity grows).
function filterWithBuckets({ buckets, slots, bits, seed, maxKicks }) {
  const options = (capacity) => ({ capacity, bucketSize: slots, fingerprintBits: bits, seed, maxKicks });
  let low = 1;
  let high = buckets * slots;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    const probe = new CuckooFilter(options(mid));
    const count = probe.bucketCount;
    probe.dispose();
    if (count < buckets) low = mid + 1;
    else high = mid;
  }
  const filter = new CuckooFilter(options(low));
  if (filter.bucketCount !== buckets) {
    filter.dispose();
    throw new Error(`no capacity gives exactly ${buckets} buckets of ${slots}`);
  }
  return filter;
}

function readParams() {
  const int = (id, min, max, fallback) => {
    const value = Number($(id).value);
    return Number.isInteger(value) && value >= min && value <= max ? value : fallback;
  };
  let buckets = int('param-buckets', 8, 64, 16);
  if (buckets % 2 !== 0) buckets += 1; // the alternate-bucket formula needs an even count
  return {
    buckets,
    slots: Number($('param-slots').value),
    bits: int('param-bits', 4, 16, 8),
    seed: int('param-seed', 0, Number.MAX_SAFE_INTEGER, 1),
    maxKicks: int('param-kicks', 0, 500, 100),
  };
}

function writeParams(params) {
  $('param-buckets').value = params.buckets;
  $('param-slots').value = String(params.slots);
  $('param-bits').value = params.bits;
  $('param-seed').value = params.seed;
  $('param-kicks').value = params.maxKicks;
}

function reset(params = readParams()) {
  stopPlayer();
  state.filter?.dispose();
  state.params = params;
  writeParams(params);
  state.filter = filterWithBuckets(params);
  state.added.clear();
  state.shown = state.filter.slots();
  state.player = emptyPlayer();
  clearHighlight();
  say('answer', '');
  say('narration', '');
  $('arithmetic').textContent = 'Type a key and press Insert or Look up.';
  updateCounter();
  render();
}

// --- drawing ----------------------------------------------------------------------------------------

const SLOT_W = 56;
const SLOT_H = 22;
const GAP = 14;
const LABEL_H = 16;
// Room above the first row for the kick arrows, which curve upwards.
const TOP = 34;

function layout() {
  const width = $('table').parentElement.clientWidth || 1000;
  const fit = Math.max(4, Math.min(state.params.buckets, Math.floor(width / (SLOT_W + GAP + 4))));
  // Balanced rows: 16 buckets in a 15-wide space make two rows of 8, not 15 and 1.
  const rows = Math.ceil(state.params.buckets / fit);
  const columns = Math.ceil(state.params.buckets / rows);
  const bucketH = LABEL_H + state.params.slots * SLOT_H + 8;
  return { columns, bucketH, rows };
}

function bucketOrigin(i, geometry) {
  const column = i % geometry.columns;
  const row = Math.floor(i / geometry.columns);
  return { x: GAP / 2 + column * (SLOT_W + GAP), y: TOP + row * (geometry.bucketH + GAP) };
}

function render() {
  const svg = $('table');
  const geometry = layout();
  const { buckets, slots } = state.params;
  const width = geometry.columns * (SLOT_W + GAP);
  const height = TOP + geometry.rows * (geometry.bucketH + GAP);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  // The controls and narration under the table take about 110 px more.
  $('stage').classList.toggle('pinned', height + 110 < window.innerHeight * 0.5);
  svg.replaceChildren();
  const defs = document.createElementNS(SVG, 'defs');
  defs.innerHTML = '<marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#b3261e"/></marker>';
  svg.append(defs);
  for (let i = 0; i < buckets; i++) {
    const { x, y } = bucketOrigin(i, geometry);
    const group = document.createElementNS(SVG, 'g');
    group.setAttribute('data-bucket', String(i));
    group.setAttribute('transform', `translate(${x},${y})`);
    const candidate = state.highlight.candidates.indexOf(i);
    if (candidate >= 0) group.classList.add(`candidate-${candidate + 1}`);
    const box = document.createElementNS(SVG, 'rect');
    box.setAttribute('class', 'bucket-box');
    box.setAttribute('width', String(SLOT_W));
    box.setAttribute('height', String(geometry.bucketH - 4));
    box.setAttribute('rx', '5');
    const label = document.createElementNS(SVG, 'text');
    label.setAttribute('class', 'bucket-label');
    label.setAttribute('x', String(SLOT_W / 2));
    label.setAttribute('y', '12');
    label.textContent = `bucket ${i}`;
    group.append(box, label);
    for (let s = 0; s < slots; s++) {
      const value = state.shown[i * slots + s];
      const slot = document.createElementNS(SVG, 'g');
      slot.setAttribute('data-slot', String(s));
      slot.setAttribute('transform', `translate(4,${LABEL_H + s * SLOT_H})`);
      slot.classList.add(value === 0 ? 'free' : 'used');
      const mark = state.highlight.slots.get(`${i}:${s}`);
      if (mark) slot.classList.add(mark);
      const rect = document.createElementNS(SVG, 'rect');
      rect.setAttribute('class', 'slot-box');
      rect.setAttribute('width', String(SLOT_W - 8));
      rect.setAttribute('height', String(SLOT_H - 3));
      rect.setAttribute('rx', '3');
      const text = document.createElementNS(SVG, 'text');
      text.setAttribute('x', String((SLOT_W - 8) / 2));
      text.setAttribute('y', String((SLOT_H - 3) / 2));
      text.textContent = value === 0 ? '' : hex(value);
      slot.append(rect, text);
      group.append(slot);
    }
    svg.append(group);
  }
  for (const [from, to] of state.highlight.arrows) {
    const a = bucketOrigin(from, geometry);
    const b = bucketOrigin(to, geometry);
    const line = document.createElementNS(SVG, 'path');
    line.setAttribute('class', 'arrow');
    const x1 = a.x + SLOT_W / 2;
    const y1 = a.y + LABEL_H / 2;
    const x2 = b.x + SLOT_W / 2;
    const y2 = b.y + LABEL_H / 2;
    const bend = Math.min(TOP - 4, Math.max(20, Math.abs(x2 - x1) / 4));
    line.setAttribute('d', `M${x1},${y1} C${x1},${y1 - bend} ${x2},${y2 - bend} ${x2},${y2}`);
    svg.append(line);
  }
  updateStats();
}

function updateStats() {
  const f = state.filter;
  $('item-count').textContent = String(f.size);
  $('load-factor').textContent = `${(f.loadFactor * 100).toFixed(1)}%`;
  $('bits-per-item').textContent = f.size > 0 ? ((f.byteLength * 8) / f.size).toFixed(1) : '–';
  $('expected-fpr').textContent = f.expectedFpRate === 0 ? '0' : f.expectedFpRate.toPrecision(3);
}

function clearHighlight() {
  state.highlight = { candidates: [], slots: new Map(), arrows: [] };
}

function say(id, text, kind) {
  const element = $(id);
  element.textContent = text;
  if (id === 'answer') element.className = `answer${kind ? ` ${kind}` : ''}`;
}

// --- the arithmetic ---------------------------------------------------------------------------------

function showArithmetic(key, at) {
  const n = state.params.buckets;
  const high = at.hash >> 32n;
  const low = at.hash & 0xffffffffn;
  const bits = state.params.bits;
  $('arithmetic').textContent = [
    `key          "${key}"  (${new TextEncoder().encode(key).length} bytes of UTF-8)`,
    `hash         XXH3-64(key, seed ${state.params.seed}) = 0x${at.hash.toString(16).padStart(16, '0')}`,
    `i1           high 32 bits × N / 2^32 = 0x${high.toString(16)} × ${n} / 2^32 → ${at.index}`,
    `fingerprint  low 32 bits × (2^${bits} − 1) / 2^32 + 1 = 0x${low.toString(16)} × ${2 ** bits - 1} / 2^32 + 1 → ${at.fingerprint} (0x${hex(at.fingerprint)})`,
    `r            an odd offset from the fingerprint alone: ((${at.fingerprint} × 2654435761 mod 2^32) × N / 2^32) | 1 → ${at.alternateOffset}`,
    `i2           (N − i1 − r) mod N = (${n} − ${at.index} − ${at.alternateOffset}) mod ${n} → ${at.alternateIndex}`,
    `             (and back: (N − i2 − r) mod N = ${((((n - at.alternateIndex - at.alternateOffset) % n) + n) % n)} = i1, since N is even and r odd)`,
  ].join('\n');
}

// --- replaying an insert ----------------------------------------------------------------------------

function describeStep(step, next) {
  const fp = `0x${hex(step.fingerprintIn)}`;
  if (step.kind === 'place') {
    return `Bucket ${step.bucket}, slot ${step.slot} is free: fingerprint ${fp} goes there. The insert is done.`;
  }
  if (step.kind === 'kick') {
    const where = next ? `, bucket ${next.bucket}` : '';
    return `Both buckets are full, so fingerprint ${fp} takes bucket ${step.bucket}, slot ${step.slot} and ` +
      `kicks out 0x${hex(step.fingerprintOut)}, which must move to its other bucket${where}.`;
  }
  return `Out of kicks, so the walk is undone backwards: bucket ${step.bucket}, slot ${step.slot} gets ${fp} back ` +
    `(0x${hex(step.fingerprintOut)}, placed there by the walk, steps back).`;
}

function updateCounter() {
  const { steps, index, trace } = state.player;
  $('step-counter').textContent = trace
    ? `Step ${index} of ${steps.length}`
    : 'No insert to replay.';
  $('step').disabled = !trace || index >= steps.length;
  $('play').disabled = !trace || index >= steps.length;
}

function applyStep(step) {
  const s = state.params.slots;
  state.shown[step.bucket * s + step.slot] = step.fingerprintIn;
}

function stepOnce() {
  const player = state.player;
  if (!player.trace || player.index >= player.steps.length) return false;
  const step = player.steps[player.index];
  const next = player.steps[player.index + 1];
  applyStep(step);
  clearHighlight();
  state.highlight.candidates = [player.trace.location.index, player.trace.location.alternateIndex];
  const mark = step.kind === 'place' ? 'placed' : step.kind === 'kick' ? 'evicted' : 'restored';
  state.highlight.slots.set(`${step.bucket}:${step.slot}`, mark);
  if (step.kind === 'kick' && next) state.highlight.arrows.push([step.bucket, next.bucket]);
  if (step.kind === 'undo' && next) state.highlight.arrows.push([step.bucket, next.bucket]);
  player.index += 1;
  say('narration', describeStep(step, next));
  if (player.index === player.steps.length) finishReplay();
  render();
  updateCounter();
  return true;
}

// After the last step the drawing must be the real table again: the replay is the core's own record.
function finishReplay() {
  stopPlayer();
  const real = state.filter.slots();
  const same = real.length === state.shown.length && real.every((v, i) => v === state.shown[i]);
  state.shown = real;
  const { trace, key } = state.player;
  const ending = trace.outcome === 'placed'
    ? `"${key}" is in. ${trace.steps.length - 1 > 0 ? `It took ${trace.steps.filter((s) => s.kind === 'kick').length} kicks.` : ''}`
    : trace.outcome === 'table_full'
      ? `No room: after ${trace.steps.filter((s) => s.kind === 'kick').length} kicks the walk was undone. The insert failed and the table is exactly as before.`
      : 'Both buckets already hold this fingerprint in every slot: the duplicate limit (2 × slots copies).';
  say('narration', `${$('narration').textContent} ${ending}${same ? '' : ' (The drawing was out of step with the table and has been redrawn.)'}`);
}

function stopPlayer() {
  if (state.player.timer) clearInterval(state.player.timer);
  state.player.timer = undefined;
  $('play').textContent = 'Play';
  $('play').setAttribute('aria-pressed', 'false');
}

function play() {
  if (state.player.timer) {
    stopPlayer();
    return;
  }
  if (!state.player.trace || state.player.index >= state.player.steps.length) return;
  $('play').textContent = 'Pause';
  $('play').setAttribute('aria-pressed', 'true');
  const interval = 1300 / Number($('speed').value);
  state.player.timer = setInterval(() => {
    if (!stepOnce()) stopPlayer();
  }, interval);
}

// Finishes a replay still in progress, so that a new operation starts from the real table.
function settle() {
  while (stepOnce());
  stopPlayer();
  state.shown = state.filter.slots();
}

// --- operations -------------------------------------------------------------------------------------

function currentKey() {
  return $('key-input').value;
}

function insert(key = currentKey(), { animate = true } = {}) {
  settle();
  const at = state.filter.locate(key);
  showArithmetic(key, at);
  state.shown = state.filter.slots(); // the table before, which the replay starts from
  const trace = state.filter.addTraced(key);
  if (trace.added) state.added.set(key, (state.added.get(key) ?? 0) + 1);
  state.player = { ...emptyPlayer(), steps: trace.steps, trace, key };
  clearHighlight();
  state.highlight.candidates = [at.index, at.alternateIndex];
  if (trace.steps.length === 0) {
    say('narration', 'Both buckets are full of this very fingerprint: the duplicate limit (2 × slots copies). Nothing changes.');
    say('answer', `"${key}" was not added: duplicate limit.`, 'warning');
    state.shown = state.filter.slots();
  } else {
    say('narration', `Candidate buckets: i1 = ${at.index} (green) and i2 = ${at.alternateIndex} (orange). Press Step or Play.`);
    say('answer', trace.added ? `"${key}" inserted (${trace.steps.length} step${trace.steps.length === 1 ? '' : 's'} to replay).`
      : `"${key}" could not be inserted: the table is too full. Nothing changed.`, trace.added ? 'present' : 'warning');
  }
  render();
  updateCounter();
  if (!animate) settle();
  return trace;
}

function collisionWith(key, at) {
  for (const other of state.added.keys()) {
    if (other === key) continue;
    const o = state.filter.locate(other);
    const shares = o.index === at.index || o.index === at.alternateIndex;
    if (o.fingerprint === at.fingerprint && shares) return other;
  }
  return undefined;
}

function lookup(key = currentKey()) {
  settle();
  const at = state.filter.locate(key);
  showArithmetic(key, at);
  const present = state.filter.has(key);
  clearHighlight();
  state.highlight.candidates = [at.index, at.alternateIndex];
  const s = state.params.slots;
  for (const bucket of [at.index, at.alternateIndex]) {
    for (let slot = 0; slot < s; slot++) {
      if (state.shown[bucket * s + slot] === at.fingerprint) state.highlight.slots.set(`${bucket}:${slot}`, 'match');
    }
  }
  if (!present) {
    say('answer', `"${key}": definitely not present.`, 'absent');
    say('narration', `Fingerprint 0x${hex(at.fingerprint)} is in neither bucket ${at.index} nor bucket ${at.alternateIndex}, so "${key}" was never added (or was deleted).`);
  } else if (state.added.has(key)) {
    say('answer', `"${key}": possibly present (it was added).`, 'present');
    say('narration', `Fingerprint 0x${hex(at.fingerprint)} is in one of its buckets (highlighted).`);
  } else {
    const other = collisionWith(key, at);
    say('answer', `"${key}": possibly present — a false positive: this key was never added.`, 'warning');
    say('narration', `Fingerprint 0x${hex(at.fingerprint)} is in bucket ${at.index} or ${at.alternateIndex}, but it belongs to ` +
      `${other ? `"${other}", which has the same fingerprint and shares a bucket with "${key}"` : 'another key with the same fingerprint'}. ` +
      `With ${state.params.bits}-bit fingerprints, two keys match with probability 1 in ${2 ** state.params.bits - 1}; ` +
      `more bits make this rarer.`);
  }
  render();
  return present;
}

function remove(key = currentKey()) {
  settle();
  const at = state.filter.locate(key);
  showArithmetic(key, at);
  const wasAdded = state.added.has(key);
  const victim = wasAdded ? undefined : collisionWith(key, at);
  const removed = state.filter.delete(key);
  state.shown = state.filter.slots();
  clearHighlight();
  state.highlight.candidates = [at.index, at.alternateIndex];
  if (!removed) {
    say('answer', `"${key}": nothing to delete (definitely not present).`, 'absent');
    say('narration', '');
  } else if (wasAdded) {
    const left = state.added.get(key) - 1;
    if (left === 0) state.added.delete(key);
    else state.added.set(key, left);
    say('answer', `"${key}": one copy deleted.`, 'present');
    say('narration', `One copy of fingerprint 0x${hex(at.fingerprint)} was removed from bucket ${at.index} or ${at.alternateIndex}.`);
  } else {
    const lost = victim && !state.filter.has(victim);
    say('answer', `Unsafe delete: "${key}" was never added, yet a fingerprint was removed.`, 'warning');
    say('narration', `The filter cannot tell keys with equal fingerprints apart, so it removed 0x${hex(at.fingerprint)}` +
      `${victim ? `, which belonged to "${victim}"` : ''}.` +
      `${lost ? ` Now "${victim}" is reported definitely not present, although it was added: a false negative.` : ''}` +
      ' Only delete keys you know were added.');
    if (victim) {
      const left = state.added.get(victim) - 1;
      if (left === 0) state.added.delete(victim);
      else state.added.set(victim, left);
    }
  }
  render();
  updateCounter();
  return removed;
}

// --- scenarios --------------------------------------------------------------------------------------

// Looks for a key by trying candidates on a copy of the filter, so the real one is only touched once.
function findKey(prefix, test, limit = 20000) {
  for (let i = 0; i < limit; i++) {
    const candidate = `${prefix}${i}`;
    if (test(candidate)) return candidate;
  }
  throw new Error(`no key "${prefix}…" found for this scenario`);
}

function onCopy(use) {
  const copy = CuckooFilter.import(state.filter.export());
  try {
    return use(copy);
  } finally {
    copy.dispose();
  }
}

function fill(prefix, count) {
  for (let i = 0; i < count; i++) {
    const key = `${prefix}${i}`;
    if (state.filter.add(key)) state.added.set(key, (state.added.get(key) ?? 0) + 1);
  }
  state.shown = state.filter.slots();
}

const scenarios = [
  {
    title: 'A clean insert',
    text: 'An empty table: the first candidate bucket has a free slot, so the fingerprint simply goes there.',
    question: 'Which of the two buckets would a second key with the same i1 use once that bucket is full?',
    run() {
      reset({ buckets: 16, slots: 4, bits: 8, seed: 1, maxKicks: 100 });
      $('key-input').value = 'apple';
      insert('apple');
    },
  },
  {
    title: 'A long kick chain',
    text: 'A table of 2-slot buckets, 85% full. Both buckets of the new key are full, so fingerprints are kicked from bucket to bucket until one lands in a free slot.',
    question: 'Why does every evicted fingerprint know where to go without its key?',
    run() {
      reset({ buckets: 16, slots: 2, bits: 8, seed: 3, maxKicks: 100 });
      fill('fruit-', 27);
      // The candidate whose insert needs the most kicks, tried on copies of the table.
      let best;
      let bestKicks = 0;
      for (let i = 0; i < 400; i++) {
        const key = `berry-${i}`;
        const kicks = onCopy((copy) => {
          const trace = copy.addTraced(key);
          return trace.added ? trace.steps.filter((s) => s.kind === 'kick').length : -1;
        });
        if (kicks > bestKicks) {
          best = key;
          bestKicks = kicks;
        }
      }
      $('key-input').value = best;
      insert(best);
    },
  },
  {
    title: 'A full table: the walk fails and is undone',
    text: 'A small table filled until an insert fails, with at most 12 kicks. The walk kicks 12 times, finds no free slot, then puts every fingerprint back where it was.',
    question: 'What would go wrong if a failed insert were not undone?',
    run() {
      reset({ buckets: 8, slots: 2, bits: 8, seed: 5, maxKicks: 12 });
      // Fill until an insert fails (a failed insert changes nothing, so the table is simply full).
      for (let i = 0; i < 500; i++) {
        const key = `seed-${i}`;
        if (!state.filter.add(key)) break;
        state.added.set(key, 1);
      }
      state.shown = state.filter.slots();
      const failing = findKey('late-', (key) => onCopy((copy) => !copy.add(key)));
      $('key-input').value = failing;
      insert(failing);
    },
  },
  {
    title: 'A false positive',
    text: 'With 4-bit fingerprints only 15 values exist, so a key that was never added often finds "its" fingerprint in one of its buckets.',
    question: 'How many fingerprint bits would make this 1,000 times rarer?',
    run() {
      reset({ buckets: 16, slots: 4, bits: 4, seed: 7, maxKicks: 100 });
      fill('word-', 30);
      const ghost = findKey('ghost-', (key) => !state.added.has(key) && state.filter.has(key));
      $('key-input').value = ghost;
      lookup(ghost);
    },
  },
  {
    title: 'The duplicate limit',
    text: 'A key can be added more than once (the filter is a multiset), but only 2 × slots times: after that both of its buckets hold nothing else.',
    question: 'Why can a third bucket never help here?',
    run() {
      reset({ buckets: 8, slots: 2, bits: 8, seed: 9, maxKicks: 100 });
      for (let i = 0; i < 4; i++) insert('same', { animate: false });
      $('key-input').value = 'same';
      insert('same');
    },
  },
  {
    title: 'An unsafe delete',
    text: '"victim" is added. "twin" was never added but has the same fingerprint and buckets, so the filter answers "possibly present" for it — and deleting it removes victim\'s fingerprint.',
    question: 'Now victim is reported absent although it was added: which guarantee did the delete break, and why?',
    run() {
      reset({ buckets: 8, slots: 4, bits: 4, seed: 11, maxKicks: 100 });
      insert('victim', { animate: false });
      const v = state.filter.locate('victim');
      const twin = findKey('twin-', (key) => {
        const t = state.filter.locate(key);
        return t.fingerprint === v.fingerprint && (t.index === v.index || t.index === v.alternateIndex);
      });
      $('key-input').value = twin;
      remove(twin);
    },
  },
];

function buildScenarios() {
  const list = $('presets');
  scenarios.forEach((scenario, i) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = scenario.title;
    button.setAttribute('data-testid', `preset-${i}`);
    button.addEventListener('click', () => {
      scenario.run();
      $('table').scrollIntoView({ block: 'nearest' });
    });
    const text = document.createElement('p');
    text.textContent = scenario.text;
    const question = document.createElement('p');
    question.className = 'question';
    question.textContent = `Question: ${scenario.question}`;
    item.append(button, text, question);
    list.append(item);
  });
}

// --- the experiment ---------------------------------------------------------------------------------

const nextFrame = () => new Promise((resolve) => setTimeout(resolve, 0));

async function experiment() {
  const button = $('experiment');
  button.disabled = true;
  const { slots, bits } = state.params;
  const filter = filterWithBuckets({ buckets: 2000, slots, bits, seed: 42, maxKicks: 500 });
  const total = filter.bucketCount * slots;
  const probes = Array.from({ length: 20000 }, (_, i) => `probe-${i}`);
  const points = [];
  let added = 0;
  try {
    for (let target = 0.05; target <= 1.0001; target += 0.05) {
      let kicks = 0;
      let inserts = 0;
      let failed = false;
      while (added < target * total && !failed) {
        const trace = filter.addTraced(`fill-${added}-${inserts}`);
        inserts++;
        if (!trace.added) failed = true;
        else {
          added++;
          kicks += trace.steps.filter((s) => s.kind === 'kick').length;
        }
      }
      const measured = filter.hasMany(probes).filter(Boolean).length / probes.length;
      points.push({ load: filter.loadFactor, measured, theory: filter.expectedFpRate, kicks: inserts ? kicks / inserts : 0 });
      drawCharts(points, bits, slots);
      await nextFrame();
      if (failed) break;
    }
  } finally {
    filter.dispose();
    button.disabled = false;
  }
  const rate = points.length > 0 ? points[points.length - 1].theory : 0;
  const maxLoad = points.length > 0 ? points[points.length - 1].load : 0;
  const cuckooBits = bits / maxLoad;
  const bloomBits = rate > 0 ? Math.log2(1 / rate) / Math.LN2 : 0;
  $('bloom').textContent = `The table filled to ${(maxLoad * 100).toFixed(1)}% before the first failed insert. At that load the ` +
    `false-positive rate is about ${rate.toPrecision(2)}; the cuckoo filter spends ${bits} / ${maxLoad.toFixed(3)} = ` +
    `${cuckooBits.toFixed(1)} bits per item, a Bloom filter with the same rate needs log2(1/ε) / ln 2 = ${bloomBits.toFixed(1)} bits per item ` +
    `(and cannot delete). Cuckoo filters win below about 3% false positives.`;
}

function drawChart(svg, points, value, theory, { yMax, yLabel, format }) {
  const w = 420;
  const h = 220;
  const left = 54;
  const bottom = 30;
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.replaceChildren();
  const x = (load) => left + load * (w - left - 10);
  const top = 26;
  const y = (v) => h - bottom - (Math.min(v, yMax) / yMax) * (h - bottom - top);
  const add = (tag, attributes, text) => {
    const element = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attributes)) element.setAttribute(k, String(v));
    if (text !== undefined) element.textContent = text;
    svg.append(element);
    return element;
  };
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    add('line', { class: 'chart-grid', x1: left, x2: w - 10, y1: y(v), y2: y(v) });
    add('text', { class: 'chart-label', x: left - 4, y: y(v) + 4, 'text-anchor': 'end' }, format(v));
  }
  for (let i = 0; i <= 5; i++) {
    add('text', { class: 'chart-label', x: x(i / 5), y: h - bottom + 14, 'text-anchor': 'middle' }, `${i * 20}%`);
  }
  add('line', { class: 'chart-axis', x1: left, x2: w - 10, y1: h - bottom, y2: h - bottom });
  add('line', { class: 'chart-axis', x1: left, x2: left, y1: top, y2: h - bottom });
  add('text', { class: 'chart-label', x: w - 10, y: h - 4, 'text-anchor': 'end' }, 'load');
  add('text', { class: 'chart-label', x: left, y: 12 }, yLabel);
  if (theory) {
    const steps = 50;
    let d = '';
    for (let i = 0; i <= steps; i++) {
      const load = i / steps;
      d += `${i === 0 ? 'M' : 'L'}${x(load).toFixed(1)},${y(theory(load)).toFixed(1)}`;
    }
    add('path', { class: 'chart-theory', d });
  }
  for (const p of points) add('circle', { class: 'chart-point', cx: x(p.load), cy: y(value(p)), r: 3.5 });
}

function drawCharts(points, bits, slots) {
  const perSlot = 1 / (2 ** bits - 1);
  const theory = (load) => 1 - (1 - perSlot) ** (2 * slots * load);
  const fprMax = Math.max(theory(1), ...points.map((p) => p.measured)) * 1.1;
  drawChart($('chart-fpr'), points, (p) => p.measured, theory, { yMax: fprMax, yLabel: 'false-positive rate', format: (v) => v.toPrecision(2) });
  const kickMax = Math.max(1, ...points.map((p) => p.kicks)) * 1.1;
  drawChart($('chart-kicks'), points, (p) => p.kicks, undefined, { yMax: kickMax, yLabel: 'kicks per insert', format: (v) => v.toFixed(1) });
}

// --- files ------------------------------------------------------------------------------------------

function exportFile() {
  settle();
  const bytes = state.filter.export();
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'filter.cuckoo';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  say('file-status', `Exported ${bytes.length} bytes: a 56-byte header, the ${bytes.length - 64}-byte table, an 8-byte checksum.`);
}

async function importFile(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let loaded;
  try {
    loaded = CuckooFilter.import(bytes);
  } catch (error) {
    say('file-status', `Not loaded: ${error.message}`);
    return;
  }
  const buckets = loaded.bucketCount;
  const bits = loaded.fingerprintBits;
  if (buckets > 64 || bits > 16) {
    loaded.dispose();
    say('file-status', `Not loaded: this page draws at most 64 buckets and 16-bit fingerprints (the file has ${buckets} buckets of ${bits}-bit fingerprints).`);
    return;
  }
  stopPlayer();
  state.filter?.dispose();
  state.filter = loaded;
  state.params = { buckets, slots: loaded.bucketSize, bits, seed: Number(loaded.seed), maxKicks: loaded.maxKicks };
  writeParams(state.params);
  state.added.clear();
  state.shown = loaded.slots();
  state.player = emptyPlayer();
  clearHighlight();
  updateCounter();
  render();
  say('file-status', `Loaded ${bytes.length} bytes: ${loaded.size} fingerprints. The keys themselves are not in the file, so the page no longer knows which were added.`);
}

// --- wiring -----------------------------------------------------------------------------------------

await ready();
buildScenarios();
reset();
$('params').addEventListener('submit', (event) => {
  event.preventDefault();
  reset();
});
$('add').addEventListener('click', () => insert());
$('lookup').addEventListener('click', () => lookup());
$('delete').addEventListener('click', () => remove());
$('key-input').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') insert();
});
$('step').addEventListener('click', () => {
  stopPlayer();
  stepOnce();
});
$('play').addEventListener('click', play);
$('speed').addEventListener('input', () => {
  if (state.player.timer) {
    stopPlayer();
    play();
  }
});
$('experiment').addEventListener('click', () => experiment());
$('export').addEventListener('click', exportFile);
$('import').addEventListener('change', (event) => {
  const file = event.target.files?.[0];
  if (file) importFile(file);
  event.target.value = '';
});
let resizeTimer;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(render, 100);
});

// For the browser tests: the real filter and the page's operations.
window.cuckooDemo = {
  get filter() { return state.filter; },
  get trace() { return state.player.trace; },
  get shown() { return state.shown; },
  insert, lookup, remove, reset, settle, scenarios,
};
document.body.dataset.ready = 'true';
