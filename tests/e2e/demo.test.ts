// The teaching page in a real Chromium: what it draws is the real filter's table, what it answers is
// what the filter answers, and what it animates is the trace the core recorded.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openPage, screenshot, Session, startSession, stopSession } from './browser';

let session: Session;
beforeAll(async () => {
  session = await startSession();
});
afterAll(() => stopSession(session));

/** The slots as drawn: data-bucket / data-slot elements, their text read as hex (empty: 0). */
function drawnSlots(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const out: number[] = [];
    for (const bucket of document.querySelectorAll('[data-bucket]')) {
      for (const slot of bucket.querySelectorAll('[data-slot]')) {
        const text = (slot.textContent ?? '').trim();
        out.push(text === '' ? 0 : parseInt(text, 16));
      }
    }
    return out;
  });
}

function realSlots(page: Page): Promise<number[]> {
  return page.evaluate(() => Array.from((window as any).cuckooDemo.filter.slots() as Uint32Array));
}

/** Steps through the current replay with the Step button; returns how many steps were shown. */
async function stepToEnd(page: Page): Promise<number> {
  let clicks = 0;
  while (await page.isEnabled('[data-testid=step]')) {
    await page.click('[data-testid=step]');
    clicks++;
    if (clicks > 5000) throw new Error('the replay never ends');
  }
  return clicks;
}

async function setParams(page: Page, params: { buckets: number; slots: number; bits: number; seed?: number; kicks?: number }) {
  await page.fill('#param-buckets', String(params.buckets));
  await page.selectOption('#param-slots', String(params.slots));
  await page.fill('#param-bits', String(params.bits));
  await page.fill('#param-seed', String(params.seed ?? 1));
  await page.fill('#param-kicks', String(params.kicks ?? 100));
  await page.click('#reset');
}

test('the page loads the real filter and draws an empty table', async () => {
  const { page, errors } = await openPage(session, '');
  expect(await page.locator('[data-bucket]').count()).toBe(16);
  expect(await page.locator('[data-bucket="0"] [data-slot]').count()).toBe(4);
  expect(await drawnSlots(page)).toEqual(new Array(64).fill(0));
  expect(await page.textContent('[data-testid=item-count]')).toBe('0');
  await page.fill('[data-testid=key-input]', 'banana');
  await page.click('[data-testid=add]');
  await stepToEnd(page);
  expect(await page.textContent('[data-testid=item-count]')).toBe('1');
  expect(await page.textContent('#arithmetic')).toMatch(/i2 +\(N − i1 − r\) mod N/);
  await screenshot(page, 'demo-insert');
  expect(errors).toEqual([]);
  await page.close();
});

/** Whether the Step button is inside the viewport and is what a click at its centre would hit. */
function stepButtonUsable(page: Page): Promise<{ inView: boolean; onTop: boolean; hit: string }> {
  return page.evaluate(() => {
    const step = document.querySelector('[data-testid=step]') as HTMLElement;
    const r = step.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const inView = r.top >= 0 && r.bottom <= window.innerHeight;
    const hit = inView ? document.elementFromPoint(x, y) : null;
    return { inView, onTop: hit !== null && step.contains(hit), hit: hit ? hit.tagName + (hit.id ? '#' + hit.id : '') : 'none' };
  });
}

// A scenario is chosen far down the page, and then stepped through: the Step button must be in view
// then, and not under the table (which stays pinned while the page scrolls, when it is short enough).
test('after choosing any scenario, the Step button is in view and not covered by the table', async () => {
  const { page, errors } = await openPage(session, '');
  const count = await page.locator('[data-testid^=preset-]').count();
  for (let i = 0; i < count; i++) {
    await page.click(`[data-testid=preset-${i}]`);
    expect({ scenario: i, ...(await stepButtonUsable(page)) }).toMatchObject({ scenario: i, inView: true, onTop: true });
  }
  expect(errors).toEqual([]);
  await page.close();
});

