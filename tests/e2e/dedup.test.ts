// The dedup page in a real Chromium: a generated file with known duplicates gives the exact unique count
// and the exact unique lines, in order.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, screenshot, Session, startSession, stopSession } from './browser';
import { dedupCases, referenceDedup } from '../js/dedup_cases';

let session: Session;
let dir: string; // the files the tests write and download, removed at the end
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-dedup-page-'));
  session = await startSession();
});
afterAll(async () => {
  await stopSession(session);
  rmSync(dir, { recursive: true, force: true });
});

test('a file with known duplicates gives the exact unique lines', async () => {
  // 300,000 lines drawn from 120,000 distinct ones, some CRLF, the last without a newline.
  let seed = 5;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const lines: string[] = [];
  for (let i = 0; i < 300_000; i++) lines.push(`line ${Math.floor(random() * 120_000)} · ü`);
  const text = lines.map((l, i) => (i % 1000 === 0 ? `${l}\r\n` : `${l}\n`)).join('') + 'tail without newline';
  const path = join(dir, `dedup-${Date.now()}.txt`);
  writeFileSync(path, text);
  // The expected output: each line (compared without its ending) the first time, with its own ending.
  const seen = new Set<string>();
  let expected = '';
  for (const raw of text.split(/(?<=\n)/)) {
    const key = raw.replace(/\r?\n$/, '');
    if (seen.has(key)) continue;
    seen.add(key);
    expected += raw.endsWith('\n') ? raw : `${raw}\n`;
  }

  const { page, errors } = await openPage(session, 'dedup.html');
  await page.selectOption('#fp-rate', '1e-8'); // false positives negligible: the count must be exact
  await page.setInputFiles('[data-testid=dedup-file]', path);
  await page.waitForSelector('body[data-state="done"]', { timeout: 60000 });
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe(seen.size.toLocaleString('en'));
  expect(await page.evaluate(() => (document.querySelector('[data-testid=dedup-progress]') as HTMLProgressElement).value)).toBe(1);
  expect(await page.textContent('#duplicates')).toBe((300_001 - seen.size).toLocaleString('en'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=dedup-download]')]);
  const out = join(dir, `dedup-out-${Date.now()}.txt`);
  await download.saveAs(out);
  expect(readFileSync(out, 'utf8') === expected).toBe(true);
  await screenshot(page, 'dedup-done', true);
  expect(errors).toEqual([]);
  await page.close();
});

test('pasted text works too', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  await page.fill('#paste', 'b\na\nb\nc\na');
  await page.click('#run-paste');
  await page.waitForSelector('body[data-state="done"]');
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe('3');
  expect(errors).toEqual([]);
  await page.close();
});

test('the same cases as the engine and the command give the reference output', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  await page.selectOption('#fp-rate', '1e-8');
  for (const c of dedupCases().filter((x) => x.input.length > 0)) {
    const path = join(dir, `case-${Date.now()}.txt`);
    writeFileSync(path, c.input);
    await page.setInputFiles('[data-testid=dedup-file]', path);
    await page.waitForSelector('body[data-state="done"]', { timeout: 60000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=dedup-download]')]);
    const out = join(dir, `case-out-${Date.now()}.txt`);
    await download.saveAs(out);
    expect([c.name, readFileSync(out).equals(referenceDedup(c.input))]).toEqual([c.name, true]);
    expect(download.suggestedFilename()).toMatch(/^case-\d+\.unique\.txt$/);
  }
  expect(errors).toEqual([]);
  await page.close();
});

