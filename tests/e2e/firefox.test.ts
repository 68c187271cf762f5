// Both pages in Firefox (Debian's firefox-esr, driven over WebDriver BiDi by puppeteer-core): a subset of
// the Chromium suites (demo.test.ts, dedup.test.ts), enough that a page which breaks in Firefox fails here.
// The teaching page: the real filter loads, an insert is replayed to the end and the drawing is the
// filter's, a lookup and a delete answer; the dedup page: pasted text, a CSV file keyed by a column
// (compared with the reference), and lines remembered across visits (IndexedDB). Prints the browser's
// version beside the runtimes' lines.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { randomCsv, referenceCsvDedup } from '../js/dedup_cases';
import { startServer } from './browser';

const FIREFOX = '/usr/bin/firefox-esr';
let browser: Browser;
let server: ChildProcess;
let baseUrl: string;
let dir: string;
let passed = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cuckoo-firefox-'));
  ({ server, baseUrl } = await startServer());
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
});

afterAll(async () => {
  const version = browser ? await browser.version() : 'not started';
  await browser?.close();
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(
    `[browser] ${version}: ${passed} of 4 page checks passed (teaching page; its lesson; dedup page: paste and CSV; remembered lines)\n`,
  );
});

/** A page that fails the test on any script error. */
async function open(path: string, width = 1280, height = 800): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${String(error)}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  await page.goto(baseUrl + path);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

test('the teaching page: an insert replayed to the end draws the real filter; lookup and delete answer', async () => {
  const { page, errors } = await open('');
  expect(await page.$$eval('#table [data-bucket]', (b) => b.length)).toBe(16);
  const insert = async (key: string) => {
    await page.$eval(
      '[data-testid=key-input]',
      (e, k) => {
        (e as HTMLInputElement).value = k;
      },
      key,
    );
    await page.click('[data-testid=add]');
    for (let i = 0; i < 100 && (await page.$eval('[data-testid=step]', (b) => !(b as HTMLButtonElement).disabled)); i++)
      await page.click('[data-testid=step]');
  };
  for (const key of ['apple', 'banana', 'cherry', 'date', 'elderberry']) await insert(key);
  expect(await text(page, '[data-testid=item-count]')).toBe('5');
  const drawn = await page.evaluate(() =>
    Array.from(document.querySelectorAll('#table [data-bucket] [data-slot]'), (s) =>
      (s.textContent ?? '').trim() === '' ? 0 : parseInt((s.textContent ?? '').trim(), 16),
    ),
  );
  const real = await page.evaluate(() => Array.from((window as any).cuckooDemo.filter.slots() as Uint32Array));
  expect(drawn).toEqual(real);
  await page.$eval('[data-testid=key-input]', (e) => {
    (e as HTMLInputElement).value = 'banana';
  });
  await page.click('[data-testid=lookup]');
  await page.waitForFunction(() => /banana/.test(document.querySelector('[data-testid=answer]')?.textContent ?? ''));
  await page.click('[data-testid=delete]');
  for (let i = 0; i < 100 && (await page.$eval('[data-testid=step]', (b) => !(b as HTMLButtonElement).disabled)); i++)
    await page.click('[data-testid=step]');
  expect(await text(page, '[data-testid=item-count]')).toBe('4');
  expect(await page.evaluate(() => (window as any).cuckooDemo.filter.size)).toBe(4);
  expect(errors).toEqual([]);
  await page.close();
  passed++;
});

test("the lesson: each chapter's action changes the real filter, and its figure is the filter's slots", async () => {
  const { page, errors } = await open('', 390, 844);
  const figureIsFilter = async () => {
    const { drawn, real } = await page.evaluate(() => ({
      drawn: Array.from(document.querySelectorAll('#lesson-table .lesson-slot'), (s) =>
        (s.textContent ?? '').trim() === '' ? 0 : parseInt((s.textContent ?? '').trim(), 16),
      ),
      real: Array.from((window as any).cuckooLesson.filter.slots() as Uint32Array),
    }));
    expect(drawn).toHaveLength(32);
    expect(drawn).toEqual(real);
  };
  for (let chapter = 0; chapter < 5; chapter++) {
    if (chapter > 0) await page.click('#lesson-next');
    await page.click('#lesson-act');
    await figureIsFilter();
    expect((await text(page, '#lesson-result')).length).toBeGreaterThan(20);
  }
  await page.click('#lesson-next');
  expect(await text(page, '#chapter-title')).toBe('Space, against a Bloom filter');
  expect(await text(page, '#lesson-result')).toMatch(/cuckoo filter [\d.]+ bits a key/);
  expect(errors).toEqual([]);
  await page.close();
  passed++;
});

test('the dedup page: pasted text, and a CSV file keyed by a column, as the reference', async () => {
  const { page, errors } = await open('dedup.html');
  await page.$eval('#paste', (e) => {
    (e as HTMLTextAreaElement).value = 'b\na\nb\nc\na';
  });
  await page.click('#run-paste');
  await page.waitForSelector('body[data-state="done"]');
  expect(await text(page, '[data-testid=dedup-unique-count]')).toBe('3');

  const input = randomCsv(7, 3000);
  const path = join(dir, 'people.csv');
  writeFileSync(path, input);
  await page.click('[data-testid=dedup-csv]');
  await page.$eval('[data-testid=dedup-fields]', (e) => {
    (e as HTMLInputElement).value = 'city';
    e.dispatchEvent(new Event('input', { bubbles: true }));
    e.dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.select('#fp-rate', '1e-8');
  await page.evaluate(() => {
    document.body.dataset.state = '';
  });
  const chooser = (await page.$('input[data-testid=dedup-file]'))!;
  await chooser.uploadFile(path);
  await page.waitForSelector('body[data-state="done"]', { timeout: 60000 });
  const out = await page.evaluate(async () => {
    const link = document.querySelector('[data-testid=dedup-download]') as HTMLAnchorElement;
    return Array.from(new Uint8Array(await (await fetch(link.href)).arrayBuffer()));
  });
  expect(Buffer.from(out).equals(referenceCsvDedup(input, [3]))).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
  passed++;
});

test('the dedup page remembers lines across visits (IndexedDB), and forgets them', async () => {
  const run = async (page: Page, lines: string) => {
    await page.evaluate(() => {
      document.body.dataset.state = '';
    });
    await page.$eval(
      '#paste',
      (e, v) => {
        (e as HTMLTextAreaElement).value = v;
      },
      lines,
    );
    await page.click('#run-paste');
    await page.waitForSelector('body[data-state="done"]');
    return text(page, '[data-testid=dedup-unique-count]');
  };
  let { page, errors } = await open('dedup.html');
  await page.click('#remember');
  expect(await run(page, 'a\nb\nc\n')).toBe('3');
  await page.close();
  ({ page, errors } = await open('dedup.html'));
  await page.waitForFunction(() => (document.getElementById('remember') as HTMLInputElement).checked);
  expect(await run(page, 'b\nc\nd\n')).toBe('1');
  await page.click('#forget');
  await page.waitForFunction(() =>
    /^Nothing is remembered/.test(document.getElementById('remembered')?.textContent ?? ''),
  );
  expect(await run(page, 'b\nc\nd\n')).toBe('3');
  expect(errors).toEqual([]);
  await page.close();
  passed++;
});
