// The dedup page in a real Chromium: a generated file with known duplicates gives the exact unique count
// and the exact unique lines, in order.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage, screenshot, type Session, startSession, stopSession } from './browser';
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
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
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
  expect(
    await page.evaluate(() => (document.querySelector('[data-testid=dedup-progress]') as HTMLProgressElement).value),
  ).toBe(1);
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
  expect(await page.textContent('#status')).toMatch(/\(40-bit slots, doubled (once|\d+ times) in place\)/);
  // On a phone the result is brought into view.
  expect(
    await page.evaluate(() => {
      const r = document.getElementById('status')!.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    }),
  ).toBe(true);
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

/**
 * The engine's own stats for `text`, fed as the page's worker feeds it (64 KiB, then 1 MiB slices), the file's
 * size known; no fpRate is the page's Automatic.
 */
function engineStats(page: import('playwright-core').Page, text: string, fpRate: number | undefined) {
  return page.evaluate(
    async ([t, rate]) => {
      // The package as the page loads it (an import written here would be compiled for Node).
      const load = new Function('url', 'return import(url)') as (url: string) => Promise<any>;
      const { ready, LineDeduper } = await load(new URL('dist/esm/index.js', location.href).href);
      await ready();
      const bytes = new TextEncoder().encode(t);
      const d = new LineDeduper(
        rate === undefined ? { inputBytes: bytes.length } : { fpRate: rate, inputBytes: bytes.length },
      );
      for (let at = 0; at < bytes.length; at += at === 0 ? 64 << 10 : 1 << 20)
        d.push(bytes.subarray(at, at + (at === 0 ? 64 << 10 : 1 << 20)));
      d.end();
      const s = d.stats;
      d.dispose();
      return {
        lines: s.lines,
        unique: s.unique,
        filterBytes: s.filterBytes,
        wrongDropBound: s.wrongDropBound,
        capacity: s.plan.capacity,
        fingerprintBits: s.fingerprintBits,
      };
    },
    [text, fpRate] as [string, number | undefined],
  );
}

function about(x: number): string {
  for (const [size, word] of [
    [1e12, 'trillion'],
    [1e9, 'billion'],
    [1e6, 'million'],
  ] as const) {
    if (x >= size) return `${Number((x / size).toPrecision(2)).toLocaleString('en')} ${word}`;
  }
  return Number(x.toPrecision(2)).toLocaleString('en');
}

test("every number after a run is the engine's, per line read and per unique line, and the loss budget is said as a chance", async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  const intro = (await page.textContent('#how-title ~ p')) ?? '';
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
  expect(status).toContain(
    `The filter took ${s.filterBytes.toLocaleString('en')} bytes (${s.fingerprintBits}-bit slots)`,
  );
  expect(status).toContain(`with room for ${s.capacity.toLocaleString('en')} lines`);
  const two = (x: number) => x.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  expect(status).toContain(
    `${two(s.filterBytes / 20_000)} bytes per line read and ${two(s.filterBytes / 5000)} bytes per unique line`,
  );
  expect(status).toContain(
    `At most about a 1 in ${about(1 / s.wrongDropBound)} chance that any of the 5,000 unique lines was wrongly dropped.`,
  );
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
  expect(await page.textContent('#status')).toMatch(
    /^Done: 0 unique lines of 0, in [\d.]+ s\. The input is empty: there was nothing to remember, so no filter was made\. No lines, so none could be dropped\.$/,
  );
  expect(await page.textContent('#false-drops')).toBe('–');
  expect(errors).toEqual([]);
  await page.close();
});

test('the same file gives the same filter on every run', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  // Long lines first, short ones after: the estimate depends on which bytes make the first block.
  const text =
    Array.from({ length: 2000 }, (_, i) => `${'long line '.repeat(20)}${i}`).join('\n') +
    '\n' +
    Array.from({ length: 300_000 }, (_, i) => `s${i % 90_000}`).join('\n') +
    '\n';
  const sizes: string[] = [];
  for (let run = 0; run < 3; run++) {
    const path = join(dir, `same-${run}-${Date.now()}.txt`);
    writeFileSync(path, text);
    await page.setInputFiles('[data-testid=dedup-file]', path);
    await page.waitForSelector('body[data-state="done"]', { timeout: 60000 });
    sizes.push(((await page.textContent('#status')) ?? '').replace(/in [\d.]+ s/, ''));
    await page.evaluate(() => {
      document.body.dataset.state = '';
    });
  }
  expect(new Set(sizes).size).toBe(1);
  expect(await page.inputValue('#fp-rate')).toBe(''); // Automatic
  const s = await engineStats(page, text, undefined);
  expect(sizes[0]).toContain(`The filter took ${s.filterBytes.toLocaleString('en')} bytes`);
  expect(errors).toEqual([]);
  await page.close();
});

// --- several files, keys from fields and CSV columns, remembering across visits, saving to a file ---

/** A page with `init` run before its own scripts (a stub of a browser API); any script error fails the test. */
function openWith(init: () => void, viewport = { width: 1440, height: 900 }) {
  return openPage(session, 'dedup.html', viewport, init);
}

type Page = import('playwright-core').Page;
let written = 0;
/** Writes `content` to a new file of the test's folder named `name` (in a folder of its own) and returns its path. */
function write(name: string, content: string | Buffer): string {
  const folder = join(dir, `f${written++}`);
  mkdirSync(folder);
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}

/** Runs the page on `paths`, in this order, and waits for it to end; returns the state it ends in. */
async function runFiles(page: Page, paths: string[], timeout = 60000): Promise<string | null> {
  await page.evaluate(() => {
    document.body.dataset.state = '';
  });
  await page.setInputFiles('[data-testid=dedup-file]', paths);
  await page.waitForSelector('body[data-state="done"], body[data-state="error"]', { timeout });
  return page.getAttribute('body', 'data-state');
}

async function downloaded(page: Page): Promise<{ bytes: Buffer; name: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=dedup-download]')]);
  const out = join(dir, `download-${written++}`);
  await download.saveAs(out);
  return { bytes: readFileSync(out), name: download.suggestedFilename() };
}

/** The files as the page reads them together: each file's last line ends with its file. */
const together = (...contents: string[]) =>
  Buffer.from(contents.map((c) => (c === '' || c.endsWith('\n') ? c : `${c}\n`)).join(''));