test('a file whose first 64 KiB has longer lines than the rest is deduplicated in full (the filter grows)', async () => {
  const text = 'x'.repeat(70_000) + '\n' + Array.from({ length: 400_000 }, (_, i) => `${i}`).join('\n') + '\n';
  const path = join(dir, `long-first-${Date.now()}.txt`);
  writeFileSync(path, text);
  const { page, errors } = await openPage(session, 'dedup.html', { width: 390, height: 844 });
  await page.selectOption('#fp-rate', '1e-8');
  await page.setInputFiles('[data-testid=dedup-file]', path);
  await page.waitForSelector('body[data-state="done"]', { timeout: 60000 });
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe((400_001).toLocaleString('en'));
  expect(await page.textContent('#percent')).toBe('100.0%');
  expect(await page.textContent('#time-left')).toBe('0 s');
  // The table doubled in place from its start: its slot width and the doublings are named.
  expect(await page.textContent('#status')).toMatch(/\(32-bit slots, doubled (once|\d+ times) in place\)/);
  // On a phone the result is brought into view.
  expect(await page.evaluate(() => {
    const r = document.getElementById('status')!.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight;
  })).toBe(true);
  await screenshot(page, 'dedup-phone-done');
  expect(errors).toEqual([]);
  await page.close();
});

test('a binary file gets a warning; counters reset between runs; cancel stops a run', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  const binary = join(dir, `binary-${Date.now()}.bin`);
  writeFileSync(binary, Buffer.from([1, 0, 2, 10, 1, 0, 2, 10]));
  await page.setInputFiles('[data-testid=dedup-file]', binary);
  await page.waitForSelector('body[data-state="done"]');
  expect(await page.isVisible('#binary-warning')).toBe(true);
  await page.fill('#paste', 'one\ntwo\none');
  await page.click('#run-paste');
  await page.waitForSelector('body[data-state="done"]');
  expect(await page.isVisible('#binary-warning')).toBe(false);
  expect(await page.textContent('#lines')).toBe('3');
  // A large file, cancelled at once: the page says so, and offers no download.
  const big = join(dir, `big-${Date.now()}.txt`);
  writeFileSync(big, Array.from({ length: 3_000_000 }, (_, i) => `row ${i}`).join('\n'));
  await page.setInputFiles('[data-testid=dedup-file]', big);
  await page.click('#cancel');
  await page.waitForSelector('body[data-state="cancelled"]');
  expect(await page.textContent('#status')).toContain('Cancelled');
  expect(await page.isVisible('[data-testid=dedup-download]')).toBe(false);
  expect(errors).toEqual([]);
  await page.close();
});

/** The engine's own stats for `text`, fed as the page's worker feeds it (64 KiB, then 1 MiB slices), the file's size known. */
function engineStats(page: import('playwright-core').Page, text: string, fpRate: number) {
  return page.evaluate(async ([t, rate]) => {
    // The package as the page loads it (an import written here would be compiled for Node).
    const load = new Function('url', 'return import(url)') as (url: string) => Promise<any>;
    const { ready, LineDeduper } = await load(new URL('dist/esm/index.js', location.href).href);
    await ready();
    const bytes = new TextEncoder().encode(t);
    const d = new LineDeduper({ fpRate: rate, inputBytes: bytes.length });
    for (let at = 0; at < bytes.length; at += at === 0 ? 64 << 10 : 1 << 20) d.push(bytes.subarray(at, at + (at === 0 ? 64 << 10 : 1 << 20)));
    d.end();
    const s = d.stats;
    d.dispose();
    return { lines: s.lines, unique: s.unique, filterBytes: s.filterBytes, wrongDropBound: s.wrongDropBound, capacity: s.plan.capacity, fingerprintBits: s.fingerprintBits };
  }, [text, fpRate] as const);
}

const about = (x: number) => (x >= 1e6 ? `${Number((x / 1e6).toPrecision(2)).toLocaleString('en')} million` : Number(x.toPrecision(2)).toLocaleString('en'));

