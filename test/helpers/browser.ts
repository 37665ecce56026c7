import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { skipWithout } from './loud-skip.js';

/**
 * A real browser for the dashboard's tests: Debian's chromium (apt package `chromium`) driven by
 * playwright-core — never a browser a test tool downloads — headless, with an empty profile of its own.
 * Every request the page makes is recorded, so tests can assert that none leaves the dashboard's origin;
 * console errors and uncaught page errors are recorded too (a CSP violation shows there).
 */
export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Where screenshots go (gitignored): kept after the run, to look at. */
export const SCREENSHOTS_DIR = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));

/** Why the browser tests cannot run here, or undefined when they can. */
export const chromiumMissing: string | undefined = (() => {
  try {
    accessSync(CHROMIUM, constants.X_OK);
    return undefined;
  } catch {
    return `${CHROMIUM} not installed (install it: apt-get install chromium)`;
  }
})();

/** `describe.skipIf(skipWithoutChromium(SUITE))`: skipped loudly without chromium; under CI never. */
export function skipWithoutChromium(suite: string): boolean {
  return skipWithout(suite, chromiumMissing);
}

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested (documents, scripts, styles, fonts, fetches, event streams), in order. */
  requests: string[];
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
  /** Save a full-page screenshot as test-artifacts/screenshots/<name>.png; returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openBrowser(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserSession> {
  if (chromiumMissing) throw new Error(`the browser tests never skip under CI: ${chromiumMissing}`);
  const profile = mkdtempSync(join(tmpdir(), 'fed-chromium-'));
  const context = await chromium
    .launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: options.viewport ?? { width: 1280, height: 900 },
    })
    .catch((error: unknown) => {
      rmSync(profile, { recursive: true, force: true });
      throw error;
    });
  const requests: string[] = [];
  const errors: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  context.on('weberror', (error) => errors.push(`page error: ${error.error().message}`));
  context.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    requests,
    errors,
    screenshot: async (name) => {
      mkdirSync(SCREENSHOTS_DIR, { recursive: true });
      const path = join(SCREENSHOTS_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
