// The scenarios: each sets up a table with the real filter and runs one operation (or a short sequence)
// for the reader to step through, with a question and an answer that can be revealed.
import { reachableBuckets, freeSlotsIn } from './frames.js';
import { bitsSharedBy } from './bloom.js';
import { $ } from './text.js';

export const scenarios = [
  {
    title: 'A clean insert',
    text: 'An empty table: the first candidate bucket has a free slot, so the fingerprint simply goes there.',
    question: 'Once bucket i1 holds 4 fingerprints (it is full), where does the fingerprint of a fifth key with the same i1 go?',
    answer: 'To that key\'s own second bucket. i2 = (N − i1 − r(f)) mod N depends on the key\'s fingerprint, so keys that share i1 usually have different second buckets; only when both of a key\'s buckets are full does a kick-out walk start.',
    shape: { buckets: 16, slots: 4, bits: 8, maxKicks: 100 },
    run(lesson) {
      lesson.reset({ ...this.shape, seed: 1n });
      lesson.perform([lesson.insertOp('apple')], 'apple');
    },
  },
  {
    title: 'A long kick chain',
    text: 'A table of 2-slot buckets, 84% full. Both buckets of the new key are full, so a fingerprint is kicked out to its other bucket, which evicts another, and so on: here every kick lands in a bucket the walk has not visited yet, until one has a free slot. The walk looks only one step ahead, so it is not always the shortest route: the last step says whether a shorter one existed.',
    question: 'Why does every evicted fingerprint know where to go without its key?',
    answer: 'Its other bucket depends only on the bucket it is in and its own fingerprint: (N − i − r(f)) mod N. Applying the formula twice gives back i, whatever N and r are: N − (N − i − r) − r = i. So from either bucket the fingerprint alone leads to the other one. (N even and r odd do something else: they keep the two buckets apart, since i = (N − i − r) mod N would need 2i + r, an odd number, to be a multiple of the even N.)',
    shape: { buckets: 16, slots: 2, bits: 8, maxKicks: 100 },
    run(lesson) {
      lesson.reset({ ...this.shape, seed: 3n });
      lesson.fill('fruit-', 27);
      // The candidate whose insert takes the longest walk that never revisits a bucket (tried on copies).
      let best;
      let bestKicks = 0;
      for (let i = 0; i < 400; i++) {
        const key = `berry-${i}`;
        const kicks = lesson.onCopy((copy) => {
          const trace = copy.addTraced(key);
          const kicked = trace.steps.filter((s) => s.kind === 'kick').map((s) => s.bucket);
          return trace.added && new Set(kicked).size === kicked.length ? kicked.length : -1;
        });
        if (kicks > bestKicks) {
          best = key;
          bestKicks = kicks;
        }
      }
      lesson.perform([lesson.insertOp(best)], best);
    },
  },
  {
    title: 'An insert that finds no room: the walk fails and is undone',
    unreachableFreeSlot: true, // run() finds a table whose free slot no walk from the new key reaches
    text: 'A small table filled until an insert fails, with at most 12 kicks. A free slot is still visible, yet the walk never gets there: it goes round a cycle among the shaded buckets, the only ones it can reach. Then it puts every fingerprint back where it was.',
    question: 'What would go wrong if a failed insert were not undone?',
    answer: 'The walk ends with a fingerprint in hand and no slot for it. Dropping it would lose a key that was added earlier: that key would then be reported "definitely not present", a false negative. Undoing the walk restores every moved fingerprint, so a failed insert changes nothing and only the new key is refused.',
    shape: { buckets: 8, slots: 2, bits: 8, maxKicks: 12 },
    run(lesson) {
      // The first seed whose filled table refuses a key while a free slot lies outside that key's reach.
      for (let seed = 5n; seed < 400n; seed++) {
        lesson.reset({ ...this.shape, seed });
        // Fill until an insert fails (a failed insert changes nothing, so the table is simply full).
        lesson.fill('seed-', 64, { stopAtFirstFailure: true });
        const filter = lesson.filter;
        const slots = filter.slots();
        const free = [...Array(filter.bucketCount).keys()].filter((i) => freeSlotsIn(slots, filter.bucketSize, i) > 0);
        if (free.length === 0) continue;
        for (let i = 0; i < 200; i++) {
          const key = `late-${i}`;
          if (!lesson.onCopy((copy) => !copy.add(key))) continue;
          const at = filter.locate(key);
          const reach = reachableBuckets(filter, slots, [at.index, at.alternateIndex]);
          if (free.every((bucket) => !reach.has(bucket))) {
            lesson.perform([lesson.insertOp(key)], key);
            return;
          }
        }
      }
      throw new Error('no table with an unreachable free slot was found');
    },
  },
  {
    title: 'A false positive',
    text: 'With 4-bit fingerprints only 15 values exist, so a key that was never added often finds "its" fingerprint in one of its buckets.',
    question: 'How many more fingerprint bits would make this about 1,000 times rarer?',
    answer: 'Ten: each extra bit halves the chance that a stored fingerprint matches, and 2^10 = 1,024. With 4 slots the full-table bound 2b / (2^f − 1) goes from 8/15 (53%) at 4 bits to 8/16,383 (0.05%) at 14 bits.',
    shape: { buckets: 16, slots: 4, bits: 4, maxKicks: 100 },
    run(lesson) {
      lesson.reset({ ...this.shape, seed: 7n });
      lesson.fill('word-', 30);
      const ghost = lesson.findKey('ghost-', (key) => !lesson.keys.has(key) && lesson.filter.has(key));
      lesson.perform([lesson.lookupOp(ghost)], ghost);
    },
  },
  {
    title: 'The duplicate limit',
    text: 'A key can be added more than once (the filter is a multiset), but only 2 × slots times: after that both of its buckets hold nothing else.',
    question: 'Why can no kick make room here?',
    answer: 'A fingerprint may only live in its two buckets: a lookup looks nowhere else. Both already hold nothing but copies of it, and kicking one copy out only sends it to the other, equally full, bucket.',
    shape: { buckets: 8, slots: 2, bits: 8, maxKicks: 100 },
    run(lesson) {
      lesson.reset({ ...this.shape, seed: 9n });
      for (let i = 0; i < 4; i++) lesson.perform([lesson.insertOp('same')], 'same', { animate: false });
      lesson.perform([lesson.insertOp('same')], 'same');
    },
  },
  {
    title: 'An unsafe delete',
    text: '"victim" is added. Another key is never added: the first of "twin-0", "twin-1", … whose fingerprint equals victim\'s and which shares a bucket with it. The replay looks that key up ("possibly present"), deletes it — which removes victim\'s fingerprint — and looks victim up again.',
    question: 'At the end of the replay victim is reported absent, although it was added: which guarantee did the delete break, and why?',
    answer: '"No false negatives." The filter stores fingerprints, not keys, so it cannot tell the other key from victim: deleting a key that was never added removed a fingerprint that only happened to match, victim\'s. Delete only keys you know were added.',
    shape: { buckets: 8, slots: 4, bits: 4, maxKicks: 100 },
    run(lesson) {
      lesson.reset({ ...this.shape, seed: 11n });
      lesson.perform([lesson.insertOp('victim')], 'victim', { animate: false });
      const v = lesson.filter.locate('victim');
      const twin = lesson.findKey('twin-', (key) => {
        const t = lesson.filter.locate(key);
        return t.fingerprint === v.fingerprint && (t.index === v.index || t.index === v.alternateIndex);
      });
      lesson.perform([lesson.lookupOp(twin), lesson.deleteOp(twin), lesson.lookupOp('victim')], twin);
    },
  },
];