test('every number after a run is the engine\'s, per line read and per unique line, and the loss budget is said as a chance', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  const intro = await page.textContent('#how-title ~ p') ?? '';
  expect(intro).not.toMatch(/3 bytes per unique line/);
  // The filter starts small and doubles: no longer sized from the file's lines.
  expect(intro).toMatch(/its table doubles as new lines come, so its memory\s+follows the unique lines/);
  expect(intro).not.toMatch(/seems to hold/);
  expect(await page.textContent('main')).not.toMatch(/tiny chance/);
  // 20,000 lines, 5,000 of them unique: the filter has room for all 20,000.
  const text = Array.from({ length: 20_000 }, (_, i) => `entry ${(i * 7919) % 5000}`).join('\n') + '\n';
  const path = join(dir, `budget-${Date.now()}.txt`);
  writeFileSync(path, text);
  await page.selectOption('#fp-rate', '1e-4');
  await page.setInputFiles('[data-testid=dedup-file]', path);
  await page.waitForSelector('body[data-state="done"]', { timeout: 60000 });
  const s = await engineStats(page, text, 1e-4);
  expect(s.unique).toBe(5000);
  expect(s.wrongDropBound).toBeGreaterThan(0);
  expect(s.wrongDropBound).toBeLessThan(1);
  const status = (await page.textContent('#status')) ?? '';
  expect(status).toContain('Done: 5,000 unique lines of 20,000');
  expect(status).toContain(`The filter took ${s.filterBytes.toLocaleString('en')} bytes (${s.fingerprintBits}-bit slots)`);
  expect(status).toContain(`with room for ${s.capacity.toLocaleString('en')} lines`);
  expect(status).toContain(`${(s.filterBytes / 20_000).toFixed(2)} bytes per line read and ${(s.filterBytes / 5000).toFixed(2)} bytes per unique line`);
  expect(status).toContain(`At most about a 1 in ${about(1 / s.wrongDropBound)} chance that any of the 5,000 unique lines was wrongly dropped.`);
  expect(await page.textContent('#false-drops')).toBe(`at most 1 in ${about(1 / s.wrongDropBound)}`);
  await screenshot(page, 'dedup-budget', true);
  expect(errors).toEqual([]);
  await page.close();
});

test('one line is "1 unique line"; an empty file makes no filter', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  const one = join(dir, `one-${Date.now()}.txt`);
  writeFileSync(one, 'only\n');
  await page.setInputFiles('[data-testid=dedup-file]', one);
  await page.waitForSelector('body[data-state="done"]');
  const status = (await page.textContent('#status')) ?? '';
  expect(status).toMatch(/^Done: 1 unique line of 1, /);
  expect(status).not.toMatch(/\b1 (unique )?lines\b/);
  expect(status).toContain('chance that the one unique line was wrongly dropped');
  const empty = join(dir, `empty-${Date.now()}.txt`);
  writeFileSync(empty, '');
  await page.setInputFiles('[data-testid=dedup-file]', empty);
  await page.waitForSelector('body[data-state="done"] #status:has-text("empty")');
  expect(await page.textContent('#status')).toMatch(/^Done: 0 unique lines of 0, in [\d.]+ s\. The input is empty: there was nothing to remember, so no filter was made\. No lines, so none could be dropped\.$/);
  expect(await page.textContent('#false-drops')).toBe('–');
  expect(errors).toEqual([]);
  await page.close();
});

test('the same file gives the same filter on every run', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  // Long lines first, short ones after: the estimate depends on which bytes make the first block.
  const text = Array.from({ length: 2000 }, (_, i) => `${'long line '.repeat(20)}${i}`).join('\n') + '\n' +
    Array.from({ length: 300_000 }, (_, i) => `s${i % 90_000}`).join('\n') + '\n';
  const sizes: string[] = [];
  for (let run = 0; run < 3; run++) {
    const path = join(dir, `same-${run}-${Date.now()}.txt`);
    writeFileSync(path, text);
    await page.setInputFiles('[data-testid=dedup-file]', path);
    await page.waitForSelector('body[data-state="done"]', { timeout: 60000 });
    sizes.push(((await page.textContent('#status')) ?? '').replace(/in [\d.]+ s/, ''));
    await page.evaluate(() => { document.body.dataset.state = ''; });
  }
  expect(new Set(sizes).size).toBe(1);
  const s = await engineStats(page, text, 1e-6);
  expect(sizes[0]).toContain(`The filter took ${s.filterBytes.toLocaleString('en')} bytes`);
  expect(errors).toEqual([]);
  await page.close();
});
