// The lesson at the top of the teaching page: six short chapters, one idea each, beside a small figure of
// a real filter (8 buckets of 4 slots, 8-bit fingerprints: the wasm build of the C++ core, as everywhere on
// the page). Each chapter has one thing to do, a question and its answer; the workbench below has the rest.
import { bloomBits, bloomShape } from './bloom.js';
import { filterWithBuckets } from './params.js';
import { scenarios } from './scenarios.js';
import { bloomBitsPerItem, crossover, cuckooSizing, expectedFpRate, formulaCrossover, LOAD_REACHED } from './sizing.js';
import { $, hex, modSteps, percent, plural, quote } from './text.js';

const SHAPE = { buckets: 8, slots: 4, bits: 8, seed: 1, maxKicks: 100 };
const FIRST_KEY = 'apple';
const MORE_KEYS = ['pear', 'plum', 'fig', 'lime', 'kiwi'];
const PROBES = 1000;
// The tour's stop whose table refuses a key while a slot is free (chapter 3's answer points at it).
const NO_ROOM_STOP = scenarios.findIndex((scenario) => scenario.unreachableFreeSlot);
// What a large table of 4-slot buckets reaches before an add first fails, with this page's 100 kicks and
// with 500 (the core's walk looks one step ahead): measured with the real filter, 100,000 buckets, 8-bit
// fingerprints, seeds 1-3, by tests/e2e/page_text.test.ts, which holds the sentence to them.
const LARGE_TABLE_FULL = { 100: '95 to 96%', 500: 'about 97%' };

const lesson = {
  filter: /** @type {any} */ (undefined),
  keys: /** @type {string[]} */ ([]), // added through the lesson, in order
  marks: { first: -1, second: -1, slots: /** @type {number[]} */ ([]) }, // what the figure points at
  chapter: 0,
  changedBy: -1, // the last chapter whose action changed the table (an earlier one revisited shows its keys too)
  verdict: '', // chapter 6: which filter is smaller at the slider's rate
  filled: 0, // keys "key-1", "key-2", ... added so far by chapters 3 and 4
};

const f = (value) => hex(value, SHAPE.bits);
// A key in a result, which is HTML: the reader types keys ("<b>" is a key like any other).
const html = (key) => quote(key).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function addKey(key) {
  const trace = lesson.filter.addTraced(key);
  if (trace.added) lesson.keys.push(key);
  return trace;
}

/** The next filler key's trace ("key-1", "key-2", ...). */
function addFiller() {
  lesson.filled++;
  return addKey(`key-${lesson.filled}`);
}

// Before the chapter's action, its result line says where the result will come (a blank box looked like a gap).
function result(html) {
  const box = $('lesson-result');
  box.innerHTML = html === '' ? '<span class="hint">What the filter does will show here.</span>' : html;
}