/**
 * The tour's last stops: the panels under the table, each with a question of its own. They are cards in
 * their panel (the tour's box stays beside the player, where the scenarios need it).
 */
export const panelStops = [
  {
    title: 'Beside a Bloom filter',
    top: 'bloom-title',
    place: (card) => $('bloom-title').after(card),
    question: 'The cuckoo filter has just deleted "word-3". The Bloom filter below holds the same keys: why can it not delete "word-3" too?',
    // Said of the bits on screen: whether other keys set any of word-3's (with 12 keys, often none does).
    answer() {
      const { bits, sharedBits, names } = bitsSharedBy('word-3');
      const list = (b) => `${b.length === 1 ? 'bit' : 'bits'} ${b.join(', ')}`;
      const now = sharedBits.length > 0
        ? `Here ${list(sharedBits)} of word-3's ${bits.length} ${sharedBits.length === 1 ? 'is' : 'are'} also set by ${names}: clearing ${sharedBits.length === 1 ? 'it' : 'them'} would make ${sharedBits.length === 1 && !names.includes(',') ? 'that key' : 'those keys'} "definitely not present", a false negative.`
        : `Here none of word-3's ${list(bits)} is set by another key yet, but a bit does not record which keys set it, so the Bloom filter cannot know that clearing them is safe; as it fills, more and more bits are set by two keys or more (the dark ones), and clearing one of those would make another key "definitely not present", a false negative.`;
      return `${sharedBits.length > 0 ? 'Its bits are shared and unlabelled.' : 'Its bits carry no label.'} ${now} So word-3's bits stay set (outlined in red), and the Bloom filter goes on answering "possibly present" for it. The cuckoo filter can delete because a key's fingerprint sits in one of its own two buckets, and removing one copy of it is safe for every key that was added (scenario 6 shows the one exception: deleting a key that was never added).`;
    },
    run(lesson) {
      lesson.reset({ buckets: 16, slots: 4, bits: 8, seed: 1n, maxKicks: 100 });
      lesson.fill('word-', 12);
      lesson.perform([lesson.deleteOp('word-3')], 'word-3', { animate: false });
    },
  },
  {
    title: 'Where the space goes',
    top: 'space-title',
    // Between the headline its answer names and the chart it asks about.
    place: (card) => $('sizing-headline').after(card),
    question: 'In the chart, why does the cuckoo filter\'s line climb more slowly than the Bloom filter\'s as the rate gets smaller, and what does it pay for that?',
    answer: 'Halving the false-positive rate costs a cuckoo filter one more bit in each fingerprint, which is 1/α bits per item (about 1.05 with 4 slots per bucket, as its table is about 95% full), and an optimal Bloom filter 1.44 bits per item. But the cuckoo filter starts higher: a lookup compares 2b fingerprints, which costs log2(2b) bits in every fingerprint whatever the rate. So the Bloom filter is smaller at large rates and the cuckoo filter at small ones; the headline above this box says where they cross for this library, and the text under the chart gives the formula.',
    run() {},
  },
  {
    title: 'Experiment: fill it up',
    top: 'experiment-title',
    place: (card) => $('experiment-title').after(card),
    question: 'Guess first, then run the experiment: as the table fills, what happens to the false-positive rate, and to the kicks an insert needs?',
    answer: 'The false-positive rate grows in step with the load, from 0 at an empty table: an absent key is compared with the fingerprints in its two buckets, and the fuller they are, the more fingerprints can match by chance (the theory line rises with the load). The kicks stay near 0 while most buckets have a free slot, and climb steeply in the last few percent, where both of a new key\'s buckets are usually full and each kick lands in another full bucket; the run stops at the first insert that fails.',
    run() {},
  },
];

