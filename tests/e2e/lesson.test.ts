// The lesson at the top of the teaching page, in a real Chromium at a desktop and a phone size: it is the
// first thing on screen, its figure is the real filter's table after every action, each chapter's numbers
// are the filter's, and the controls stay where they are while the reader goes through it.
import type { Page } from 'playwright-core';
import { openPage, screenshot, type Session, startSession, stopSession, VIEWPORTS } from './browser';

let session: Session;
beforeAll(async () => {
  session = await startSession();
});
afterAll(async () => {
  await stopSession(session);
});

/** The lesson's figure as drawn, slot by slot (hex text; empty: 0), and the filter's real slots. */
async function figureAndFilter(page: Page): Promise<{ drawn: number[]; real: number[] }> {
  return page.evaluate(() => {
    const drawn: number[] = [];
    for (const slot of document.querySelectorAll('#lesson-table .lesson-slot')) {
      const text = (slot.textContent ?? '').trim();
      drawn.push(text === '' ? 0 : parseInt(text, 16));
    }
    return { drawn, real: Array.from((window as any).cuckooLesson.filter.slots() as Uint32Array) };
  });
}

async function expectFigureIsFilter(page: Page): Promise<void> {
  const { drawn, real } = await figureAndFilter(page);
  expect(drawn).toHaveLength(32);
  expect(drawn).toEqual(real);
}

/** Whether an element lies wholly inside the viewport as it is scrolled now. */
function onScreen(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  });
}

/** An element's box in page coordinates (boundingBox() is relative to the scrolled viewport). */
const box = async (page: Page, selector: string) => {
  const b = await page.locator(selector).boundingBox();
  if (b === null) throw new Error(`${selector} is not shown`);
  const scroll = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
  return { x: b.x + scroll.x, y: b.y + scroll.y, width: b.width, height: b.height };
};

const resultText = async (page: Page) => (await page.textContent('#lesson-result')) ?? '';