test('every scenario runs, and the drawing ends equal to the real table', async () => {
  const { page, errors } = await openPage(session, '');
  const count = await page.locator('[data-testid^=preset-]').count();
  expect(count).toBe(6);
  for (let i = 0; i < count; i++) {
    await page.click(`[data-testid=preset-${i}]`);
    const traceLength = await page.evaluate(() => (window as any).cuckooDemo.trace?.steps.length ?? 0);
    // Step through half of it for the screenshot, then to the end.
    for (let s = 0; s < Math.min(3, Math.floor(traceLength / 2)); s++) await page.click('[data-testid=step]');
    await page.locator('#table').scrollIntoViewIfNeeded();
    await screenshot(page, `demo-preset-${i}`);
    await stepToEnd(page);
    expect(await drawnSlots(page)).toEqual(await realSlots(page));
  }
  // What each scenario is about actually happened.
  const outcome = async (i: number) => {
    await page.click(`[data-testid=preset-${i}]`);
    await stepToEnd(page);
    return page.evaluate(() => ({
      outcome: (window as any).cuckooDemo.trace?.outcome,
      kicks: (window as any).cuckooDemo.trace?.steps.filter((s: { kind: string }) => s.kind === 'kick').length,
      undos: (window as any).cuckooDemo.trace?.steps.filter((s: { kind: string }) => s.kind === 'undo').length,
      answer: document.querySelector('[data-testid=answer]')?.textContent ?? '',
    }));
  };
  expect(await outcome(0)).toMatchObject({ outcome: 'placed', kicks: 0 });
  const chain = await outcome(1);
  expect(chain.outcome).toBe('placed');
  expect(chain.kicks).toBeGreaterThanOrEqual(3);
  expect(await outcome(2)).toMatchObject({ outcome: 'table_full', kicks: 12, undos: 12 });
  expect((await outcome(3)).answer).toMatch(/false positive/);
  expect(await outcome(4)).toMatchObject({ outcome: 'duplicate_limit' });
  expect((await outcome(5)).answer).toMatch(/Unsafe delete/);
  expect(await page.evaluate(() => (window as any).cuckooDemo.filter.has('victim'))).toBe(false);
  expect(errors).toEqual([]);
  await page.close();
});

test('a kick chain shows as many steps as the trace has', async () => {
  const { page } = await openPage(session, '');
  await page.click('[data-testid=preset-1]');
  const steps = await page.evaluate(() => (window as any).cuckooDemo.trace.steps.length);
  expect(steps).toBeGreaterThan(3);
  expect(await stepToEnd(page)).toBe(steps);
  expect(await page.textContent('[data-testid=step-counter]')).toBe(`Step ${steps} of ${steps}`);
  await page.close();
});

test('play runs the replay to the end on its own', async () => {
  const { page } = await openPage(session, '');
  await page.click('[data-testid=preset-1]');
  const steps = await page.evaluate(() => (window as any).cuckooDemo.trace.steps.length);
  await page.fill('[data-testid=speed]', '10');
  await page.click('[data-testid=play]');
  await page.waitForFunction((n) => document.querySelector('[data-testid=step-counter]')?.textContent === `Step ${n} of ${n}`, steps, { timeout: 60000 });
  expect(await drawnSlots(page)).toEqual(await realSlots(page));
  await page.close();
});

test('after random inserts and deletes the slots on screen equal the real table', async () => {
  const { page, errors } = await openPage(session, '');
  await setParams(page, { buckets: 12, slots: 2, bits: 8, seed: 4, kicks: 30 });
  let seed = 99;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const added: string[] = [];
  for (let op = 0; op < 60; op++) {
    if (added.length > 0 && random() < 0.3) {
      const key = added.splice(Math.floor(random() * added.length), 1)[0];
      await page.fill('[data-testid=key-input]', key);
      await page.click('[data-testid=delete]');
    } else {
      const key = `k${Math.floor(random() * 40)}`;
      await page.fill('[data-testid=key-input]', key);
      await page.click('[data-testid=add]');
      await stepToEnd(page);
      if (await page.evaluate(() => (window as any).cuckooDemo.trace.added)) added.push(key);
    }
    expect(await drawnSlots(page)).toEqual(await realSlots(page));
  }
  expect(await page.textContent('[data-testid=item-count]')).toBe(String(added.length));
  expect(errors).toEqual([]);
  await page.close();
});

