// The teaching page. Every answer and every slot on screen comes from the real filter (the wasm build of
// the C++ core, through the package's API). Operations run on the filter at once; the player then
// replays them frame by frame (frames.js), ending on the filter's real table.
import { ready, CuckooFilter } from '../dist/esm/index.js';
import { bloomShape, drawBloom, drawSizing } from './bloom.js';
import { showLessonShell, startLesson } from './chapters.js';
import { Experiment } from './experiment.js';
import { drawGraph, graphResized } from './graph.js';
import { deleteFrames, insertFrames, lookupFrames } from './frames.js';
import { describeBucket, describeSlot, keyFocus, keysBehind, renderKeys } from './keys.js';
import { filterWithBuckets, LIMITS, readParams, writeParams } from './params.js';
import { Player } from './player.js';
import { showCode } from './pseudocode.js';
import { buildScenarios, scenarios } from './scenarios.js';
import { expectedFpRate, fullLoadBound, tableBytes } from './sizing.js';
import { bucketAt, drawTable, onTableResize, slotAt } from './table-view.js';
import { $, hex, modSteps, percent, plural, quote } from './text.js';

// The lesson's first screen before the wasm module is ready, so that nothing moves when it is.
showLessonShell();
await ready();

const state = {
  filter: undefined,
  params: undefined,
  keys: new Map(), // key -> copies added through this page; null after an import (the keys are unknown)
  lost: new Map(), // keys an unsafe delete made absent -> the key whose delete did it
  deleted: new Set(), // keys added, then deleted from the cuckoo filter (the last one last): the Bloom filter keeps them
  frame: undefined, // the frame on screen
  focus: undefined, // the key pointed at in the key list
  trace: undefined, // the last insert's trace (for the tests)
  lastOp: 'insert', // what Enter in the key field does: 'insert' or 'lookup'
  answer: undefined, // the last operation's answer: [text, kind], shown once the replay reaches its end
  pending: '', // what the replay shows, for the answer line until then
  snapshot: undefined, // { keys, lost, deleted } before the operations that have run but are not shown yet
  before: undefined, // the snapshot of the replay on screen: what the key list shows until its end
  listedAtEnd: undefined, // whether the key list shows the state after the replay
};

const player = new Player(showFrame);
const experiment = new Experiment();

function idleFrame() {
  return { listing: undefined, line: -1, slots: state.filter.slots(), candidates: [], marks: [], arrows: [], hand: null, reach: null, text: '' };
}

function showFrame(frame) {
  // What a tap on a slot said describes the table it was tapped on: a step that changes it clears that.
  if (state.frame !== undefined && frame.slots !== state.frame.slots) showSlotInfo('');
  state.frame = frame;
  const focus = state.focus !== undefined && state.keys !== null ? keyFocus(state.filter, frame.slots, state.focus) : undefined;
  drawTable(state.params, frame, focus);
  drawGraph(state.filter, frame);
  showCode(frame.listing, frame.line);
  if (player.frames !== reservedFor) reserveStepTexts();
  $('narration').textContent = frame.text;
  showAnswer();
  if (player.atEnd !== state.listedAtEnd) refreshKeys();
  const hand = $('hand');
  const handText = handTextOf(frame);
  hand.hidden = handText === '';
  if (hand.textContent !== handText) hand.textContent = handText;
  $('step-texts').hidden = frame.text === '' && handText === '' && $('step-reserve').childElementCount === 0;
  updateStats(frame.slots);
}

/** The line under the narration while a fingerprint is in hand (or was just dropped), else ''. */
function handTextOf(frame) {
  const f = (value) => hex(value, state.params.bits);
  return frame.hand
    ? frame.hand.from === frame.hand.to
      ? `In hand: ${f(frame.hand.fingerprint)}`
      : `In hand: ${f(frame.hand.fingerprint)}, from bucket ${frame.hand.from} to its other bucket, ${frame.hand.to}`
    : frame.dropped !== undefined
      ? `In hand: nothing. ${f(frame.dropped)}, the new key's fingerprint, was dropped.`
      : '';
}