// One chapter: its title, its prose (short paragraphs), its one action, and a question with its answer.
// `act` runs the action on the real filter and says what happened; when the reader came by another route
// (the chapter buttons), it first makes what it needs (a key to delete, a table full enough), and says so.
const chapters = [
  {
    title: 'Keep a fingerprint, not the key',
    prose: [
      'A cuckoo filter is a table of <strong>buckets</strong> (the figure\'s 8 numbered columns) of 4 <strong>slots</strong>.',
      'To add a key, the filter hashes it and keeps a small number made from the hash, its <strong>fingerprint</strong>, in a slot of a bucket the hash picks. Not the key. Here a fingerprint has 8 bits (two hex digits in the figure): the hash\'s low 32 bits scaled down to 1 … 255, as 0 marks an empty slot.',
    ],
    action: 'key',
    button: 'Add the key',
    act() {
      const key = $('lesson-key').value;
      if (key === '') return result('Type a key first.');
      const trace = addKey(key);
      const at = trace.location;
      const placed = trace.steps.find((step) => step.kind !== 'undo');
      lesson.marks = { first: at.index, second: -1, slots: placed ? [placed.bucket * SHAPE.slots + placed.slot] : [] };
      if (!trace.added) return result(`${html(key)} was not added: ${trace.outcome === 'table_full' ? 'the table is full' : 'its buckets are full of its own fingerprint'}.`);
      const copies = lesson.keys.filter((k) => k === key).length;
      const kicks = trace.steps.filter((step) => step.kind === 'kick').length;
      const moved = kicks > 0 ? ` To make room it kicked ${plural(kicks, 'fingerprint')} on to ${kicks === 1 ? 'its' : 'their'} other bucket (chapter 3).` : '';
      const again = copies > 1 ? ` Added ${copies} times, it has ${copies} copies now: a filter keeps one for each add, unlike a set.` : '';
      result(`${html(key)} has fingerprint <strong>${f(at.fingerprint)}</strong>; it went to bucket ${placed.bucket}, slot ${placed.slot}. That one byte is all the filter keeps of ${html(key)}.${moved}${again}`);
    },
    question: 'The table now holds the fingerprint of your key. Could you get the key back out of it?',
    answer: 'No. 8 bits have 256 values, 255 of them usable (0 means "empty"), and countless keys share each one. The filter can only answer about a key you bring to it, which is also why it is so small.',
  },
  {
    title: 'Two buckets for each key',
    prose: [
      'Each key has <strong>two</strong> buckets it may live in. The first comes from the hash. The second is computed from the first bucket and the <em>fingerprint</em> alone: <code>i2 = (N − i1 − r) mod N</code>, with N = 8 buckets and r an odd number from 1 to N − 1 made from the fingerprint f.',
      '<details class="lesson-more lesson-r"><summary>How r is made from f</summary><p>r = ⌊(f × 0x9E3779B1 mod 2³²) × N / 2³²⌋, made odd: odd, so that with an even N the two buckets always differ.</p></details>',
      'The same formula turns i2 back into i1, so a fingerprint in either bucket can always find the other one, without the key. Why two and not one: with a choice, a full bucket can pass a fingerprint on (chapter 3), and tables fill to about 95% instead of failing at the first full bucket.',
    ],
    action: 'button',
    button: 'Add five more keys',
    act() {
      const lines = [];
      for (const key of MORE_KEYS) {
        if (lesson.keys.includes(key)) continue;
        const trace = addKey(key);
        const at = trace.location;
        lines.push(`${html(key)} ${f(at.fingerprint)}: bucket ${at.index} or ${at.alternateIndex}${trace.added ? '' : ' (not added: no room, chapter 3)'}`);
      }
      const last = lesson.filter.locate(MORE_KEYS[MORE_KEYS.length - 1]);
      lesson.marks = { first: last.index, second: last.alternateIndex, slots: [] };
      result(lines.length === 0
        ? 'They are in already. The outlined buckets are the two of "kiwi".'
        : `${lines.join('; ')}. The outlined buckets are the two of "kiwi": its fingerprint ${f(last.fingerprint)} gives r = ${last.alternateOffset}, and ${modSteps(SHAPE.buckets, last.index, last.alternateOffset, last.alternateIndex)}.`);
    },
    question: 'Why must the second bucket come from the fingerprint, and not from the key?',
    answer: 'Because of the next chapter: when a fingerprint has to move out of a full bucket, the filter no longer has its key. All it has is the fingerprint and the bucket it sits in, and from those two it must find where the fingerprint may go. (The cuckoo filter paper writes it i2 = i1 XOR hash(f), which needs a power-of-two N; this form works for any even N, so a table can be sized exactly.)',
  },
  {
    title: 'Kicks, and a full table',
    prose: [
      'A new fingerprint goes into a free slot of its first bucket, else of its second. When both are full, it takes a slot in one of them (chosen at random) anyway and <strong>kicks out</strong> a fingerprint that was there (one whose other bucket has room, if any), which moves to <em>its</em> other bucket, and may kick out another: the cuckoo bird\'s way.',
      `After too many kicks (100 here) the add gives up, undoes its walk and reports the table full. This small table usually fills every slot first. A large one with 4 slots a bucket first fails at ${LARGE_TABLE_FULL[100]} full with 100 kicks, ${LARGE_TABLE_FULL[500]} with 500: before each kick, this filter looks one step ahead for a fingerprint whose other bucket has room (the cuckoo filter paper, kicking at random, reports 95% with 500). (An add also fails when both its buckets hold only its own fingerprint: a ninth add of the same key.)`,
    ],
    action: 'button',
    button: 'Add keys until one kicks',
    second: 'Fill the table',
    act() {
      const first = lesson.filled + 1;
      for (let i = 0; i < 200; i++) {
        const trace = addFiller();
        if (!trace.added) return showFull(trace);
        const kicks = trace.steps.filter((step) => step.kind === 'kick');
        if (kicks.length === 0) continue;
        // The keys added on the way, said (a reader saw the table jump from 6 to 27 fingerprints unexplained).
        const before = lesson.filled - first;
        const quiet = before === 0 ? '' : before === 1 ? `First "key-${first}" was added without a kick. Then ` : `First "key-${first}" to "key-${lesson.filled - 1}" (${before} keys) were added without a kick. Then `;
        lesson.marks = { first: trace.location.index, second: trace.location.alternateIndex, slots: trace.steps.map((s) => s.bucket * SHAPE.slots + s.slot) };
        const walk = trace.steps.map((step) => (step.kind === 'kick' ? `${f(step.fingerprintIn)} into bucket ${step.bucket}, kicking out ${f(step.fingerprintOut)}` : `${f(step.fingerprintIn)} into a free slot of bucket ${step.bucket}`));
        return result(`${quiet}"key-${lesson.filled}" found both its buckets (${trace.location.index} and ${trace.location.alternateIndex}) full: ${walk.join('; then ')}. ${plural(kicks.length, 'kick')}; the moved slots are highlighted.`);
      }
      return result('No kick in 200 adds.');
    },
    actSecond() {
      for (let i = 0; i < 200; i++) {
        const trace = addFiller();
        if (!trace.added) return showFull(trace);
      }
      return result('The table took 200 more keys.');
    },
    question: 'In a large table, adds start to fail at about 95% full, while 1 slot in 20 is still empty. Why can\'t the new fingerprint use those?',
    answer: `A fingerprint may only live in its own two buckets, and each kick moves one fingerprint between its own two. In a large table the last empty slots are in buckets that a walk from the new key\'s buckets does not reach within 100 kicks; allowing more kicks helps a little, but near full each added kick buys less, so the filter stops and reports full. In a table of 8 buckets a walk soon reaches most buckets, so this one usually fills completely; not always: the tour\'s stop ${NO_ROOM_STOP + 1}, "${scenarios[NO_ROOM_STOP].title}", shows a table of 8 buckets whose free slot lies in a bucket that no walk from the new key reaches.`,
  },
  {
    title: 'False positives',
    prose: [
      'To look a key up, the filter computes its fingerprint and two buckets and compares the 8 slots there.',
      '<strong>A key that was added is always found.</strong> Its fingerprint is only ever stored in one of its own two buckets; a kick moves a fingerprint only between its own two; an add whose walk fails is undone, so no fingerprint is dropped; and deleting a key that was added removes its own copy, or one that is interchangeable with it. Only deleting a key that was never added can remove another key\'s fingerprint (chapter 5).',
      'A key never added is reported "possibly present" when one of those 8 slots happens to hold the same fingerprint: a <strong>false positive</strong>. With 8-bit fingerprints each slot matches about 1 time in 255.',
    ],
    action: 'button',
    button: `Look up ${PROBES.toLocaleString('en-US')} keys never added`,
    act() {
      let note = '';
      if (lesson.filter.size < 16) {
        while (lesson.filter.size < 24 && addFiller().added);
        note = `(First the table was filled to ${lesson.filter.size} keys: there was little to match.) `;
      }
      let yes = 0;
      for (let i = 0; i < PROBES; i++) yes += lesson.filter.has(`absent-${i}`) ? 1 : 0;
      const load = lesson.filter.loadFactor;
      const expected = PROBES * expectedFpRate(SHAPE.slots, SHAPE.bits, load);
      lesson.marks = { first: -1, second: -1, slots: [] };
      result(`${note}<strong>${yes}</strong> of ${PROBES.toLocaleString('en-US')} said "possibly present". At ${percent(load)} full, about ${Math.round(expected)} were expected: 8 slots × ${percent(load)} × 1/255 = ${percent(expected / PROBES)} of lookups (chance alone moves a count like this by up to about ${Math.round(2 * Math.sqrt(expected))} either way, 19 times in 20).`);
    },
    question: 'How would you make false positives rarer, and what does it cost?',
    answer: 'Longer fingerprints: each extra bit halves the chance that a slot matches. It costs that bit in every slot, so memory grows by one bit per slot for each halving.',
  },
  {
    title: 'Deleting, which a Bloom filter cannot do',
    prose: [
      'To delete a key, the filter removes its fingerprint from one of its two buckets; other keys keep their own slots. (A key added twice has two copies, unlike in a set: a delete removes one.)',
      'A <strong>Bloom filter</strong> sets a few bits of one shared array for each key, and keys share bits: clearing a key\'s bits would lose other keys, and the array does not record which bits are shared. So it cannot delete. (A counting Bloom filter can, with a 4-bit counter in place of each bit: about 4 times the space.)',
    ],
    action: 'button',
    // The first key the reader added (only keys that were added may be deleted: the question says why).
    button: () => `Delete ${quote(lesson.keys[0] ?? FIRST_KEY)}`,
    act() {
      let note = '';
      if (lesson.keys.length === 0) {
        addKey(FIRST_KEY); // an empty table always has room
        note = `(${html(FIRST_KEY)} was added first.) `;
      }
      const key = lesson.keys[0];
      const at = lesson.filter.locate(key);
      const before = lesson.filter.slots();
      lesson.filter.delete(key);
      lesson.keys.shift();
      if (lesson.keys.length > 0) $('lesson-act').textContent = `Delete another: ${quote(lesson.keys[0])}`;
      const after = lesson.filter.slots();
      const freed = before.findIndex((value, i) => value !== after[i]);
      lesson.marks = { first: at.index, second: at.alternateIndex, slots: freed >= 0 ? [freed] : [] };
      const still = lesson.filter.has(key);
      const copiesLeft = lesson.keys.filter((k) => k === key).length;
      const otherKeys = lesson.keys.filter((k) => k !== key);
      const others = otherKeys.filter((other) => !lesson.filter.has(other));
      // The same keys in an optimal Bloom filter at 3%: how many of the deleted key's bits other keys set too.
      const shape = bloomShape(otherKeys.length + 1, 0.03);
      const mine = new Set(bloomBits(at.hash, shape));
      const shared = new Set();
      for (const other of otherKeys) for (const bit of bloomBits(lesson.filter.locate(other).hash, shape)) if (mine.has(bit)) shared.add(bit);
      const found =
        otherKeys.length === 0 ? 'no other key is in the table' : others.length > 0 ? `${plural(others.length, 'other key')} NOT found`
          : otherKeys.length === 1 ? 'the other key is still found' : `all ${plural(otherKeys.length, 'other key')} are still found`;
      const answer = copiesLeft > 0 ? `"possibly present": it was added ${copiesLeft + 1} times, and ${copiesLeft === 1 ? 'one copy remains' : `${copiesLeft} copies remain`}`
        : still ? '"possibly present" (a false positive: another key\'s fingerprint matches)'
          : '"not present": no copy of its fingerprint is left (another key\'s could still match it: a false positive)';
      // Said of the count it names: "1 of its 5 bits ... clearing it", never "clearing them".
      const bloom = shared.size === 0
        ? `none of its ${plural(mine.size, 'bit')} would be another key's yet, but the array could not know that`
        : `${shared.size} of its ${plural(mine.size, 'bit')} would also be ${shared.size === 1 ? 'another key\'s: clearing it would lose that key' : 'other keys\': clearing them would lose those keys'}`;
      result(`${note}Deleted ${html(key)}: bucket ${Math.floor(freed / SHAPE.slots)}, slot ${freed % SHAPE.slots} is empty again. ${html(key)}: <strong>${answer}</strong>; ${found}. In a Bloom filter of these keys, ${bloom}.`);
    },
    question: 'Why must you only delete keys that you added?',
    answer: 'The filter cannot tell a key from another key with the same fingerprint and buckets. Deleting a key never added may remove that other key\'s fingerprint, and then that key is missed: the one way a cuckoo filter can say "not present" for a key it holds. Deleting a key you did add is always safe: if another key shares its fingerprint and buckets, their copies are interchangeable, and whichever copy goes, the other key keeps one.',
  },
  {
    title: 'Space, against a Bloom filter',
    // A function: its numbers come from the library's sizing, which needs the wasm module.
    prose: () => [
      'For a false-positive rate ε, a Bloom filter needs about 1.44 × log2(1/ε) bits a key. A cuckoo filter needs a fingerprint of log2(1/ε) + 3 bits (3 = log2 8: a lookup compares 8 slots, chapter 4), <em>rounded up to whole bits</em>, in a table about 95% full: the fingerprint / 0.95 bits a key.',
      'Each halving of ε adds 1.44 bits a key to the Bloom filter and only 1 / 0.95 ≈ 1.05 to the cuckoo filter, which starts 3 / 0.95 ≈ 3.2 bits behind: the cuckoo filter wins at small rates. Where it starts to win depends on what is counted:',
      spaceTable(),
      `Semi-sorted buckets (an option of this library) save a bit a key, which moves the crossing to larger rates. A real filter rounds its fingerprint up to whole bits, which costs it up to about 1.05 bits a key (one bit over a 95% full table) and makes the crossing a band; the formula and the paper leave the rounding out (the paper's figure also rests on its own assumptions of load and hashing, not on this formula's). <strong>Slide the rate</strong> under the bars: inside the band the smaller filter changes back and forth.`,
    ],
    action: 'rate',
    act() {
      const exponent = Number($('lesson-rate').value);
      const rate = 10 ** -exponent;
      const cuckoo = cuckooSizing(rate, SHAPE.slots).bitsPerItem;
      const bloom = bloomBitsPerItem(rate);
      // Compared as shown (one decimal): "13.7 ... 13.7: the Bloom filter is smaller" read as a bug.
      const [c, b] = [Number(cuckoo.toFixed(1)), Number(bloom.toFixed(1))];
      const smaller = c < b ? 'the cuckoo filter is smaller' : c > b ? 'the Bloom filter is smaller' : 'about the same';
      lesson.verdict = smaller;
      $('lesson-rate-value').textContent = percent(rate);
      $('lesson-rate').setAttribute('aria-valuetext', percent(rate)); // not the exponent the slider holds
      // The figure of this chapter: the two sizes as bars (the table is not used here).
      for (const [id, bits] of [['cuckoo', cuckoo], ['bloom', bloom]]) {
        $(`lesson-bar-${id}`).style.width = `${Math.min(100, (bits / 45) * 100).toFixed(1)}%`;
        $(`lesson-bits-${id}`).textContent = `${bits.toFixed(1)} bits`;
      }
      result(`At a rate of ${percent(rate)}: cuckoo filter <strong>${cuckoo.toFixed(1)}</strong> bits a key, Bloom filter <strong>${bloom.toFixed(1)}</strong>: ${smaller}.`);
    },
    question: `Slide to ${percent(1e-4)}, one false positive in 10,000 lookups: which filter is smaller there, and by how much?`,
    answer() {
      const [c, b] = [cuckooSizing(1e-4, SHAPE.slots).bitsPerItem, bloomBitsPerItem(1e-4)];
      const { always } = crossover(SHAPE.slots);
      const row = always !== undefined && 1e-4 < always ? ` ${percent(1e-4)} is below ${percent(always)}, where the table\'s first row says the cuckoo filter is always the smaller.` : '';
      return `At ${percent(1e-4)} the cuckoo filter takes ${c.toFixed(1)} bits a key and the Bloom filter ${b.toFixed(1)}: the ${c < b ? 'cuckoo' : 'Bloom'} filter is smaller by ${Math.abs(b - c).toFixed(1)} bits a key (${Math.round((100 * Math.abs(b - c)) / Math.max(b, c))}%).${row}`;
    },
  },
];