const fileNames = (page: Page) => page.$$eval('#file-list .file-name', (items) => items.map((i) => i.textContent));

/** Whether every visible button, input, select and link of the page is at least 44 px tall (and wide, but text fields). */
function smallTargets(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('button, input, select, a, label.check')]
      .filter(
        (e) =>
          (e as HTMLElement).offsetParent !== null &&
          !e.closest('nav') &&
          !(e.tagName === 'INPUT' && (e as HTMLInputElement).type === 'checkbox'),
      )
      .map((e) => ({ e, r: e.getBoundingClientRect() }))
      .filter(({ e, r }) => r.height < 44 || (e.tagName === 'BUTTON' && r.width < 44))
      .map(
        ({ e, r }) =>
          `${e.tagName}#${e.id} "${(e.textContent ?? '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`,
      ),
  );
}

/** Whether any element of the page sticks out to the right of the window (cramped layout). */
const overflowing = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('main *')]
      .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
      .map((e) => `${e.tagName}#${e.id}.${e.className}`),
  );

test("several files are deduplicated together, in the order listed; each file's last line ends with it", async () => {
  const { page, errors } = await openPage(session, 'dedup.html', { width: 1440, height: 900 });
  expect(await page.isVisible('#files')).toBe(false);
  const one = 'apple\nbanana\ntail'; // no newline at its end: "tail" must not be joined to "end"
  const two = 'end\napple\ncherry\r\nbanana\n';
  const three = 'cherry\ndate';
  const paths = [write('one.txt', one), write('two.txt', two), write('three.txt', three)];
  expect(await runFiles(page, paths)).toBe('done');
  expect(await fileNames(page)).toEqual(['one.txt', 'two.txt', 'three.txt']);
  expect(await page.textContent('#file-list')).toContain('17 bytes');
  let out = await downloaded(page);
  expect(out.bytes.toString()).toBe('apple\nbanana\ntail\nend\ncherry\r\ndate\n');
  expect(out.bytes.equals(referenceDedup(together(one, two, three)))).toBe(true);
  expect(out.name).toBe('unique.txt');
  expect(await page.textContent('#lines')).toBe('9');
  expect(await page.textContent('#percent')).toBe('100.0%');
  expect(await page.textContent('#status')).toMatch(/^Done: 6 unique lines of 9, /);

  // Reordered in the list (three.txt up twice), then run again in that order.
  await page.click('button[aria-label="Move three.txt up"]');
  await page.click('button[aria-label="Move three.txt up"]');
  expect(await fileNames(page)).toEqual(['three.txt', 'one.txt', 'two.txt']);
  await page.evaluate(() => {
    document.body.dataset.state = '';
  });
  expect(await page.textContent('[data-testid=dedup-run-files]')).toBe('Deduplicate these files in this order');
  await page.click('[data-testid=dedup-run-files]');
  await page.waitForSelector('body[data-state="done"]');
  out = await downloaded(page);
  expect(out.bytes.toString()).toBe('cherry\ndate\napple\nbanana\ntail\nend\n');
  expect(out.bytes.equals(referenceDedup(together(three, one, two)))).toBe(true);
  await screenshot(page, 'dedup-files-desktop', true);

  // Dropped together: read in the order they come.
  await page.evaluate(() => {
    document.body.dataset.state = '';
  });
  await page.evaluate(() => {
    const files = new DataTransfer();
    files.items.add(new File(['b\nshared'], 'first.txt'));
    files.items.add(new File(['shared\na\nb\n'], 'second.txt'));
    document
      .getElementById('drop')!
      .dispatchEvent(new DragEvent('drop', { dataTransfer: files, bubbles: true, cancelable: true }));
  });
  await page.waitForSelector('body[data-state="done"]');
  expect(await fileNames(page)).toEqual(['first.txt', 'second.txt']);
  expect((await downloaded(page)).bytes.toString()).toBe('b\nshared\na\n');

  // Two larger files that overlap, the first without a final newline, over block boundaries: exact.
  await page.selectOption('#fp-rate', '1e-8');
  const a = Array.from({ length: 150_000 }, (_, i) => `row ${(i * 7) % 100_000}`).join('\n');
  const b = Array.from({ length: 150_000 }, (_, i) => `row ${50_000 + ((i * 11) % 100_000)}`).join('\n') + '\n';
  expect(await runFiles(page, [write('a.txt', a), write('b.txt', b)])).toBe('done');
  out = await downloaded(page);
  const expected = referenceDedup(together(a, b));
  expect(out.bytes.equals(expected)).toBe(true);
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe((150_000).toLocaleString('en'));
  expect(
    await page.evaluate(() => (document.querySelector('[data-testid=dedup-progress]') as HTMLProgressElement).value),
  ).toBe(1);
  expect(errors).toEqual([]);
  await page.close();
});

test('keys from fields: a delimiter and field numbers, as cut', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  await page.fill('[data-testid=dedup-fields]', '2');
  await page.fill('#delimiter', ',');
  const text = 'a,1,x\nb,1,y\nc,2\nd,,\ne\n';
  expect(await runFiles(page, [write('fields.txt', text)])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe('a,1,x\nc,2\nd,,\n');
  expect(
    (await downloaded(page)).bytes.equals(referenceDedup(Buffer.from(text), { fields: [[2, 2]], delimiter: ',' })),
  ).toBe(true);
  // Not a field list: the engine's message, plainly.
  await page.fill('[data-testid=dedup-fields]', 'email');
  expect(await runFiles(page, [write('fields.txt', text)])).toBe('error');
  expect(await page.textContent('#status')).toMatch(
    /^Stopped: fields must be a list like 2, 2,4, 2-3 or 3- .*got 'email'/,
  );
  expect(await page.isVisible('[data-testid=dedup-download]')).toBe(false);
  expect(errors).toEqual([]);
  await page.close();
});