// The hand line and the narration of every step of the replay on screen, laid invisibly in the cell that
// shows the current step's, so that the cell is as tall as its longest step: what follows it (the code,
// and on a phone the tour) keeps its place from the first step to the last.
let reservedFor;
function reserveStepTexts() {
  reservedFor = player.frames;
  const reserve = $('step-reserve');
  const seen = new Set();
  const items = [];
  for (const frame of player.frames ?? []) {
    const id = `${handTextOf(frame)}\n${frame.text}`;
    if (seen.has(id) || id === '\n') continue;
    seen.add(id);
    const item = document.createElement('div');
    const hand = document.createElement('p');
    hand.className = 'hand';
    hand.textContent = handTextOf(frame);
    hand.hidden = hand.textContent === '';
    const text = document.createElement('p');
    text.className = 'narration';
    text.textContent = frame.text;
    item.append(text, hand);
    items.push(item);
  }
  reserve.replaceChildren(...items);
}

// The numbers describe the table as drawn, so they change with the replay, not before it.
function updateStats(slots) {
  const { buckets, slots: b, bits } = state.params;
  const items = slots.reduce((n, v) => n + (v !== 0 ? 1 : 0), 0);
  const load = items / (buckets * b);
  const { byteLength, capacity } = state.filter;
  const table = tableBytes(state.filter);
  // Bits per item count the table only, as the Bloom comparison and an export do: the padding is an
  // artefact of memory (said under Memory), not of the filter's size.
  const perItem = (n) => ((table * 8) / n).toFixed(1);
  $('item-count').textContent = String(items);
  $('load-factor').textContent = `${(load * 100).toFixed(1)}%`;
  $('memory').textContent = `${byteLength} bytes: the ${table}-byte table and ${byteLength - table} bytes of padding`;
  // The library sizes a table for a capacity below its slot count, and kicks often fit a few more keys:
  // the figure is the table's at that capacity, so a count above it is said, not contradicted.
  $('bits-per-item').textContent = `${perItem(capacity)} (sized for ${plural(capacity, 'item')}` +
    `${items > capacity ? `; holding ${items}: ${perItem(items)} each` : ''})`;
  $('expected-fpr').textContent = percent(expectedFpRate(b, bits, load));
}

function say(text, kind) {
  if ($('answer').textContent !== text) $('answer').textContent = text;
  $('answer').className = `answer${kind ? ` ${kind}` : ''}`;
}

/**
 * The answer line keeps one height through a replay: under it, hidden, are both texts it will show (the
 * waiting line and the answer), so its box is as tall as the taller from the first step to the last, and
 * the table under it never moves while stepping.
 */
function reserveAnswer(waiting, answer) {
  $('answer-reserve-waiting').textContent = waiting;
  $('answer-reserve-final').textContent = answer;
}

// The filter has already answered, but the table on screen is the replay's: until the replay shows the
// result, the answer line says where it comes (short, the same at every step, not bold).
function showAnswer() {
  if (state.answer === undefined) return;
  if (player.atEnd) say(...state.answer);
  else say(state.pending, 'pending');
}

function showSlotInfo(text) {
  const info = $('slot-info');
  if (info.textContent !== text) info.textContent = text;
  info.hidden = text === '';
}

function reset(params) {
  player.pause();
  state.filter?.dispose();
  state.params = params;
  writeParams(params);
  $('params-error').textContent = '';
  state.filter = filterWithBuckets(params);
  state.keys = new Map();
  state.lost.clear();
  state.deleted.clear();
  state.focus = undefined;
  state.trace = undefined;
  state.answer = undefined;
  state.snapshot = undefined;
  state.before = undefined;
  player.load([]);
  say('');
  reserveAnswer('', '');
  showSlotInfo('');
  $('arithmetic-title').textContent = 'The arithmetic, with a key\'s numbers';
  $('arithmetic').textContent = 'Type a key and press Insert, Look up or Delete.';
  showFrame(idleFrame());
  refreshKeys();
}

// The keys (and the keys lost to an unsafe delete) as of the table on screen: until the replay reaches
// its end, the list and the Bloom filter show them as they were before the operations it replays.
function listed() {
  return player.atEnd || state.before === undefined ? { keys: state.keys, lost: state.lost, deleted: state.deleted } : state.before;
}

function drawListedBloom() {
  const { keys, lost, deleted } = listed();
  drawBloom(state.filter, keys, state.focus, lost, deleted);
}