/** The guided tour: the scenarios in order, then the panels', each question shown with its answer kept closed. */
function buildTour(lesson) {
  const total = scenarios.length + panelStops.length;
  const stopTitle = (i, title) => `Stop ${i + 1} of ${total}: ${title}.`;
  // The table a scenario sets up, said at its stop: the parameter form is scrolled away by then.
  const shapeOf = ({ buckets, slots, bits, maxKicks }) =>
    `Table: ${buckets} buckets × ${slots} slots, ${bits}-bit fingerprints, max ${maxKicks} kicks.`;
  const stopQuestion = (scenario) =>
    `${shapeOf(scenario.shape)} Question: ${scenario.question}`;
  let stop = -1;
  // One card per panel stop, in its panel.
  const cards = panelStops.map((panel, k) => {
    const card = document.createElement('div');
    card.className = 'tour tour-card';
    card.setAttribute('role', 'region');
    card.setAttribute('aria-label', 'Guided tour');
    card.hidden = true;
    const title = document.createElement('p');
    title.className = 'tour-stop';
    title.tabIndex = -1;
    title.textContent = stopTitle(scenarios.length + k, panel.title);
    const [question, answer] = questionAndAnswer(panel, 'tour-card-answer');
    const buttons = document.createElement('div');
    buttons.className = 'tour-buttons';
    const last = k + 1 === panelStops.length;
    const next = document.createElement('button');
    next.type = 'button';
    next.className = 'tour-card-next';
    next.textContent = 'Next stop ▼';
    next.hidden = last;
    next.addEventListener('click', () => show(stop + 1));
    const end = document.createElement('button');
    end.type = 'button';
    end.className = 'tour-card-end';
    end.textContent = last ? 'End the tour (that was the last stop)' : 'End the tour';
    end.addEventListener('click', () => endTour());
    buttons.append(next, end);
    card.append(title, question, answer, buttons);
    panel.place(card);
    return card;
  });
  const endTour = () => {
    const at = stop;
    stop = -1;
    // The view stays where the reader ended the tour: on one column the table, kept at the top of the screen
    // while touring, goes back into the page's flow, and the browser's scroll anchoring moved the view.
    const y = window.scrollY;
    $('tour').hidden = true;
    $('workbench').classList.remove('touring');
    window.scrollTo(window.scrollX, y);
    for (const card of cards) card.hidden = true;
    // The keyboard stays where the reader ended the tour: on the table, or on the panel's heading (it went to
    // "Take the tour", far above the view).
    const here = at >= scenarios.length ? $(panelStops[at - scenarios.length].top) : $('table-box');
    if (here.tabIndex < 0) here.tabIndex = -1;
    here.focus({ preventScroll: true });
  };
  // Open, the answer lies over the player: its summary says how to get the player back.
  const answerBox = /** @type {HTMLDetailsElement} */ (document.getElementById('tour-answer'));
  answerBox.addEventListener('toggle', () => {
    /** @type {HTMLElement} */ (answerBox.querySelector('summary')).textContent = answerBox.open ? 'Hide the answer' : 'Show the answer';
  });
  const show = (i) => {
    stop = i;
    for (const card of cards) card.hidden = true;
    if (i >= scenarios.length) {
      const k = i - scenarios.length;
      $('tour').hidden = true;
      $('workbench').classList.remove('touring');
      panelStops[k].run(lesson);
      // An answer that speaks of what the panel shows is written after the panel is drawn.
      if (typeof panelStops[k].answer === 'function')
        /** @type {HTMLElement} */ (cards[k].querySelector('.tour-card-answer p')).textContent = panelStops[k].answer();
      cards[k].hidden = false;
      // The panel's heading on screen too, with the card under it (a card at the top hid what it asks about).
      $(panelStops[k].top).scrollIntoView({ block: 'start' });
      /** @type {HTMLElement} */ (cards[k].querySelector('.tour-stop')).focus({ preventScroll: true });
      return;
    }
    const scenario = scenarios[i];
    scenario.run(lesson);
    $('tour').hidden = false;
    $('workbench').classList.add('touring');
    $('tour-stop').textContent = stopTitle(i, scenario.title);
    $('tour-question').textContent = stopQuestion(scenario);
    /** @type {HTMLDetailsElement} */ (document.getElementById('tour-answer')).open = false;
    $('tour-answer-text').textContent = scenario.answer;
    // ▼: the next stop is further down the page. (One short label: a longer one wrapped on a phone.)
    $('tour-next').textContent = i + 1 === scenarios.length ? 'Next stop ▼' : 'Next stop';
    lesson.bringIntoView();
    // Scrolled just enough to show the tour, the step's sentence and ▶ (on a narrow screen they come in that
    // order under the table), never past the answer line; on a narrow screen past it if need be, as the
    // table then stays at the top of the screen (style.css) and the last step says the answer. The steps
    // themselves never scroll: ▶ stays under the reader's finger.
    const bottom = Math.max(...['tour', 'step', 'step-texts'].map((id) => $(id).getBoundingClientRect().bottom));
    if (bottom > window.innerHeight) {
      const answerTop = document.querySelector('.answer-box').getBoundingClientRect().top;
      const sticky = getComputedStyle($('table-box')).position === 'sticky';
      window.scrollBy(0, Math.max(0, sticky ? bottom - window.innerHeight + 8 : Math.min(bottom - window.innerHeight + 8, answerTop - 4)));
    }
    // The keyboard goes on where the tour asks the reader to act: the step button, on screen. (Focus stayed
    // on "Take the tour", scrolled far out of view.)
    $('step').focus({ preventScroll: true });
  };
  $('tour-reserve').replaceChildren(
    ...scenarios.map((scenario, i) => {
      const item = document.createElement('div');
      const title = document.createElement('p');
      title.className = 'tour-stop';
      title.textContent = stopTitle(i, scenario.title);
      const question = document.createElement('p');
      question.className = 'question';
      question.textContent = stopQuestion(scenario);
      item.append(title, question);
      return item;
    }),
  );
  // Each scenario's table and answer line measured once, before the first stop: the tallest of each is kept
  // while the tour runs (on one column, what comes after them is the tour itself).
  const measure = () => {
    const bench = $('workbench');
    bench.classList.remove('touring');
    let table = 0;
    let answer = 0;
    let texts = 0;
    for (const scenario of scenarios) {
      scenario.run(lesson);
      const box = $('table-box');
      table = Math.max(table, box.scrollHeight + box.offsetHeight - box.clientHeight);
      answer = Math.max(answer, document.querySelector('.answer-box').getBoundingClientRect().height);
      texts = Math.max(texts, $('step-texts').getBoundingClientRect().height);
    }
    bench.style.setProperty('--tour-table-h', `${Math.ceil(table)}px`);
    bench.style.setProperty('--tour-answer-h', `${Math.ceil(answer)}px`);
    bench.style.setProperty('--tour-texts-h', `${Math.ceil(texts)}px`);
  };
  $('tour-start').addEventListener('click', () => {
    measure();
    show(0);
  });
  $('tour-next').addEventListener('click', () => show(stop + 1));
  $('tour-end').addEventListener('click', () => endTour());
}

/** A stop's "Question: ..." line and its answer behind a closed "Show the answer" (class `answerClass`). */
function questionAndAnswer({ question, answer }, answerClass) {
  const line = document.createElement('p');
  line.className = 'question';
  line.textContent = `Question: ${question}`;
  const details = document.createElement('details');
  details.className = answerClass;
  const summary = document.createElement('summary');
  summary.textContent = 'Show the answer';
  const body = document.createElement('p');
  body.textContent = typeof answer === 'function' ? '' : answer; // a function's is written when its stop is shown
  details.append(summary, body);
  return [line, details];
}

export function buildScenarios(lesson) {
  buildTour(lesson);
  const list = $('presets');
  scenarios.forEach((scenario, i) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = scenario.title;
    button.setAttribute('data-testid', `preset-${i}`);
    button.addEventListener('click', () => {
      scenario.run(lesson);
      lesson.bringIntoView();
    });
    const text = document.createElement('p');
    text.textContent = scenario.text;
    const [question, answer] = questionAndAnswer(scenario, 'scenario-answer');
    item.append(button, text, question, answer);
    list.append(item);
  });
}