test('lookup answers match has()', async () => {
  const { page } = await openPage(session, '');
  await setParams(page, { buckets: 8, slots: 4, bits: 5, seed: 2 });
  for (let i = 0; i < 20; i++) await page.evaluate((k) => (window as any).cuckooDemo.insert(k, { animate: false }), `in-${i}`);
  for (const key of [...Array.from({ length: 10 }, (_, i) => `in-${i}`), ...Array.from({ length: 30 }, (_, i) => `out-${i}`)]) {
    await page.fill('[data-testid=key-input]', key);
    await page.click('[data-testid=lookup]');
    const answer = (await page.textContent('[data-testid=answer]')) ?? '';
    const has = await page.evaluate((k) => (window as any).cuckooDemo.filter.has(k), key);
    expect({ key, present: answer.includes('possibly present') }).toEqual({ key, present: has });
    expect(answer.includes('definitely not present')).toBe(!has);
  }
  await page.close();
});

test('export then import gives the same picture', async () => {
  const { page, errors } = await openPage(session, '');
  await setParams(page, { buckets: 10, slots: 4, bits: 12, seed: 77 });
  for (let i = 0; i < 25; i++) await page.evaluate((k) => (window as any).cuckooDemo.insert(k, { animate: false }), `e${i}`);
  const before = await drawnSlots(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
  const path = join(tmpdir(), `demo-export-${Date.now()}.cuckoo`);
  await download.saveAs(path);
  await setParams(page, { buckets: 16, slots: 2, bits: 8 });
  expect(await drawnSlots(page)).not.toEqual(before);
  await page.setInputFiles('[data-testid=import]', path);
  await page.waitForFunction(() => /^Loaded/.test(document.getElementById('file-status')?.textContent ?? ''));
  expect(await drawnSlots(page)).toEqual(before);
  expect(await page.inputValue('#param-buckets')).toBe('10');
  // A damaged file is refused with the reason, and the table stays.
  const bad = join(tmpdir(), `demo-bad-${Date.now()}.cuckoo`);
  writeFileSync(bad, Buffer.from('not a filter'));
  await page.setInputFiles('[data-testid=import]', bad);
  await page.waitForFunction(() => /^Not loaded/.test(document.getElementById('file-status')?.textContent ?? ''));
  expect(await page.textContent('#file-status')).toMatch(/bad magic: this is not a cuckoo filter export/);
  expect(await drawnSlots(page)).toEqual(before);
  expect(errors).toEqual([]);
  await page.close();
});

test('the experiment plots measured rates against the theory', async () => {
  const { page, errors } = await openPage(session, '');
  await page.click('#experiment');
  await page.waitForFunction(() => (document.getElementById('bloom')?.textContent ?? '').length > 0, undefined, { timeout: 90000 });
  expect(await page.locator('#chart-fpr circle').count()).toBeGreaterThanOrEqual(15);
  expect(await page.locator('#chart-fpr .chart-theory').count()).toBe(1);
  expect(await page.locator('#chart-kicks circle').count()).toBeGreaterThanOrEqual(15);
  expect(await page.textContent('#bloom')).toMatch(/Bloom filter with the same rate needs log2\(1\/ε\) \/ ln 2 = [\d.]+ bits per item/);
  await page.locator('#experiment').scrollIntoViewIfNeeded();
  await screenshot(page, 'demo-experiment');
  expect(errors).toEqual([]);
  await page.close();
});

test('keyboard use and a phone-sized screen', async () => {
  const { page, errors } = await openPage(session, '', { width: 390, height: 844 });
  await page.focus('[data-testid=key-input]');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('typed');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab'); // to Insert
  await page.focus('[data-testid=step]');
  await page.keyboard.press('Enter');
  expect(await page.evaluate(() => (window as any).cuckooDemo.filter.has('typed'))).toBe(true);
  // Nothing wider than the screen but the scrollable table.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(page, 'demo-phone', true);
  expect(errors).toEqual([]);
  await page.close();
});