// The cuckoo filter paper's "below 3%" (Fan et al., 2014): semi-sorted buckets, fingerprints not rounded.
const PAPER_CROSSING = 0.03;

/**
 * Where each filter is the smaller, one row for each way of counting: this library's real filters (a band:
 * below its left edge the cuckoo filter is always the smaller, above its right edge the Bloom filter), and
 * the formulas, whose lines cross once. The page's one statement of these rates.
 */
function spaceRows() {
  const plain = crossover(SHAPE.slots);
  const semi = crossover(SHAPE.slots, undefined, true);
  const formula = formulaCrossover(SHAPE.slots);
  const semiFormula = formulaCrossover(SHAPE.slots, true);
  return [
    { name: 'this library, 4 slots a bucket', below: plain.always, above: plain.first },
    { name: 'this library, 4 slots, semi-sorted', below: semi.always, above: semi.first },
    { name: `the formula, without rounding (α = ${Math.round(LOAD_REACHED[SHAPE.slots] * 100)}%)`, below: formula, above: formula },
    { name: 'the formula, semi-sorted, without rounding', below: semiFormula, above: semiFormula },
    { name: 'the cuckoo filter paper (semi-sorted, without rounding)', below: PAPER_CROSSING, above: PAPER_CROSSING },
  ];
}