function refreshKeys() {
  state.listedAtEnd = player.atEnd;
  const { keys, lost } = listed();
  renderKeys(keys, lost, {
    onFocus: (key) => {
      state.focus = key;
      showFrame(state.frame);
      drawListedBloom();
    },
    onPick: (key) => {
      $('key-input').value = key;
    },
  });
  drawListedBloom();
}

/** Called by every operation before it changes anything: the key list to show while it is replayed. */
function remember() {
  state.snapshot ??= { keys: state.keys === null ? null : new Map(state.keys), lost: new Map(state.lost), deleted: new Set(state.deleted) };
}

/** A key added through the page: it is live again, no longer among the deleted ones. */
function added(key) {
  if (state.keys !== null) count(state.keys, key, 1);
  state.lost.delete(key);
  state.deleted.delete(key);
}

/** One copy of an added key deleted: when none is left, the Bloom filter beside it still keeps its bits. */
function deletedOne(key) {
  count(state.keys, key, -1);
  if (!state.keys.has(key)) {
    state.deleted.delete(key);
    state.deleted.add(key);
  }
}

function count(map, key, delta) {
  const copies = (map.get(key) ?? 0) + delta;
  if (copies > 0) map.set(key, copies);
  else map.delete(key);
}

// --- the arithmetic ---------------------------------------------------------------------------------

function showArithmetic(key, at) {
  const n = state.params.buckets;
  const bits = state.params.bits;
  const high = at.hash >> 32n;
  const low = at.hash & 0xffffffffn;
  // The panel names its key: after a scenario of several operations it is the last one's, which need not
  // be the key left in the field.
  $('arithmetic-title').textContent = `The arithmetic, with the numbers of ${quote(key)}`;
  // One element a row, so that a row that wraps continues under its value, not under the names.
  $('arithmetic').replaceChildren(...[
    `key          ${quote(key)}, ${new TextEncoder().encode(key).length} bytes of UTF-8`,
    `hash         XXH3-64(key, seed ${state.params.seed}) = 0x${at.hash.toString(16).padStart(16, '0')}`,
    `i1           high 32 bits × N / 2^32 = 0x${high.toString(16).padStart(8, '0')} × ${n} / 2^32 → ${at.index}`,
    `fingerprint  low 32 bits × (2^${bits} − 1) / 2^32 + 1 = 0x${low.toString(16).padStart(8, '0')} × ${2 ** bits - 1} / 2^32 + 1 → ${at.fingerprint} (${hex(at.fingerprint, bits)})`,
    `r            an odd offset from the fingerprint alone: ((${at.fingerprint} × 2654435761 mod 2^32) × N / 2^32) | 1 → ${at.alternateOffset}`,
    `i2           (N − i1 − r) mod N = ${modSteps(n, at.index, at.alternateOffset, at.alternateIndex)}`,
    `             and back: (N − i2 − r) mod N = ${state.filter.alternate(at.alternateIndex, at.fingerprint).alternateIndex} = i1, as for any N and r: N − (N − i − r) − r = i`,
    `             never i2 = i1: that needs 2 × i1 + r to be a multiple of N, but N is even and 2 × i1 + r odd (r is odd)`,
  ].map((line) => {
    const row = document.createElement('span');
    row.className = 'row';
    row.textContent = line;
    return row;
  }));
}

// --- operations: each runs on the real filter now and returns its frames and answer ------------------

function withEnding(frames, ending) {
  const last = frames[frames.length - 1];
  frames[frames.length - 1] = { ...last, text: `${last.text} ${ending}` };
  return frames;
}

function insertOp(key) {
  remember();
  const { trace, location, frames } = insertFrames(state.filter, key, state.params.seed);
  state.trace = trace;
  const b = state.params.slots;
  const result = (answer) => ({ op: 'insert', key, location, frames, answer });
  if (trace.added) {
    added(key);
    return result([`${quote(key)} inserted.`, 'present']);
  }
  if (trace.outcome === 'duplicate_limit') {
    return result([`${quote(key)} was not added: both of its buckets are full of copies of its fingerprint, ${b} in each, ${2 * b} in all (the duplicate limit). Nothing changed.`, 'warning']);
  }
  return result([`${quote(key)} could not be inserted: no room. Nothing changed.`, 'warning']);
}

