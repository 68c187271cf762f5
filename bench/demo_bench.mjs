// The teaching page's own time for an insert and for a step of its replay, in Debian's Chromium (the
// browser tests' set-up: the demo server, playwright-core), on a 64 x 8 table with 16-bit fingerprints and
// 300 keys (the Bloom panel alone is some 8,400 rectangles, the key list 300 buttons), at a desktop and a
// phone size. The browser tests check what these clicks do; this measures how long they take.
// Usage: node bench/demo_bench.mjs [ROUNDS]   (after the package is built: js/dist; ROUNDS inserts, default 40)
// Prints one JSON line per case: {"case": "...", "viewport", "n", "median_ms", "p90_ms", "max_ms"}:
// - "insert_handler": the Insert click's synchronous handler;
// - "insert_frame": that, plus the rendering of the frame it caused (style, layout, paint);
// - "step_handler": a Step click's handler, the fastest of up to three tries of the same step (a slow one
//   is taken again, back one step first: what is left is the handler's cost, not the moments the machine
//   gave the page's thread to another process); "step_handler_first": first tries only;
// - "step_frame": a step's first try plus the rendering of its frame;
// - "step_last": the last step of each replay (best of three), which updates the key list and the Bloom panel.
// The machine is noisy: compare cases within one run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const rounds = Number(process.argv[2] ?? 40);
/** @type {[string, { width: number, height: number }][]} */
const VIEWPORTS = [
  ['desktop', { width: 1440, height: 900 }],
  ['phone', { width: 390, height: 844 }],
];

const server = spawn('node', [join(root, 'scripts', 'serve.mjs')], {
  env: { ...process.env, PORT: '0' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const baseUrl = await new Promise((resolve, reject) => {
  let seen = '';
  server.stdout.on('data', (chunk) => {
    seen += chunk.toString();
    const match = seen.match(/http:\/\/localhost:(\d+)\//);
    if (match) resolve(`http://127.0.0.1:${match[1]}/`);
  });
  server.once('exit', (code) => reject(new Error(`the demo server exited (${code}): ${seen}`)));
});
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});

/** @param {number[]} xs */
function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const round = (x) => Math.round(x * 100) / 100;
  return { n: s.length, median_ms: round(s[Math.floor(s.length / 2)]), p90_ms: round(s[Math.floor(s.length * 0.9)]), max_ms: round(s[s.length - 1]) };
}

try {
  for (const [name, viewport] of VIEWPORTS) {
    const page = await browser.newPage({ viewport });
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(baseUrl);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
    await page.setChecked('#param-semi', false);
    await page.fill('#param-buckets', '64');
    await page.selectOption('#param-slots', '8');
    await page.fill('#param-bits', '16');
    await page.fill('#param-seed', '1');
    await page.fill('#param-kicks', '100');
    await page.click('#reset');
    await page.evaluate(() => /** @type {any} */ (window).cuckooDemo.fill('big-', 300));
    const times = await page.evaluate(async (count) => {
      // The rendering a click caused: from the next frame's start (its requestAnimationFrame) to a task
      // queued there, which runs once that frame's style, layout and paint are done.
      const rendering = () =>
        new Promise((resolve) =>
          requestAnimationFrame(() => {
            const start = performance.now();
            setTimeout(() => resolve(performance.now() - start), 0);
          }),
        );
      const settle = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const input = /** @type {HTMLInputElement} */ (document.getElementById('key-input'));
      const step = /** @type {HTMLButtonElement} */ (document.getElementById('step'));
      const demo = /** @type {any} */ (window).cuckooDemo;
      const out = { insert_handler: [], insert_frame: [], step_handler: [], step_handler_first: [], step_frame: [], step_last: [] };
      for (let i = 0; i < count; i++) {
        await settle();
        input.value = `timed-${i}`;
        let t0 = performance.now();
        document.getElementById('add').click();
        const insert = performance.now() - t0;
        out.insert_handler.push(insert);
        out.insert_frame.push(insert + /** @type {number} */ (await rendering()));
        while (!step.disabled) {
          await settle();
          const from = demo.player.index;
          t0 = performance.now();
          step.click();
          const first = performance.now() - t0;
          out.step_handler_first.push(first);
          out.step_frame.push(first + /** @type {number} */ (await rendering()));
          let best = first;
          for (let again = 0; again < 2 && best >= 8; again++) {
            demo.player.go(from);
            await settle();
            t0 = performance.now();
            step.click();
            best = Math.min(best, performance.now() - t0);
          }
          out.step_handler.push(best);
          if (step.disabled) out.step_last.push(best);
        }
      }
      return out;
    }, rounds);
    if (errors.length > 0) throw new Error(`the page failed at ${name} size: ${errors.join('; ')}`);
    for (const [kase, xs] of Object.entries(times)) {
      if (xs.length > 0) console.log(JSON.stringify({ case: kase, viewport: name, ...summary(xs) }));
    }
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