/** RFC 4180 records of `text` (delimiter ","): each record's text with its line end, and its fields decoded. */
function csvRecords(text: string, delimiter = ','): { raw: string; fields: string[] }[] {
  const records: { raw: string; fields: string[] }[] = [];
  let i = 0;
  while (i < text.length) {
    const start = i;
    const fields: string[] = [];
    let field = '';
    let quoted = false;
    let fieldStart = true;
    for (; i < text.length; i++) {
      const c = text[i];
      if (quoted) {
        if (c !== '"') field += c;
        else if (text[i + 1] === '"') field += text[i++];
        else quoted = false;
      } else if (c === '"' && fieldStart) {
        quoted = true;
        fieldStart = false;
      } else if (c === delimiter) {
        fields.push(field);
        field = '';
        fieldStart = true;
      } else if (c === '\n') {
        i++;
        break;
      } else {
        field += c;
        fieldStart = false;
      }
    }
    fields.push(field);
    records.push({ raw: text.slice(start, i), fields });
  }
  return records;
}

/**
 * The CSV dedup the page promises: the header first, then each record whose key columns (header names or
 * 1-based numbers; all of them when none) hold values not seen before, whole; a last record without "\n"
 * gets one.
 */
function referenceCsvDedup(text: string, columns: string[], delimiter = ','): string {
  const [header, ...records] = csvRecords(text, delimiter);
  const at =
    columns.length === 0
      ? header.fields.map((_, i) => i)
      : columns.map((c) => (/^\d+$/.test(c) ? Number(c) - 1 : header.fields.indexOf(c)));
  const withEnd = (raw: string) => (raw.endsWith('\n') ? raw : `${raw}\n`);
  const seen = new Set<string>();
  let out = withEnd(header.raw);
  for (const r of records) {
    const key = JSON.stringify(at.map((i) => r.fields[i] ?? ''));
    if (seen.has(key)) continue;
    seen.add(key);
    out += withEnd(r.raw);
  }
  return out;
}