function lookupOp(key) {
  remember();
  const { present, location, frames } = lookupFrames(state.filter, key, state.params.seed);
  const f = hex(location.fingerprint, state.params.bits);
  const result = (answer) => ({ op: 'lookup', key, location, frames, answer });
  if (!present) {
    const by = state.lost.get(key);
    if (by !== undefined) {
      withEnding(frames, `But ${quote(key)} was added and never deleted: its fingerprint should be in one of these two buckets, and the delete of ${quote(by)}, which was never added, removed it. A false negative.`);
      return result([`Unsafe delete: ${quote(key)} is now "definitely not present", although it was added — a false negative caused by deleting ${quote(by)}.`, 'warning']);
    }
    withEnding(frames, 'Had it been added, its fingerprint would be in one of these two buckets.');
    return result([`${quote(key)}: definitely not present.`, 'absent']);
  }
  if (state.keys === null) {
    withEnding(frames, 'The filter was imported, so the page does not know which keys were added: origin unknown.');
    return result([`${quote(key)}: possibly present (origin unknown: the filter was imported).`, 'present']);
  }
  if (state.keys.has(key)) return result([`${quote(key)}: possibly present (it was added).`, 'present']);
  const matched = frames[frames.length - 1].marks[0];
  const owners = matched ? keysBehind(state.filter, state.keys, matched[0], location.fingerprint, state.lost).map((o) => o.key) : [];
  withEnding(frames, `But ${quote(key)} was never added: ${f} belongs to ${owners.length > 0 ? owners.map(quote).join(', ') : 'another key'}, ` +
    `which has the same fingerprint and shares this bucket. With ${state.params.bits}-bit fingerprints a stored fingerprint matches with probability 1 in ${2 ** state.params.bits - 1}.`);
  return result([`${quote(key)}: possibly present — a false positive: this key was never added.`, 'warning']);
}

