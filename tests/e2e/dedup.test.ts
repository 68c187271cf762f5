// The dedup page in a real Chromium: a generated file with known duplicates gives the exact unique count
// and the exact unique lines, in order.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, screenshot, Session, startSession, stopSession } from './browser';

let session: Session;
beforeAll(async () => {
  session = await startSession();
});
afterAll(() => stopSession(session));

test('a file with known duplicates gives the exact unique lines', async () => {
  // 300,000 lines drawn from 120,000 distinct ones, some CRLF, the last without a newline.
  let seed = 5;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  const lines: string[] = [];
  for (let i = 0; i < 300_000; i++) lines.push(`line ${Math.floor(random() * 120_000)} · ü`);
  const text = lines.map((l, i) => (i % 1000 === 0 ? `${l}\r\n` : `${l}\n`)).join('') + 'tail without newline';
  const path = join(tmpdir(), `dedup-${Date.now()}.txt`);
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
  const out = join(tmpdir(), `dedup-out-${Date.now()}.txt`);
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