function spaceTable() {
  const cell = (rate) => `<td>${rate === undefined ? 'never' : percent(rate)}</td>`;
  const rows = spaceRows().map((row) => `<tr><th scope="row">${row.name}</th>${cell(row.below)}${cell(row.above)}</tr>`);
  return '<table id="lesson-space" class="lesson-space"><thead><tr><th scope="col">counted as</th><th scope="col">cuckoo always smaller below</th>' +
    `<th scope="col">Bloom always smaller above</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function drawFigure() {
  // Before the filter exists (the wasm module still compiling), an empty table of the same shape.
  const slots = lesson.filter ? lesson.filter.slots() : new Uint32Array(SHAPE.buckets * SHAPE.slots);
  const grid = $('lesson-table');
  if (grid.childElementCount === 0) {
    for (let b = 0; b < SHAPE.buckets; b++) {
      const bucket = document.createElement('div');
      bucket.className = 'lesson-bucket';
      bucket.dataset.bucket = String(b);
      const label = document.createElement('span');
      label.className = 'lesson-index';
      label.textContent = String(b);
      bucket.append(label);
      for (let s = 0; s < SHAPE.slots; s++) {
        const slot = document.createElement('span');
        slot.className = 'lesson-slot';
        slot.dataset.slot = String(s);
        bucket.append(slot);
      }
      grid.append(bucket);
    }
  }
  for (const bucket of grid.children) {
    const b = Number(/** @type {HTMLElement} */ (bucket).dataset.bucket);
    bucket.classList.toggle('first', b === lesson.marks.first);
    bucket.classList.toggle('second', b === lesson.marks.second);
    for (const slot of bucket.querySelectorAll('.lesson-slot')) {
      const i = b * SHAPE.slots + Number(/** @type {HTMLElement} */ (slot).dataset.slot);
      slot.textContent = slots[i] === 0 ? '' : f(slots[i]).replace(/^0x/, '');
      slot.classList.toggle('marked', lesson.marks.slots.includes(i));
    }
  }
  if (!lesson.filter) {
    $('lesson-caption').textContent = 'A real filter, 8 × 4 slots: loading…';
    return;
  }
  const size = lesson.filter.size;
  if (lesson.chapter === chapters.length - 1) {
    const rate = 10 ** -Number($('lesson-rate').value);
    // The verdict beside the slider (on a phone the result line under the chapter is off screen).
    $('lesson-caption').textContent = `At a false-positive rate of ${percent(rate)}, ${lesson.verdict}. Bits a key: this library's sizing, and the Bloom filter's formula.`;
    return;
  }
  const outlined = lesson.marks.first >= 0
    ? lesson.marks.second >= 0 ? ' Solid outline: the key\'s first bucket; dashed: its second.' : ' Outlined: the key\'s bucket.'
    : '';
  const later = lesson.changedBy > lesson.chapter ? ' It also holds what later chapters added.' : '';
  $('lesson-caption').textContent = `A real filter, ${SHAPE.buckets} × ${SHAPE.slots} slots: ${plural(size, 'fingerprint')}, ${percent(lesson.filter.loadFactor)} full.${outlined}${later}`;
}

/**
 * In two columns, the chapter's side is as tall as the tallest chapter's, so that the card keeps its height
 * from chapter to chapter ("Next chapter" follows the question, on screen, the room left under it). On one column each
 * chapter takes its own length: the figure stays at the top of the screen there, and the tallest chapter
 * (the space table) is twice the shortest.
 */
function equalizeChapters() {
  const text = /** @type {HTMLElement} */ (document.querySelector('.lesson-text'));
  text.style.minHeight = '';
  if (getComputedStyle($('lesson-body')).gridTemplateColumns.split(' ').length < 2) return;
  const saved = { chapter: lesson.chapter, marks: lesson.marks, result: $('lesson-result').innerHTML, act: $('lesson-act').textContent, verdict: lesson.verdict };
  let tallest = 0;
  for (let i = 0; i < chapters.length; i++) {
    showChapter(i);
    tallest = Math.max(tallest, text.getBoundingClientRect().height);
  }
  showChapter(saved.chapter);
  Object.assign(lesson, { marks: saved.marks, verdict: saved.verdict });
  $('lesson-result').innerHTML = saved.result;
  $('lesson-act').textContent = saved.act;
  drawFigure();
  text.style.minHeight = `${Math.ceil(tallest)}px`;
}

function showChapter(index) {
  lesson.chapter = index;
  lesson.marks = { first: -1, second: -1, slots: [] };
  const chapter = chapters[index];
  $('chapter-number').textContent = `Chapter ${index + 1} of ${chapters.length}`;
  $('chapter-title').textContent = chapter.title;
  const prose = typeof chapter.prose === 'function' ? chapter.prose() : chapter.prose;
  // A fold (how a formula's part is made) and a table are blocks of their own, not paragraphs.
  $('chapter-prose').innerHTML = prose.map((p) => (/^<(details|table)/.test(p) ? p : `<p>${p}</p>`)).join('');
  $('lesson-key-label').hidden = chapter.action !== 'key';
  $('lesson-rate-label').hidden = chapter.action !== 'rate';
  $('lesson-act').hidden = chapter.action === 'rate';
  $('lesson-act').textContent = (typeof chapter.button === 'function' ? chapter.button() : chapter.button) ?? '';
  $('lesson-act-second').hidden = chapter.second === undefined;
  $('lesson-act-second').textContent = chapter.second ?? '';
  $('lesson-question-text').textContent = chapter.question;
  // Answers are the page's own text (a function's may hold a "more" disclosure); never the reader's input.
  $('lesson-answer').innerHTML = typeof chapter.answer === 'function' ? chapter.answer() : chapter.answer;
  /** @type {HTMLDetailsElement} */ (document.getElementById('lesson-question')).open = false;
  result('');
  // The bars take the table's place at the table's height: on a phone the chapter under them keeps its place.
  const tableHeight = $('lesson-table').getBoundingClientRect().height;
  if (tableHeight > 0) $('lesson-bars').style.height = `${tableHeight}px`;
  $('lesson-table').hidden = chapter.action === 'rate';
  $('lesson-bars').hidden = chapter.action !== 'rate';
  if (chapter.action === 'rate') chapter.act();
  $('lesson-back').disabled = index === 0;
  $('lesson-next').hidden = index === chapters.length - 1;
  $('lesson-next-bottom').hidden = index === chapters.length - 1;
  $('lesson-done').hidden = index !== chapters.length - 1;
  $('lesson-skip').hidden = index === chapters.length - 1;
  for (const dot of document.querySelectorAll('#lesson-dots button')) {
    const mine = Number(/** @type {HTMLElement} */ (dot).dataset.chapter) === index;
    dot.setAttribute('aria-current', mine ? 'step' : 'false');
  }
  drawFigure();
}

/**
 * The lesson's first chapter and its empty table, drawn before the wasm module is ready (it takes a moment
 * to compile): drawn after it, the table pushed the chapter 140 px down on a phone. Its controls wait.
 */
export function showLessonShell() {
  const dots = $('lesson-dots');
  chapters.forEach((chapter, i) => {
    const dot = document.createElement('button');
    dot.type = 'button';
    dot.dataset.chapter = String(i);
    dot.textContent = String(i + 1);
    dot.setAttribute('aria-label', `Chapter ${i + 1}: ${chapter.title}`);
    dot.title = chapter.title;
    dot.disabled = true;
    dot.addEventListener('click', () => showChapter(i));
    dots.append(dot);
  });
  for (const id of ['lesson-act', 'lesson-next', 'lesson-next-bottom']) $(id).disabled = true;
  showChapter(0);
  document.body.classList.remove('drawing');
}

/** The real filter, and the controls that use it. */
export function startLesson() {
  lesson.filter = filterWithBuckets(SHAPE);
  for (const dot of document.querySelectorAll('#lesson-dots button')) /** @type {HTMLButtonElement} */ (dot).disabled = false;
  for (const id of ['lesson-act', 'lesson-next', 'lesson-next-bottom']) $(id).disabled = false;
  const run = (what) => {
    chapters[lesson.chapter][what]();
    if (chapters[lesson.chapter].action !== 'rate') lesson.changedBy = Math.max(lesson.changedBy, lesson.chapter);
    drawFigure();
    // What a button did comes on screen (on a phone it could be below the fold); not while a slider is
    // dragged in the figure above it.
    if (chapters[lesson.chapter].action !== 'rate') $('lesson-result').scrollIntoView({ block: 'nearest' });
  };
  // The figure's height, for the scroll margins of what is brought on screen under it (on a phone it stays
  // at the top of the screen: style.css).
  new ResizeObserver(() => {
    $('lesson').style.setProperty('--lesson-figure-h', `${Math.ceil($('lesson-figure').getBoundingClientRect().height) + 8}px`);
  }).observe($('lesson-figure'));
  $('lesson-act').addEventListener('click', () => run('act'));
  $('lesson-act-second').addEventListener('click', () => run('actSecond'));
  $('lesson-key').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') run('act');
  });
  $('lesson-rate').addEventListener('input', () => run('act'));
  // An opened answer is brought on screen (on a phone it opened below the fold).
  $('lesson-question').addEventListener('toggle', () => {
    if (/** @type {HTMLDetailsElement} */ (document.getElementById('lesson-question')).open)
      $('lesson-answer').scrollIntoView({ block: 'nearest' });
  });
  $('lesson-back').addEventListener('click', () => showChapter(Math.max(0, lesson.chapter - 1)));
  const next = () => showChapter(Math.min(chapters.length - 1, lesson.chapter + 1));
  $('lesson-next').addEventListener('click', next);
  // At the end of a chapter too: on a phone its answer ends a screen below the controls at the top.
  $('lesson-next-bottom').addEventListener('click', () => {
    next();
    $('lesson').scrollIntoView({ block: 'start' });
    $('lesson-next').focus({ preventScroll: true });
  });
  showChapter(0);
  equalizeChapters();
  let width = window.innerWidth;
  window.addEventListener('resize', () => {
    if (window.innerWidth === width) return; // a phone's toolbar showing or hiding changes the height only
    width = window.innerWidth;
    equalizeChapters();
  });
  return {
    get filter() { return lesson.filter; },
    get keys() { return lesson.keys; },
    get chapter() { return lesson.chapter; },
    chapters: chapters.length,
  };
}

/** What the page's lesson says the full-table load is, for a check against the filter (tests). */
function showFull(trace) {
  const size = lesson.filter.size;
  const slots = SHAPE.buckets * SHAPE.slots;
  lesson.marks = { first: trace.location.index, second: trace.location.alternateIndex, slots: [] };
  const where = size === slots ? `every one of the ${slots} slots is taken` : `the table is full at ${size} of ${slots} slots (${percent(size / slots)}), though ${plural(slots - size, 'slot is', 'slots are')} empty`;
  result(`"key-${lesson.filled}" found no room after ${SHAPE.maxKicks} kicks, and its walk was undone: ${where}. The outlined buckets are its two.`);
}