function deleteOp(key) {
  remember();
  const { removed, freed, location, frames } = deleteFrames(state.filter, key, state.params.seed);
  const result = (answer) => ({ op: 'delete', key, location, frames, answer });
  if (!removed) {
    const by = state.lost.get(key);
    if (by !== undefined && state.keys !== null) {
      // It was added, so deleting it is legitimate; the unsafe delete had already taken its fingerprint.
      deletedOne(key);
      state.lost.delete(key);
      return result([`${quote(key)}: nothing to delete — the delete of ${quote(by)}, which was never added, had already removed its fingerprint.`, 'warning']);
    }
    return result([`${quote(key)}: nothing to delete (definitely not present).`, 'absent']);
  }
  if (state.keys === null) return result([`${quote(key)}: one copy of its fingerprint deleted (origin unknown: the filter was imported).`, 'present']);
  if (state.keys.has(key)) {
    deletedOne(key);
    return result([`${quote(key)}: one copy deleted.`, 'present']);
  }
  const owners = keysBehind(state.filter, state.keys, freed[0], location.fingerprint, state.lost).map((o) => o.key);
  const victim = owners[0];
  // The victim stays in the list of keys added on this page: it was added and nobody deleted it. Only
  // the filter lost it, which is the point of the lesson (and what the Bloom filter beside it keeps).
  if (victim !== undefined && !state.filter.has(victim)) state.lost.set(victim, key);
  withEnding(frames, `But ${quote(key)} was never added: the fingerprint removed was ${victim !== undefined ? `${quote(victim)}'s` : 'another key\'s'}. The filter cannot tell keys with equal fingerprints apart.`);
  return result([`Unsafe delete: ${quote(key)} was never added, yet a fingerprint was removed${victim !== undefined ? ` (${quote(victim)}'s)` : ''}.`, 'warning']);
}

const DOING = { insert: 'the insert', lookup: 'the look-up', delete: 'the delete' };

/** Shows operations that have run: their frames one after another, the last one's answer. */
function perform(results, key, { animate = true } = {}) {
  const last = results[results.length - 1];
  $('key-input').value = key;
  showArithmetic(last.key, last.location);
  state.before = state.snapshot;
  state.snapshot = undefined;
  state.answer = last.answer;
  const frames = results.flatMap((r) => r.frames);
  state.pending = `${results.length === 1 ? `Replaying ${DOING[last.op]} of ${quote(last.key)}` : `Replaying ${plural(results.length, 'operation')}`}: ` +
    `the answer comes at step ${frames.length} (» jumps there).`;
  reserveAnswer(state.pending, last.answer[0]);
  player.load(frames);
  if (!animate) player.finish();
  refreshKeys();
  // The button pressed may be all that is in view (a phone, or a tall table): bring up the answer, the
  // table, the player and the narration that show what it did.
  const hidden = ['answer', 'table-box', 'step', 'narration'].some((id) => {
    const r = $(id).getBoundingClientRect();
    return r.top < 0 || r.bottom > window.innerHeight;
  });
  if (animate && hidden) lesson.bringIntoView();
}

function run(op, key = $('key-input').value, options) {
  // Enter repeats an insert or a lookup, never a delete: after Delete it looks the key up (did it go?), so
  // that an accidental delete is never one key away.
  state.lastOp = op === 'delete' ? 'lookup' : op;
  $('enter-hint').textContent = `Enter: ${state.lastOp === 'insert' ? 'Insert' : 'Look up'}`;
  const result = op === 'insert' ? insertOp(key) : op === 'lookup' ? lookupOp(key) : deleteOp(key);
  perform([result], key, options);
  return result;
}

// --- scenarios' helpers -----------------------------------------------------------------------------

const lesson = {
  get filter() { return state.filter; },
  get keys() { return state.keys; },
  reset,
  insertOp, lookupOp, deleteOp, perform,
  /** Adds keys without replaying them (the set-up of a scenario). */
  fill(prefix, howMany, { stopAtFirstFailure = false } = {}) {
    for (let i = 0; i < howMany; i++) {
      const key = `${prefix}${i}`;
      if (state.filter.add(key)) added(key);
      else if (stopAtFirstFailure) break;
    }
    showFrame(idleFrame());
    refreshKeys();
  },
  /** Runs `use` on a copy of the filter, so that trying candidates leaves the real one untouched. */
  onCopy(use) {
    const copy = CuckooFilter.import(state.filter.export());
    try {
      return use(copy);
    } finally {
      copy.dispose();
    }
  },
  findKey(prefix, test, limit = 20000) {
    for (let i = 0; i < limit; i++) if (test(`${prefix}${i}`)) return `${prefix}${i}`;
    throw new Error(`no key "${prefix}…" found for this scenario`);
  },
  bringIntoView() {
    $('workbench').scrollIntoView({ block: 'start' });
  },
};

// --- files ------------------------------------------------------------------------------------------

function exportFile() {
  player.finish();
  const bytes = state.filter.export();
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'filter.cuckoo';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  $('file-status').textContent = `Exported ${bytes.length} bytes: a 56-byte header, the ${bytes.length - 64}-byte table, an 8-byte checksum.`;
}

// The package prefixes the core's reason with "not a valid cuckoo filter export"; the core's reason for a
// file that is not an export at all says so again. One sentence, saying it once.
function importError(error) {
  if (error?.code !== 'BAD_FORMAT') return error.message;
  const reason = error.message.replace(/^not a valid cuckoo filter export: /, '');
  if (/^bad magic\b/.test(reason)) return 'this is not a cuckoo filter export (it does not begin with the format\'s magic bytes, "CKOO").';
  return `this is not a valid cuckoo filter export: ${reason.replace(/\.$/, '')}.`;
}

async function importFile(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let loaded;
  try {
    loaded = CuckooFilter.import(bytes);
  } catch (error) {
    $('file-status').textContent = `Not loaded: ${importError(error)}`;
    return;
  }
  const refuse = (why) => {
    loaded.dispose();
    $('file-status').textContent = `Not loaded: ${why}`;
  };
  if (loaded.growsInPlace) {
    return refuse(`this is a filter that doubles in place (growth 2, doubled ${plural(loaded.doublings, 'time')}), and this page draws a table of plain fingerprints. ` +
      'Load it with the package instead.');
  }
  if (loaded.growth !== 0) {
    return refuse(`this is a growing filter (growth ${loaded.growth}, ${plural(loaded.subFilterCount, 'sub-filter')}), and this page draws a single table. ` +
      'Load it with the package instead.');
  }
  const buckets = loaded.bucketCount;
  const bits = loaded.fingerprintBits;
  if (buckets > LIMITS.buckets[1] || bits > LIMITS.bits[1]) {
    return refuse(`this page draws at most ${LIMITS.buckets[1]} buckets and ${LIMITS.bits[1]}-bit fingerprints (the file has ${buckets} buckets of ${bits}-bit fingerprints).`);
  }
  player.pause();
  state.filter?.dispose();
  state.filter = loaded;
  state.params = { buckets, slots: loaded.bucketSize, bits, seed: loaded.seed, maxKicks: loaded.maxKicks, semiSorted: loaded.semiSorted };
  writeParams(state.params);
  state.keys = null;
  state.lost.clear();
  state.deleted.clear();
  state.focus = undefined;
  state.answer = undefined;
  state.snapshot = undefined;
  state.before = undefined;
  player.load([]);
  say('');
  reserveAnswer('', '');
  showSlotInfo('');
  showFrame(idleFrame());
  refreshKeys();
  $('file-status').textContent = `Loaded ${bytes.length} bytes: ${plural(loaded.size, 'fingerprint')}. The keys themselves are not in the file, so their origin is unknown.`;
}

// --- wiring -----------------------------------------------------------------------------------------

buildScenarios(lesson);
onTableResize(() => showFrame(state.frame));
reset({ buckets: 16, slots: 4, bits: 8, seed: 1n, maxKicks: 100 });
$('params').addEventListener('submit', (event) => {
  event.preventDefault();
  const read = readParams();
  if (read.error) {
    $('params-error').textContent = `Not reset: ${read.error}`;
    $(read.field).focus();
    return;
  }
  reset(read.params);
});
$('add').addEventListener('click', () => run('insert'));
$('lookup').addEventListener('click', () => run('lookup'));
$('delete').addEventListener('click', () => run('delete'));
$('key-input').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') run(state.lastOp);
});
// A slot names its keys, right under the table; a tap elsewhere in a bucket (its label or frame, a larger
// target than a slot on a phone) lists all of the bucket's slots.
$('table').addEventListener('click', (event) => {
  const at = slotAt(event.target);
  const bucket = bucketAt(event.target);
  if (at) showSlotInfo(describeSlot(state.filter, listed().keys, listed().lost, state.frame.slots, ...at));
  else if (bucket !== undefined) showSlotInfo(describeBucket(state.filter, listed().keys, listed().lost, state.frame.slots, bucket));
});
$('table').addEventListener('mouseover', (event) => {
  const at = slotAt(event.target);
  if (at) showSlotInfo(describeSlot(state.filter, listed().keys, listed().lost, state.frame.slots, ...at));
});
$('experiment').addEventListener('click', async () => {
  $('experiment').disabled = true;
  try {
    await experiment.run(state.params);
  } finally {
    $('experiment').disabled = false;
  }
});
$('export').addEventListener('click', exportFile);
$('import').addEventListener('change', (event) => {
  const input = /** @type {HTMLInputElement} */ (event.target);
  const file = input.files?.[0];
  if (file) importFile(file);
  input.value = '';
});
let resizeTimer;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    graphResized();
    showFrame(state.frame);
    drawListedBloom();
    drawSizing();
    if (experiment.runs.length > 0) experiment.draw();
  }, 100);
});
drawSizing();

// For the browser tests: the real filter and the page's operations.
/** @type {any} */ (window).cuckooLesson = startLesson();
/** @type {any} */ (window).cuckooDemo = {
  get filter() { return state.filter; },
  get trace() { return state.trace; },
  get frame() { return state.frame; },
  get frames() { return player.frames; },
  get keys() { return state.keys; },
  get experiment() { return experiment; },
  insert: (key, options) => run('insert', key, options),
  fill: (prefix, howMany) => lesson.fill(prefix, howMany),
  lookup: (key, options) => run('lookup', key, options),
  remove: (key, options) => run('delete', key, options),
  reset, scenarios, player,
  // The library and the page's own formulas, for checks against each other.
  CuckooFilter, bloomShape, fullLoadBound, expectedFpRate,
};
document.body.dataset.ready = 'true';