describe.each(VIEWPORTS)('the lesson at %s size', (name, viewport) => {
  test('the first screen is the lesson: its figure and a control to go on, no parameter form, a short lead', async () => {
    const { page, errors } = await openPage(session, '', viewport);
    expect(await onScreen(page, '#lesson-figure')).toBe(true);
    expect(await onScreen(page, '#lesson-next')).toBe(true);
    expect(await onScreen(page, '#lesson-act')).toBe(true);
    // The workbench's parameter form is below the first screen.
    const params = await box(page, '#params');
    expect(params.y).toBeGreaterThan(viewport.height);
    // The words a reader meets before the figure: the page's title, its links and the lesson's lead.
    const words = await page.evaluate(() => {
      const figure = document.getElementById('lesson-figure')!;
      let count = 0;
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (figure.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_PRECEDING) {
          const element = node.parentElement!;
          if (element.closest('[hidden]') || getComputedStyle(element).display === 'none') continue;
          count += (node.textContent ?? '').split(/\s+/).filter((w) => /\w/.test(w)).length;
        }
      }
      return count;
    });
    expect(words).toBeGreaterThan(10);
    expect(words).toBeLessThanOrEqual(120);
    await expectFigureIsFilter(page);
    await screenshot(page, `lesson-${name}-first-screen`);
    // Nothing on the first screen moved while the page loaded: the lesson's shell is drawn before the wasm
    // module is ready (drawn after it, the table pushed the chapter down 140 px: a layout shift of 0.27).
    const shift = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) total += (entry as any).value;
          }).observe({ type: 'layout-shift', buffered: true });
          setTimeout(() => resolve(total), 200);
        }),
    );
    expect(shift).toBeLessThan(0.05);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('six chapters, each action changes the real filter and the figure shows it; the controls never move', async () => {
    const { page, errors } = await openPage(session, '', viewport);
    const next = await box(page, '#lesson-next');
    // The figure's size, and where the lesson's body starts (on a phone the figure stays at the top of the
    // screen as the chapter scrolls: its own place on the page moves with the scroll).
    const figureAt = async () => {
      const { width, height } = await box(page, '#lesson-figure');
      const { x, y } = await box(page, '#lesson-body');
      return { x, y, width, height };
    };
    const figure = await figureAt();
    // Nothing above a chapter's text moves from one chapter to the next (on a phone the last chapter's
    // link to the workbench once wrapped and pushed the figure down 28 px).
    const stayed = async () => expect(await figureAt()).toEqual(figure);
    const act = async () => {
      await page.click('#lesson-act');
      await expectFigureIsFilter(page);
    };
    const lessonFilter = (expression: string) =>
      page.evaluate((e) => new Function('lesson', `return ${e}`)((window as any).cuckooLesson), expression);

    // 1: a key and its fingerprint.
    await page.fill('#lesson-key', 'walnut');
    await act();
    const at = await lessonFilter(
      '{ fp: lesson.filter.locate("walnut").fingerprint, i1: lesson.filter.locate("walnut").index, i2: lesson.filter.locate("walnut").alternateIndex }',
    );
    expect(await resultText(page)).toContain(`fingerprint 0x${at.fp.toString(16).padStart(2, '0')}`);
    const marked = await page.$$eval('#lesson-table .lesson-slot.marked', (s) =>
      s.map((e) => (e.textContent ?? '').trim()),
    );
    expect(marked).toEqual([at.fp.toString(16).padStart(2, '0')]);
    // The answer opens below the controls: nothing above it moves.
    await page.click('#lesson-question summary');
    expect(await page.isVisible('#lesson-answer')).toBe(true);
    expect(await box(page, '#lesson-next')).toEqual(next);
    await stayed();
    await screenshot(page, `lesson-${name}-1`);

    // 2: five more keys, each with its two buckets; the second one's formula worked for the last.
    await page.click('#lesson-next');
    expect(await page.textContent('#chapter-title')).toBe('Two buckets for each key');
    expect(await page.isVisible('#lesson-answer')).toBe(false); // a new chapter's answer starts closed
    await act();
    const kiwi = await lessonFilter(
      '{ i1: lesson.filter.locate("kiwi").index, i2: lesson.filter.locate("kiwi").alternateIndex, size: lesson.filter.size }',
    );
    expect(kiwi.size).toBe(6);
    // r as the chapter writes it: floor((f x 0x9E3779B1 mod 2^32) x N / 2^32), made odd.
    const offset = await lessonFilter(
      '(() => { const at = lesson.filter.locate("kiwi"); return { f: at.fingerprint, r: at.alternateOffset }; })()',
    );
    expect(Math.floor(((Math.imul(offset.f, 0x9e3779b1) >>> 0) * 8) / 2 ** 32) | 1).toBe(offset.r);
    expect(await resultText(page)).toContain(`gives r = ${offset.r}, and`);
    expect(await resultText(page)).toContain(`"kiwi" `);
    expect(await resultText(page)).toContain(`= ${kiwi.i2}.`);
    expect(await page.getAttribute(`#lesson-table [data-bucket="${kiwi.i1}"]`, 'class')).toContain('first');
    expect(await page.textContent('#lesson-caption')).toContain(
      "Solid outline: the key's first bucket; dashed: its second.",
    );
    expect(await page.getAttribute(`#lesson-table [data-bucket="${kiwi.i2}"]`, 'class')).toContain('second');
    expect(await box(page, '#lesson-next')).toEqual(next);
    await stayed();
    await screenshot(page, `lesson-${name}-2`);

    // 3: keys until one kicks (the figure marks the walk's slots), then until the table is full.
    await page.click('#lesson-next');
    const sizeBeforeKick = await lessonFilter('lesson.filter.size');
    await act();
    expect(await resultText(page)).toMatch(
      /kicking out 0x[0-9a-f]{2}; then .*\d+ kicks?; the moved slots are highlighted/,
    );
    // The keys added on the way to the first kick are said (the table grew 6 -> 27 unexplained).
    const quiet = (await lessonFilter('lesson.filter.size')) - sizeBeforeKick - 1;
    expect(await resultText(page)).toMatch(
      quiet === 0
        ? /^"key-1" found both its buckets/
        : new RegExp(
            `^First "key-1" ${quiet === 1 ? 'was' : `to "key-${quiet}" \\(${quiet} keys\\) were`} added without a kick\\. Then "key-${quiet + 1}" found both its buckets`,
          ),
    );
    expect(await page.$$eval('#lesson-table .lesson-slot.marked', (s) => s.length)).toBeGreaterThanOrEqual(2);
    await page.click('#lesson-act-second');
    await expectFigureIsFilter(page);
    const full = await lessonFilter('{ size: lesson.filter.size }');
    // An opened answer comes on screen (on a phone it opened below the fold).
    await page.click('#lesson-question summary');
    // (The details element's toggle event, which scrolls, comes a task after the click.)
    await page.waitForFunction(
      () => {
        const r = document.getElementById('lesson-answer')!.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight + 1; // scrolled to the edge, to a fraction
      },
      undefined,
      { timeout: 5000 },
    );
    await page.click('#lesson-question summary');
    expect(await resultText(page)).toContain('found no room after 100 kicks');
    // What the reader sees agrees with what the chapter says: this table fills every slot (a newcomer read
    // "the empty slots are in buckets no walk reached" beside a table with none), and the other way an add
    // fails, the duplicate limit, is named.
    if (full.size === 32) expect(await resultText(page)).toContain('every one of the 32 slots is taken');
    expect(await page.textContent('#chapter-prose')).toContain('This small table usually fills every slot first');
    expect(await page.textContent('#chapter-prose')).toContain('a ninth add of the same key');
    expect(await page.textContent('#lesson-caption')).toContain(`${full.size} fingerprint`);
    // A full table refuses the next key too, and is left as it was.
    const before = await figureAndFilter(page);
    await page.click('#lesson-act-second');
    expect(await figureAndFilter(page)).toEqual(before);
    expect(await box(page, '#lesson-next')).toEqual(next);
    await stayed();
    await screenshot(page, `lesson-${name}-3`);

    // 4: a thousand absent keys: the count is the filter's own answers.
    await page.click('#lesson-next');
    await act();
    const falsePositives = await lessonFilter(
      '(() => { let n = 0; for (let i = 0; i < 1000; i++) n += lesson.filter.has("absent-" + i) ? 1 : 0; return n; })()',
    );
    expect(await resultText(page)).toContain(`${falsePositives} of 1,000 said "possibly present"`);
    expect(falsePositives).toBeGreaterThan(0); // a table this full at 8 bits: about 30 expected
    // The spread is said in plain words (a reader met an unexplained "±11", the next "two standard deviations").
    expect(await resultText(page)).toMatch(
      /chance alone moves a count like this by up to about \d+ either way, 19 times in 20\)/,
    );
    await stayed();
    await screenshot(page, `lesson-${name}-4`);

    // 5: a delete frees the slot; every other key is still found.
    await page.click('#lesson-next');
    const sizeBefore = await lessonFilter('lesson.filter.size');
    await act();
    expect(await lessonFilter('lesson.filter.size')).toBe(sizeBefore - 1);
    expect(await page.$$eval('#lesson-table .lesson-slot.marked', (s) => s.map((e) => e.textContent))).toEqual(['']);
    expect(await resultText(page)).toMatch(/^Deleted "walnut": .*all \d+ other keys are still found/);
    // "Not present" is the filter's answer now, not a promise for ever (a reader took it as one).
    expect(await resultText(page)).toContain(
      '"walnut": "not present": no copy of its fingerprint is left (another key\'s could still match it: a false positive)',
    );
    // Deleting a key that was added is safe even beside a twin: said, for the newcomer who feared it.
    expect(await page.textContent('#lesson-answer')).toContain('Deleting a key you did add is always safe');
    // The button now names the next key it would delete, and says so.
    expect(await page.textContent('#lesson-act')).toBe('Delete another: "pear"');
    expect(await lessonFilter('lesson.keys.every((k) => lesson.filter.has(k))')).toBe(true);
    await stayed();
    await screenshot(page, `lesson-${name}-5`);

    // 6: the slider's numbers are the library's sizes; the last chapter leads on to the workbench.
    await page.click('#lesson-next');
    expect(await page.isVisible('#lesson-next')).toBe(false);
    expect(await page.isVisible('#lesson-done')).toBe(true);
    // The chapter says what to do with the slider (its action area has no button).
    expect(await page.textContent('#chapter-prose')).toContain('Slide the rate under the bars');
    await page.fill('#lesson-rate', '4');
    const sizes = await page.evaluate(() => {
      const f = new (window as any).cuckooDemo.CuckooFilter({ capacity: 100000, fpRate: 1e-4, bucketSize: 4 });
      const bits = (f.byteLength * 8) / f.capacity;
      f.dispose();
      return bits;
    });
    expect(await resultText(page)).toContain(`cuckoo filter ${sizes.toFixed(1)} bits a key`);
    // The slider says its value, and the verdict is beside it in the figure (on a phone the result line is
    // below the screen the slider is on).
    expect(await page.textContent('#lesson-rate-value')).toBe('0.010%');
    expect(await page.textContent('#lesson-caption')).toMatch(
      /^At a false-positive rate of 0\.010%, the cuckoo filter is smaller\./,
    );
    expect(await page.textContent('#lesson-question-text')).toBe(
      'Slide to 0.010%, one false positive in 10,000 lookups: which filter is smaller there, and by how much?',
    );
    // Slider and verdict on one screen, wherever the page is scrolled to show the slider.
    const [slider, caption] = [await box(page, '#lesson-rate'), await box(page, '#lesson-caption')];
    expect(caption.y + caption.height - slider.y).toBeLessThan(viewport.height);
    // This chapter's figure is the two sizes as bars (chapter 5's table stayed on screen, unrelated).
    expect(await page.isVisible('#lesson-table')).toBe(false);
    expect(await page.textContent('#lesson-bits-cuckoo')).toBe(`${sizes.toFixed(1)} bits`);
    const widths = await page.$$eval('#lesson-bars .lesson-bar', (bars) =>
      bars.map((b) => b.getBoundingClientRect().width),
    );
    expect(widths[0]).toBeGreaterThan(0);
    expect(widths[0] / widths[1]).toBeCloseTo(
      sizes / Number((await page.textContent('#lesson-bits-bloom'))!.split(' ')[0]),
      1,
    );
    expect(await resultText(page)).toContain('the cuckoo filter is smaller');
    // Every position of the slider: the verdict agrees with the numbers as shown ("13.7 ... 13.7: the
    // Bloom filter is smaller" at 0.14%).
    for (let x = 1; x <= 6.001; x += 0.05) {
      await page.fill('#lesson-rate', x.toFixed(2));
      const said = await resultText(page);
      const [c, b] = [...said.matchAll(/filter ([\d.]+)/g)].map((m) => Number(m[1]));
      const verdict = c < b ? 'the cuckoo filter is smaller' : c > b ? 'the Bloom filter is smaller' : 'about the same';
      const beside = (await page.textContent('#lesson-caption'))!.includes(`, ${verdict}.`);
      expect({ x: x.toFixed(2), said: said.includes(verdict), beside }).toEqual({
        x: x.toFixed(2),
        said: true,
        beside: true,
      });
    }
    await page.fill('#lesson-rate', '1');
    expect(await resultText(page)).toContain('At a rate of 10%: cuckoo filter'); // it said "1e+1%"
    expect(await resultText(page)).toContain('the Bloom filter is smaller');
    // The answer's numbers are the page's own sizing.
    await page.click('#lesson-question summary');
    expect(await page.textContent('#lesson-answer')).toMatch(
      /^At 0\.010% the cuckoo filter takes [\d.]+ bits a key and the Bloom filter [\d.]+: the cuckoo filter is smaller by [\d.]+ bits a key \(\d+%\)\. 0\.010% is below [\d.]+%, where the table's first row says the cuckoo filter is always the smaller\.$/,
    );
    expect(await page.textContent('#lesson-answer')).toContain(
      `the cuckoo filter takes ${sizes.toFixed(1)} bits a key`,
    );
    // The rate the answer cites is the table's (tests/e2e/page_text.test.ts checks the table itself).
    const answer = (await page.textContent('#lesson-answer')) ?? '';
    const firstRow = await page.$eval('#lesson-space tbody tr td', (td) => td.textContent);
    expect(answer).toContain(`is below ${firstRow}, where the table's first row says`);
    // The link on to the workbench stays inside the lesson's card (on a phone it stuck out by 18 px).
    const card = await box(page, '#lesson');
    const done = await box(page, '#lesson-done');
    expect(done.x + done.width).toBeLessThanOrEqual(card.x + card.width);
    await stayed();
    await screenshot(page, `lesson-${name}-6`);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('by keyboard: Tab reaches Next, Enter turns the chapter, and the focused control stays on screen', async () => {
    const { page, errors } = await openPage(session, '', viewport);
    await page.focus('#lesson-back');
    for (let i = 0; i < 12; i++) {
      if (await page.evaluate(() => document.activeElement?.id === 'lesson-next')) break;
      await page.keyboard.press('Tab');
    }
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('lesson-next');
    await page.keyboard.press('Enter');
    expect(await page.textContent('#chapter-title')).toBe('Two buckets for each key');
    expect(await onScreen(page, '#lesson-next')).toBe(true);
    expect(await page.getAttribute('#lesson-dots [data-chapter="1"]', 'aria-current')).toBe('step');
    // A chapter's own button reaches it directly, and its action works from there.
    await page.click('#lesson-dots [data-chapter="4"]');
    expect(await page.textContent('#chapter-title')).toBe('Deleting, which a Bloom filter cannot do');
    await page.click('#lesson-act');
    expect(await resultText(page)).toContain('("apple" was added first.)');
    await expectFigureIsFilter(page);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('a key added twice has two copies, said when added and when one is deleted; a full table says which adds failed', async () => {
    const { page, errors } = await openPage(session, '', viewport);
    // A typed key is text, not markup (the result is HTML: "<img onerror>" ran as an element).
    await page.fill('#lesson-key', '<b id="typed">x</b>');
    await page.click('#lesson-act');
    expect(await page.locator('#typed').count()).toBe(0);
    expect(await resultText(page)).toContain('"<b id="typed">x</b>" has fingerprint');
    await page.click('#lesson-dots [data-chapter="4"]');
    await page.click('#lesson-act');
    expect(await page.locator('#typed').count()).toBe(0);
    expect(await resultText(page)).toContain('Deleted "<b id="typed">x</b>"');
    await page.click('#lesson-dots [data-chapter="0"]');
    // Back in chapter 1, the figure says why its table is not chapter 1's (a reader was puzzled).
    expect(await page.textContent('#lesson-caption')).toContain('It also holds what later chapters added.');
    await page.fill('#lesson-key', 'banana');
    await page.click('#lesson-act');
    await page.click('#lesson-act');
    expect(await resultText(page)).toContain('Added 2 times, it has 2 copies now');
    await page.click('#lesson-dots [data-chapter="4"]');
    await page.click('#lesson-act');
    // It said "a false positive" for the key's own second copy, and "all 1 other key are".
    expect(await resultText(page)).toContain('"possibly present": it was added 2 times, and one copy remains');
    expect(await resultText(page)).not.toContain('false positive');
    expect(await resultText(page)).toContain('no other key is in the table');
    await expectFigureIsFilter(page);
    // Chapter 2 after the table is full: the keys that found no room are said so (it listed them as placed).
    await page.click('#lesson-dots [data-chapter="2"]');
    await page.click('#lesson-act-second');
    await page.click('#lesson-dots [data-chapter="1"]');
    await page.click('#lesson-act');
    const refused = await page.evaluate(() => {
      const lesson = (window as any).cuckooLesson;
      return ['pear', 'plum', 'fig', 'lime', 'kiwi'].filter((k) => !lesson.keys.includes(k));
    });
    expect(refused.length).toBeGreaterThan(0);
    for (const key of refused)
      expect(await resultText(page)).toMatch(
        new RegExp(`"${key}" 0x[0-9a-f]{2}: bucket \\d+ or \\d+ \\(not added: no room`),
      );
    await expectFigureIsFilter(page);
    // The button at the end of a chapter turns it too, and brings its controls back on screen.
    await page.click('#lesson-next-bottom');
    expect(await page.textContent('#chapter-title')).toBe('Kicks, and a full table');
    expect(await onScreen(page, '#lesson-next')).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
