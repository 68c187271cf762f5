// Shared set-up of the browser tests: the demo server (the real one `npm start` runs) on a free port, and
// Debian's Chromium driven by playwright-core.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const repoRoot = join(__dirname, '..', '..');
export const screenshotDir = join(__dirname, 'screenshots');

/** The two sizes the page is tested at: a desktop and a phone. */
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };
export const VIEWPORTS = [
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const;

export interface Session {
  browser: Browser;
  server: ChildProcess;
  baseUrl: string;
}

/** The demo server on a free port, and its address (Chromium's and Firefox's suites share it). */
export async function startServer(): Promise<{ server: ChildProcess; baseUrl: string }> {
  const server = spawn('node', [join(repoRoot, 'scripts', 'serve.mjs')], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(/http:\/\/localhost:(\d+)\//);
      if (match) resolve(`http://127.0.0.1:${match[1]}/`);
    });
    server.once('exit', (code) => reject(new Error(`the demo server exited (${code}): ${seen}`)));
  });
  return { server, baseUrl };
}

/** Debian's Chromium, headless, without the background traffic of a first run. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
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
}

export async function startSession(): Promise<Session> {
  mkdirSync(screenshotDir, { recursive: true });
  const { server, baseUrl } = await startServer();
  return { browser: await launchChromium(), server, baseUrl };
}

export async function stopSession(session: Session | undefined): Promise<void> {
  await session?.browser.close();
  session?.server.kill();
}

/** A page that fails the test on any script error or failed request. */
export async function openPage(
  session: Session,
  path: string,
  viewport = { width: 1280, height: 800 },
  init?: () => void,
): Promise<{ page: Page; errors: string[] }> {
  const page = await session.browser.newPage({ viewport, acceptDownloads: true });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
  // A script run before the page's own (a stub of a browser API).
  if (init) await page.addInitScript(init);
  await page.goto(session.baseUrl + path);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  return { page, errors };
}

export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage });
}