test('a CSV column is the key: by name, quoted fields, a newline inside quotes; an unknown column is said', async () => {
  const { page, errors } = await openPage(session, 'dedup.html', { width: 1440, height: 900 });
  await page.selectOption('#fp-rate', '1e-8');
  await page.check('[data-testid=dedup-csv]');
  expect(await page.getAttribute('#delimiter', 'placeholder')).toBe(',');
  expect(await page.textContent('#lines-label')).toBe('Records read');
  await page.fill('[data-testid=dedup-fields]', 'email');
  const text = [
    'name,email,city',
    '"Smith, Ann",ann@example.com,"Oslo"',
    'Bob,bob@example.com,Bergen',
    '"Ann ""the first"" Smith","ann@example.com",Oslo', // the same email, quoted: a duplicate
    'Carl,"carl@example.com","Line one\nline two"',
    'Dora,"dora@example.com",Trondheim',
    '"Bob again",bob@example.com,"multi\nline"',
    'Eve,"eve,with comma@example.com",X',
    'Eve2,"eve,with comma@example.com",Y',
    'Eve3,"eve",with comma@example.com', // not the same: its email is "eve"
    'last,carl@example.com,no newline at its end',
  ].join('\n');
  const expected = referenceCsvDedup(text, ['email']);
  expect(expected).toBe(
    'name,email,city\n"Smith, Ann",ann@example.com,"Oslo"\nBob,bob@example.com,Bergen\n' +
      'Carl,"carl@example.com","Line one\nline two"\nDora,"dora@example.com",Trondheim\nEve,"eve,with comma@example.com",X\n' +
      'Eve3,"eve",with comma@example.com\n',
  );
  expect(await runFiles(page, [write('people.csv', text)])).toBe('done');
  let out = await downloaded(page);
  expect(out.bytes.toString()).toBe(expected);
  expect(out.name).toBe('people.unique.csv');
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe('6');
  expect(await page.textContent('#lines')).toBe('10');
  expect(await page.textContent('#status')).toMatch(/^Done: 6 unique records of 10 \(the header not counted\), /);
  await screenshot(page, 'dedup-csv-desktop', true);

  // A larger file, by column number: records cross the blocks the worker reads.
  let seed = 11;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
  const rows = ['id,email,note'];
  for (let i = 0; i < 6000; i++) {
    const email = `user${Math.floor(random() * 900)}@example.com`;
    const r = random();
    const note = r < 0.2 ? `"a ""quoted"" note,\nover two lines ${i}"` : r < 0.4 ? `"with, comma ${i}"` : `plain ${i}`;
    rows.push(`${i},${random() < 0.5 ? `"${email}"` : email},${note}`);
  }
  const big = rows.join('\n') + '\n';
  await page.fill('[data-testid=dedup-fields]', '2');
  expect(await runFiles(page, [write('big.csv', big)])).toBe('done');
  out = await downloaded(page);
  expect(out.bytes.toString() === referenceCsvDedup(big, ['2'])).toBe(true);
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe(
    String(csvRecords(referenceCsvDedup(big, ['2'])).length - 1),
  );

  // Two columns by name.
  await page.fill('[data-testid=dedup-fields]', 'name, city');
  const pairs = 'name,email,city\nAnn,a@x,Oslo\nAnn,b@x,Bergen\nAnn,c@x,Oslo\n"Bob",d@x,"Oslo"\nBob,e@x,Oslo\n';
  expect(await runFiles(page, [write('pairs.csv', pairs)])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe(referenceCsvDedup(pairs, ['name', 'city']));
  expect(referenceCsvDedup(pairs, ['name', 'city'])).toBe(
    'name,email,city\nAnn,a@x,Oslo\nAnn,b@x,Bergen\n"Bob",d@x,"Oslo"\n',
  );

  // Several CSV files with the same header: it is written once.
  await page.fill('[data-testid=dedup-fields]', 'email');
  const second = 'name,email,city\nFrank,frank@example.com,Molde\nBob,bob@example.com,Bergen';
  expect(await runFiles(page, [write('people.csv', text), write('more.csv', second)])).toBe('done');
  out = await downloaded(page);
  expect(out.bytes.toString()).toBe(`${expected}Frank,frank@example.com,Molde\n`);

  // Another header: the run stops and says which file.
  expect(await runFiles(page, [write('people.csv', text), write('other.csv', 'mail,name\nx@y,z\n')])).toBe('error');
  expect(await page.textContent('#status')).toBe(
    'Stopped: other.csv: an input\'s header differs from the first input\'s: "mail,name", not "name,email,city"',
  );

  // An unknown column: the engine's message, which names it.
  await page.fill('[data-testid=dedup-fields]', 'mail');
  expect(await runFiles(page, [write('people.csv', text)])).toBe('error');
  const status = (await page.textContent('#status')) ?? '';
  expect(status).toMatch(/^Stopped: /);
  expect(status).toContain('mail');
  expect(await page.isVisible('[data-testid=dedup-download]')).toBe(false);
  // No column named: all of them are the key, decoded ("Bob" and Bob are the same value).
  await page.fill('[data-testid=dedup-fields]', ' ');
  const whole = 'a,b\n"Bob",x\nBob,x\nBob,"x"\n"Bob,x"\nBob,y\n"Bob,x"\n';
  expect(await runFiles(page, [write('whole.csv', whole)])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe(referenceCsvDedup(whole, []));
  expect(referenceCsvDedup(whole, [])).toBe('a,b\n"Bob",x\n"Bob,x"\nBob,y\n');
  // Another delimiter: semicolons, commas inside fields as data.
  await page.fill('[data-testid=dedup-fields]', 'email');
  await page.fill('#delimiter', ';');
  const semi = 'name;email\n"Lie, Ann";ann@x\nAnn;"ann@x"\n"Bo; B";bo@x\n';
  expect(await runFiles(page, [write('semi.csv', semi)])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe(referenceCsvDedup(semi, ['email'], ';'));
  expect(referenceCsvDedup(semi, ['email'], ';')).toBe('name;email\n"Lie, Ann";ann@x\n"Bo; B";bo@x\n');
  await page.fill('#delimiter', '');
  expect(errors).toEqual([]);
  await page.close();

  // The phone: the settings stack, nothing sticks out, and every control is a 44 px target.
  const phone = await openPage(session, 'dedup.html', { width: 390, height: 844 });
  await phone.page.check('[data-testid=dedup-csv]');
  await phone.page.fill('[data-testid=dedup-fields]', 'email');
  expect(await runFiles(phone.page, [write('people.csv', text), write('more.csv', second)])).toBe('done');
  expect(await overflowing(phone.page)).toEqual([]);
  expect(await smallTargets(phone.page)).toEqual([]);
  await screenshot(phone.page, 'dedup-csv-phone', true);
  expect(phone.errors).toEqual([]);
  await phone.page.close();
});

/** The remembered filter's bytes, as the page keeps them in IndexedDB (a fingerprint of them: length and a sum). */
function storedFilter(page: Page) {
  return page.evaluate(
    () =>
      new Promise<string>((resolve, reject) => {
        const open = indexedDB.open('cuckoo-wasm-dedup', 1);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('remembered')) return resolve('none');
          const get = db.transaction('remembered').objectStore('remembered').get('filter');
          get.onsuccess = () => {
            const bytes = get.result as Uint8Array | undefined;
            db.close();
            resolve(bytes ? `${bytes.length}:${bytes.reduce((h, b) => (h * 31 + b) >>> 0, 7)}` : 'none');
          };
        };
      }),
  );
}

test('lines are remembered across visits, a cancelled run leaves them as they were, and Forget forgets them', async () => {
  const { page, errors } = await openPage(session, 'dedup.html', { width: 390, height: 844 });
  expect(await page.isChecked('[data-testid=dedup-remember]')).toBe(false); // off by default
  expect(await page.textContent('[data-testid=dedup-remembered]')).toBe('Nothing is remembered in this browser.');
  expect(await page.isDisabled('[data-testid=dedup-forget]')).toBe(true);
  const a = Array.from({ length: 80 }, (_, i) => `item ${i % 50}`).join('\n') + '\n'; // 50 unique
  const b = Array.from({ length: 60 }, (_, i) => `item ${25 + (i % 50)}`).join('\n') + '\n'; // 25..74: 25 new
  const bPath = write('b.txt', b);

  // Off: nothing is kept.
  expect(await runFiles(page, [write('a.txt', a)])).toBe('done');
  expect(await storedFilter(page)).toBe('none');
  expect(await page.textContent('#status')).not.toContain('kept in this browser');

  await page.check('[data-testid=dedup-remember]');
  expect(await runFiles(page, [write('a.txt', a)])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe(referenceDedup(Buffer.from(a)).toString());
  expect(await page.textContent('#status')).toContain('It is kept in this browser for the next run.');
  const afterA = await storedFilter(page);
  expect(afterA).not.toBe('none');
  // The filter's size as the result says it (the stored export adds its header to it).
  const bytesA = ((await page.textContent('#status')) ?? '').match(/The filter took ([\d,]+) bytes/)![1];
  expect(await page.textContent('[data-testid=dedup-remembered]')).toBe(
    `Remembered in this browser: 50 lines (keyed by whole lines), in a filter of ${bytesA} bytes.`,
  );

  // The next visit: the page remembers, and B writes only its lines that A did not have.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  expect(await page.isChecked('[data-testid=dedup-remember]')).toBe(true);
  expect(await page.textContent('[data-testid=dedup-remembered]')).toContain('50 lines');
  expect(await runFiles(page, [bPath])).toBe('done');
  const onlyNew = Array.from({ length: 25 }, (_, i) => `item ${50 + i}\n`).join('');
  expect((await downloaded(page)).bytes.toString()).toBe(onlyNew);
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe('25');
  expect(await page.textContent('#status')).toMatch(
    /The remembered filter \([\d,]+ bytes, \d+-bit slots\), which held 50 lines from earlier runs, now holds 75 lines\./,
  );
  const afterB = await storedFilter(page);
  expect(afterB).not.toBe(afterA);
  expect(await page.textContent('[data-testid=dedup-remembered]')).toContain('75 lines');
  // Again: B has nothing new now.
  expect(await runFiles(page, [bPath])).toBe('done');
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe('0');
  const remembered = await page.textContent('[data-testid=dedup-remembered]');
  const stored = await storedFilter(page);

  // A cancelled run, and a failed one, leave the remembered lines as they were.
  const big = write('big.txt', Array.from({ length: 3_000_000 }, (_, i) => `row ${i}`).join('\n'));
  await page.evaluate(() => {
    document.body.dataset.state = '';
  });
  await page.setInputFiles('[data-testid=dedup-file]', big);
  await page.click('#cancel');
  await page.waitForSelector('body[data-state="cancelled"]');
  expect(await page.textContent('#status')).toBe('Cancelled: nothing was written.');
  expect(await storedFilter(page)).toBe(stored);
  expect(await page.textContent('[data-testid=dedup-remembered]')).toBe(remembered);
  // Keys made another way do not fit the remembered filter: the page says so and keeps it.
  await page.fill('[data-testid=dedup-fields]', '1');
  expect(await runFiles(page, [bPath])).toBe('error');
  expect(await page.textContent('#status')).toMatch(
    /^Stopped: the remembered lines were keyed by whole lines, and this run by field 1 split at tab: /,
  );
  expect(await storedFilter(page)).toBe(stored);
  await page.fill('[data-testid=dedup-fields]', '');
  await screenshot(page, 'dedup-remember-phone', true);
  expect(await smallTargets(page)).toEqual([]);
  expect(await overflowing(page)).toEqual([]);

  // Off: the remembered lines are left aside, and stay.
  await page.uncheck('[data-testid=dedup-remember]');
  expect(await page.textContent('[data-testid=dedup-remembered]')).toContain(
    'Runs leave it aside while remembering is off.',
  );
  expect(await runFiles(page, [bPath])).toBe('done');
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe('50');
  expect(await storedFilter(page)).toBe(stored);
  await page.check('[data-testid=dedup-remember]');

  // Forget: B gives all its unique lines again.
  await page.click('[data-testid=dedup-forget]');
  await page.waitForSelector('[data-testid=dedup-remembered]:has-text("Nothing is remembered")');
  expect(await storedFilter(page)).toBe('none');
  expect(await page.isDisabled('[data-testid=dedup-forget]')).toBe(true);
  expect(await runFiles(page, [bPath])).toBe('done');
  expect((await downloaded(page)).bytes.equals(referenceDedup(Buffer.from(b)))).toBe(true);
  expect(await page.textContent('[data-testid=dedup-unique-count]')).toBe('50');
  // Still on: this run is remembered afresh.
  expect(await page.textContent('[data-testid=dedup-remembered]')).toContain('50 lines');

  // CSV records remembered by a column: the header is written on every run, and never remembered.
  await page.click('[data-testid=dedup-forget]');
  await page.waitForSelector('[data-testid=dedup-remembered]:has-text("Nothing is remembered")');
  await page.check('[data-testid=dedup-csv]');
  await page.fill('[data-testid=dedup-fields]', 'email');
  const csv = 'name,email\n"Ann",a@x\nBob,b@x\n';
  expect(await runFiles(page, [write('p.csv', csv)])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe(csv);
  expect(await page.textContent('[data-testid=dedup-remembered]')).toMatch(
    /^Remembered in this browser: 2 records \(keyed by CSV column email\), /,
  );
  expect(await runFiles(page, [write('q.csv', 'name,email\nAnn again,a@x\nCid,c@x\n')])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe('name,email\nCid,c@x\n');
  expect(await page.textContent('#status')).toMatch(
    /^Done: 1 unique record of 2 \(the header not counted\), .* which held 2 records from earlier runs, now holds 3 records\./,
  );
  expect(errors).toEqual([]);
  await page.close();
});

// --- the sentences of a result, and the key box ---

/** Starts a run of `text` pasted, without waiting for it. */
async function startPaste(page: Page, text: string) {
  await page.evaluate(() => {
    document.body.dataset.state = '';
  });
  await page.fill('#paste', text);
  await page.click('#run-paste');
}

/** Runs `text` pasted and waits for the run to end; returns the state it ends in. */
async function runPaste(page: Page, text: string): Promise<string | null> {
  await startPaste(page, text);
  await page.waitForSelector('body[data-state="done"], body[data-state="error"]', { timeout: 60000 });
  return page.getAttribute('body', 'data-state');
}

/** The page's sentence about what is remembered in this browser. */
const remembersText = (page: Page) => page.textContent('[data-testid=dedup-remembered]');

test('after a remembered run the filter has one size on the page; lines all seen before are said so', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  await page.check('[data-testid=dedup-remember]');
  const sizes = async () => {
    const text = `${await page.textContent('#status')} ${await remembersText(page)}`;
    return [...new Set([...text.matchAll(/([\d,]+) bytes/g)].map((m) => m[1]))];
  };
  expect(await runPaste(page, 'one\ntwo\nthree\n')).toBe('done');
  const first = await sizes();
  expect(first).toHaveLength(1);
  expect(await page.textContent('#status')).toContain(`The filter took ${first[0]} bytes`);
  // The export kept in IndexedDB is a header longer: not a second size of the filter.
  expect(Number((await storedFilter(page)).split(':')[0])).toBeGreaterThan(Number(first[0].replace(/,/g, '')));
  // All seen before: there were lines, none new.
  expect(await runPaste(page, 'two\none\ntwo\n')).toBe('done');
  const status = (await page.textContent('#status')) ?? '';
  expect(status).not.toContain('No lines');
  expect(status).toContain('All 3 lines had been seen before, in earlier runs or earlier in this one: none was new.');
  expect(await page.textContent('#false-drops')).toBe('–');
  expect(await sizes()).toEqual(first);
  expect(status).toContain(`The remembered filter (${first[0]} bytes, `);
  expect(errors).toEqual([]);
  await page.close();
});

test('a few lines: no bytes per line and no speed, only the filter and the time', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  expect(await runPaste(page, 'b\na\nb\n')).toBe('done');
  const status = (await page.textContent('#status')) ?? '';
  expect(status).toMatch(/The filter took [\d,]+ bytes \(/);
  expect(status).not.toContain('per line');
  expect(status).not.toContain('per unique line');
  expect(status).toContain('it held 2 unique lines.');
  // A speed only for a run of 0.2 s or more (3 lines take that only on a very busy machine).
  const seconds = Number(status.match(/in ([\d.]+) s\./)![1]);
  if (seconds < 0.19) expect(await page.textContent('#rate')).toBe('–');
  if (seconds > 0.21) expect(await page.textContent('#rate')).toMatch(/^[\d,]+$/);
  expect(errors).toEqual([]);
  await page.close();
});

test('the key box is about columns only with CSV', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  const label = () => page.textContent('#key-fields-label');
  expect(await label()).toBe('Key field(s)');
  expect(await page.getAttribute('[data-testid=dedup-fields]', 'placeholder')).not.toMatch(/email/);
  await page.check('[data-testid=dedup-csv]');
  expect(await label()).toBe('Key column(s)');
  expect(await page.getAttribute('[data-testid=dedup-fields]', 'placeholder')).toMatch(/email/);
  await page.uncheck('[data-testid=dedup-csv]');
  expect(await label()).toBe('Key field(s)');
  expect(await page.textContent('.fields-row')).not.toMatch(/column/i);
  expect(await page.getAttribute('[data-testid=dedup-fields]', 'placeholder')).not.toMatch(/email/);
  expect(errors).toEqual([]);
  await page.close();
});

// --- two tabs of one browser: one origin's IndexedDB and Web Locks ---

/** A browser context (its tabs share IndexedDB and Web Locks), with `init` run before each tab's scripts. */
async function tabsContext(init?: () => void) {
  const context = await session.browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  if (init) await context.addInitScript(init);
  return context;
}

/** A tab of `context` on the dedup page; any script error or failed request fails the test. */
async function openTab(context: import('playwright-core').BrowserContext) {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
  await page.goto(`${session.baseUrl}dedup.html`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

/**
 * A stub of the Worker's onmessage: while `window.holdDone` is set, a run's "done" message is kept in
 * `window.held` until the test calls it, so that a run is still going on while another tab runs.
 */
function holdRunsInit() {
  const w = window as any;
  w.held = [];
  w.holdDone = false;
  const own = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage')!;
  Object.defineProperty(Worker.prototype, 'onmessage', {
    configurable: true,
    get() {
      return own.get!.call(this);
    },
    set(handler: (event: MessageEvent) => void) {
      own.set!.call(this, (event: MessageEvent) => {
        if (event.data?.type === 'done' && w.holdDone) w.held.push(() => handler(event));
        else handler(event);
      });
    },
  });
}

/** Waits until `count` runs of the page are held at their end (holdRunsInit); a run that fails says why. */
async function heldRuns(page: Page, count: number) {
  await page.waitForFunction(
    (n) => (window as any).held.length === n || document.body.dataset.state === 'error',
    count,
    { timeout: 60000 },
  );
  expect([await page.evaluate(() => (window as any).held.length), await page.textContent('#status')]).toEqual([
    count,
    expect.anything(),
  ]);
}

test('a tab reads what is remembered when its run starts: lines another tab keyed differently since are refused', async () => {
  const context = await tabsContext();
  const a = await openTab(context);
  await a.page.check('[data-testid=dedup-remember]');
  expect(await runPaste(a.page, 'x\ny\n')).toBe('done');
  // B opens while A's lines are remembered, keyed by whole lines.
  const b = await openTab(context);
  expect(await b.page.isChecked('[data-testid=dedup-remember]')).toBe(true);
  expect(await remembersText(b.page)).toContain('2 lines (keyed by whole lines)');
  // A forgets them, then remembers CSV records keyed by their email column.
  await a.page.click('[data-testid=dedup-forget]');
  await a.page.waitForSelector('[data-testid=dedup-remembered]:has-text("Nothing is remembered")');
  await a.page.check('[data-testid=dedup-csv]');
  await a.page.fill('[data-testid=dedup-fields]', 'email');
  expect(await runPaste(a.page, 'name,email\nAnn,a@x\nBob,b@x\n')).toBe('done');
  const stored = await storedFilter(a.page);
  // B, whose page still says whole lines, runs plain lines, one of them an email A remembered: refused.
  expect(await remembersText(b.page)).toContain('keyed by whole lines');
  expect(await runPaste(b.page, 'a@x\nnew line\n')).toBe('error');
  expect(await b.page.textContent('#status')).toMatch(
    /^Stopped: the remembered records were keyed by CSV column email, and this run by whole lines: /,
  );
  expect(await b.page.isVisible('[data-testid=dedup-download]')).toBe(false);
  expect(await storedFilter(b.page)).toBe(stored);
  expect(await remembersText(b.page)).toMatch(/^Remembered in this browser: 2 records \(keyed by CSV column email\), /);
  // Keyed as A keyed them, B's run goes on from A's records.
  await b.page.check('[data-testid=dedup-csv]');
  await b.page.fill('[data-testid=dedup-fields]', 'email');
  expect(await runPaste(b.page, 'name,email\nAnn again,a@x\nCid,c@x\n')).toBe('done');
  expect((await downloaded(b.page)).bytes.toString()).toBe('name,email\nCid,c@x\n');
  expect(await remembersText(b.page)).toContain('3 records');
  expect(a.errors).toEqual([]);
  expect(b.errors).toEqual([]);
  await context.close();
});

test("runs that remember lines take turns across tabs: the second waits for the first, and both runs' lines are remembered", async () => {
  const context = await tabsContext(holdRunsInit);
  const a = await openTab(context);
  const b = await openTab(context);
  await a.page.check('[data-testid=dedup-remember]');
  await b.page.check('[data-testid=dedup-remember]');
  // A's run has read what is remembered (nothing) and is not done yet when B starts.
  await a.page.evaluate(() => {
    (window as any).holdDone = true;
  });
  await startPaste(a.page, 'a1\na2\nshared\n');
  await heldRuns(a.page, 1);
  await startPaste(b.page, 'shared\nb1\n');
  await b.page.waitForSelector('#status:has-text("Waiting for another tab\'s run that remembers lines")', {
    timeout: 10000,
  });
  expect(await b.page.getAttribute('body', 'data-state')).toBe('waiting');
  // A ends and remembers its lines; then B runs, from them.
  await a.page.evaluate(() => (window as any).held[0]());
  await a.page.waitForSelector('body[data-state="done"]');
  await b.page.waitForSelector('body[data-state="done"], body[data-state="error"]');
  expect(await b.page.getAttribute('body', 'data-state')).toBe('done');
  expect((await downloaded(b.page)).bytes.toString()).toBe('b1\n');
  expect(await b.page.textContent('#status')).toContain('which held 3 lines from earlier runs, now holds 4 lines');
  // Both runs are remembered: none of their lines is new to either tab.
  await a.page.evaluate(() => {
    (window as any).holdDone = false;
  });
  expect(await runPaste(a.page, 'a1\na2\nshared\nb1\n')).toBe('done');
  expect(await a.page.textContent('[data-testid=dedup-unique-count]')).toBe('0');
  expect(await remembersText(a.page)).toContain('4 lines');

  // A waiting run can be cancelled: it never ran, and the one it waited for is remembered.
  await a.page.evaluate(() => {
    (window as any).holdDone = true;
  });
  await startPaste(a.page, 'c1\n');
  await heldRuns(a.page, 2);
  await startPaste(b.page, 'd1\n');
  await b.page.waitForSelector('body[data-state="waiting"]');
  await b.page.click('#cancel');
  await b.page.waitForSelector('body[data-state="cancelled"]');
  expect(await b.page.textContent('#status')).toBe('Cancelled: nothing was written.');
  await a.page.evaluate(() => (window as any).held[1]());
  await a.page.waitForSelector('body[data-state="done"]');
  expect(await remembersText(a.page)).toContain('5 lines');
  // The lock is free again: B runs at once.
  expect(await runPaste(b.page, 'c1\nd1\n')).toBe('done');
  expect((await downloaded(b.page)).bytes.toString()).toBe('d1\n');
  expect(a.errors).toEqual([]);
  expect(b.errors).toEqual([]);
  await context.close();
});

test('without Web Locks, a run does not write over lines another tab remembered during it: it says to run again', async () => {
  const context = await tabsContext(() => {
    delete (Navigator.prototype as any).locks;
  });
  await context.addInitScript(holdRunsInit);
  const a = await openTab(context);
  const b = await openTab(context);
  expect(await a.page.evaluate(() => 'locks' in navigator)).toBe(false);
  await a.page.check('[data-testid=dedup-remember]');
  await b.page.check('[data-testid=dedup-remember]');
  await a.page.evaluate(() => {
    (window as any).holdDone = true;
  });
  await startPaste(a.page, 'a1\na2\nshared\n');
  await heldRuns(a.page, 1);
  // B runs and remembers its lines while A's run goes on.
  expect(await runPaste(b.page, 'shared\nb1\n')).toBe('done');
  const afterB = await storedFilter(b.page);
  expect(await remembersText(b.page)).toContain('2 lines');
  // A ends: it would have written over B's lines; it keeps them and says so.
  await a.page.evaluate(() => (window as any).held[0]());
  await a.page.waitForSelector('body[data-state="done"], body[data-state="error"]');
  expect(await a.page.getAttribute('body', 'data-state')).toBe('error');
  expect(await a.page.textContent('#status')).toBe(
    "The output is complete, but another tab changed the remembered lines while this run went on, so this run's " +
      "lines were not remembered (that would have lost the other tab's). Run it again to remember them.",
  );
  expect((await downloaded(a.page)).bytes.toString()).toBe('a1\na2\nshared\n');
  expect(await storedFilter(a.page)).toBe(afterB);
  expect(await remembersText(a.page)).toContain('2 lines');
  // Run again, it goes on from B's lines.
  await a.page.evaluate(() => {
    (window as any).holdDone = false;
  });
  expect(await runPaste(a.page, 'a1\na2\nshared\n')).toBe('done');
  expect((await downloaded(a.page)).bytes.toString()).toBe('a1\na2\n');
  expect(await remembersText(a.page)).toContain('4 lines');
  expect(a.errors).toEqual([]);
  expect(b.errors).toEqual([]);
  await context.close();
});

test('a remembered CSV column given by name fits a run that gives it by number, and the other way round', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  await page.check('[data-testid=dedup-remember]');
  await page.check('[data-testid=dedup-csv]');
  await page.fill('[data-testid=dedup-fields]', 'email');
  expect(await runPaste(page, 'name,email\nAnn,a@x\nBob,b@x\n')).toBe('done');
  expect(await remembersText(page)).toMatch(/^Remembered in this browser: 2 records \(keyed by CSV column email\), /);
  // Column 2 of the same header is the email: the same keys.
  await page.fill('[data-testid=dedup-fields]', '2');
  expect(await runPaste(page, 'name,email\nAnn again,a@x\nCid,c@x\n')).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe('name,email\nCid,c@x\n');
  expect(await remembersText(page)).toMatch(/^Remembered in this browser: 3 records \(keyed by CSV column email\), /);
  // In double quotes, in a file whose header starts with a byte-order mark: the same column.
  await page.fill('[data-testid=dedup-fields]', '"email"');
  expect(await runFiles(page, [write('bom.csv', '\ufeffname,email\nBob again,b@x\nCarl,k@x\n')])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe('\ufeffname,email\nCarl,k@x\n');
  // By name again, in a file whose header has the email third (and quoted): still the email's values.
  await page.fill('[data-testid=dedup-fields]', ' email ');
  // (A file: a text box turns CRLF into LF.)
  expect(await runFiles(page, [write('c.csv', 'id,name,"email"\r\n1,Cid again,c@x\r\n2,Dan,d@x\r\n')])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe('id,name,"email"\r\n2,Dan,d@x\r\n');
  // Column 2 of that header is the name: other keys, refused, and said by name.
  await page.fill('[data-testid=dedup-fields]', '2');
  expect(await runPaste(page, 'id,name,email\n3,Eve,e@x\n')).toBe('error');
  expect(await page.textContent('#status')).toMatch(
    /^Stopped: the remembered records were keyed by CSV column email, and this run by CSV column name: /,
  );
  // So is the name column named in double quotes, or in a file with a byte-order mark.
  for (const [fields, text] of [
    ['"name"', 'name,email\nEve,e@x\n'],
    ['name', '\ufeffname,email\nEve,e@x\n'],
  ]) {
    await page.fill('[data-testid=dedup-fields]', fields);
    expect(await runFiles(page, [write('other.csv', text)])).toBe('error');
    expect(await page.textContent('#status')).toMatch(
      /^Stopped: the remembered records were keyed by CSV column email, and this run by CSV column name: /,
    );
  }
  expect(errors).toEqual([]);
  await page.close();
});

test('the output is written to a file as the run goes, where the browser allows it; a cancelled run leaves the file as it was', async () => {
  // The picker, stubbed: a file of the Origin Private File System.
  const { page, errors } = await openWith(() => {
    (window as any).showSaveFilePicker = async () =>
      (await navigator.storage.getDirectory()).getFileHandle('out.txt', { create: true });
  });
  const readOut = () =>
    page.evaluate(async () => {
      const handle = await (await navigator.storage.getDirectory()).getFileHandle('out.txt');
      return (await handle.getFile()).text();
    });
  expect(await page.textContent('[data-testid=dedup-save]')).toBe('Save to a file as it runs…');
  await page.click('[data-testid=dedup-save]');
  await page.waitForSelector('#output-hint:has-text("The next run writes its output to out.txt as it goes")');
  await page.selectOption('#fp-rate', '1e-8');
  // Over 2 MB of output: several blocks are written.
  const text = Array.from({ length: 400_000 }, (_, i) => `line ${i % 250_000}`).join('\n') + '\n';
  expect(await runFiles(page, [write('in.txt', text)])).toBe('done');
  const expected = referenceDedup(Buffer.from(text)).toString();
  expect(expected.length).toBeGreaterThan(2 << 20);
  expect((await readOut()) === expected).toBe(true);
  expect(await page.textContent('#status')).toContain(
    `Written to out.txt (${expected.length.toLocaleString('en')} bytes).`,
  );
  expect(await page.isVisible('[data-testid=dedup-download]')).toBe(false);
  // The handle is used once: the next run is a download again unless a file is chosen.
  expect(await page.textContent('[data-testid=dedup-save]')).toBe('Save to a file as it runs…');
  await screenshot(page, 'dedup-save-desktop', true);

  // Cancelled: the browser discards what the run wrote; out.txt keeps the last complete output.
  await page.click('[data-testid=dedup-save]');
  await page.waitForSelector('#save-clear:visible');
  const big = write('big.txt', Array.from({ length: 3_000_000 }, (_, i) => `row ${i}`).join('\n'));
  await page.evaluate(() => {
    document.body.dataset.state = '';
  });
  await page.setInputFiles('[data-testid=dedup-file]', big);
  await page.waitForFunction(
    () => Number(document.getElementById('lines')!.textContent!.replace(/,/g, '')) > 0,
    undefined,
    { timeout: 60000 },
  );
  await page.click('#cancel');
  await page.waitForSelector('body[data-state="cancelled"]');
  expect(await page.textContent('#status')).toBe(
    'Cancelled: the browser discarded what was written, and out.txt is as it was before the run.',
  );
  expect((await readOut()) === expected).toBe(true);
  // A failed run too (not a field list).
  await page.fill('[data-testid=dedup-fields]', 'x');
  expect(await runFiles(page, [write('in.txt', text)])).toBe('error');
  expect((await readOut()) === expected).toBe(true);
  await page.fill('[data-testid=dedup-fields]', '');
  // The file is still chosen after a run that did not complete; "Download instead" drops it.
  expect(await page.isVisible('#save-clear')).toBe(true);
  await page.click('#save-clear');
  expect(await runFiles(page, [write('small.txt', 'x\nx\ny')])).toBe('done');
  expect((await downloaded(page)).bytes.toString()).toBe('x\ny\n');
  expect((await readOut()) === expected).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});

test('without the file system API the page offers the download only', async () => {
  const { page, errors } = await openWith(() => {
    delete (Window.prototype as any).showSaveFilePicker;
    delete (window as any).showSaveFilePicker;
  });
  expect(await page.isVisible('[data-testid=dedup-save]')).toBe(false);
  expect(await page.textContent('#output-hint')).toContain('this browser cannot write a file as the run goes');
  expect(errors).toEqual([]);
  await page.close();
});

test('the rate is Automatic by default, and the page says what that means', async () => {
  const { page, errors } = await openPage(session, 'dedup.html');
  expect(await page.inputValue('#fp-rate')).toBe('');
  expect(
    await page.$$eval('#fp-rate option', (o) => o.map((x) => [(x as HTMLOptionElement).value, x.textContent])),
  ).toEqual([
    ['', 'Automatic'],
    ['1e-4', '1 in 10,000'],
    ['1e-6', '1 in a million'],
    ['1e-8', '1 in 100 million'],
  ]);
  const intro = (await page.textContent('section[aria-labelledby="how-title"]'))!.replace(/\s+/g, ' ');
  expect(intro).toContain(
    'On Automatic (the default) the filter is made so that the expected number of unique lines ' +
      'wrongly dropped stays at most about 0.01, a 1 in 100 chance that any is, for inputs of up to about 100 million unique lines',
  );
  expect(intro).toContain('past that it cannot, and the result says how many to expect.');
  // A small input on Automatic: the result says the engine's own bound, whatever it is.
  await page.fill('#paste', 'x\n');
  await page.click('#run-paste');
  await page.waitForSelector('body[data-state="done"]');
  expect(await page.textContent('#file-list')).toContain('pasted text 2 bytes');
  const s = await engineStats(page, 'x\n', undefined);
  expect(await page.textContent('#status')).toContain(
    s.wrongDropBound >= 1
      ? `Up to about ${about(s.wrongDropBound)} of the 1 unique line`
      : `At most about a 1 in ${about(1 / s.wrongDropBound)} chance that the one unique line was wrongly dropped.`,
  );
  expect(await page.textContent('#status')).not.toMatch(/\b1 (unique )?lines\b|\b1 bytes\b/);
  expect(errors).toEqual([]);
  await page.close();
});

test('on two threads (?threads=2: a helper worker) the page writes what one thread writes, for several files, and says so', async () => {
  let seed = 9;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
  // About 5 MB in two files: several blocks of 1 MiB, each file's last line without its newline.
  const part = (n: number) =>
    Array.from(
      { length: n },
      () => `user-${Math.floor(random() * 150_000)} GET /item/${Math.floor(random() * 9)}`,
    ).join('\n');
  const first = write('threads-a.txt', part(120_000));
  const second = write('threads-b.txt', part(60_000));
  const expected = referenceDedup(together(readFileSync(first, 'utf8'), readFileSync(second, 'utf8')));
  const outputs: Buffer[] = [];
  for (const threads of [1, 2]) {
    const { page, errors } = await openPage(session, `dedup.html?threads=${threads}`);
    await page.selectOption('#fp-rate', '1e-8');
    expect(await runFiles(page, [first, second])).toBe('done');
    const status = (await page.textContent('#status')) ?? '';
    if (threads === 2) {
      expect(status).toMatch(
        / s on two threads\. The keys were shared between two filters, one for each thread, which took [\d,]+ bytes together/,
      );
      await screenshot(page, 'dedup-two-threads', true);
    } else {
      expect(status).not.toContain('two');
    }
    outputs.push((await downloaded(page)).bytes);
    expect(errors).toEqual([]);
    await page.close();
  }
  expect(outputs[0].equals(expected)).toBe(true);
  expect(outputs[1].equals(expected)).toBe(true);
});
