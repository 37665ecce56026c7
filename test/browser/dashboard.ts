import { onTestFinished } from 'vitest';
import { openBrowser, type BrowserSession } from '../helpers/browser.js';
import { runFed, type FedResult } from '../helpers/fed-cli.js';
import { startServe, type ServeProcess } from '../helpers/fed-serve.js';
import { startFedUi, type FedUi } from '../helpers/fed-ui.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * What the dashboard's browser tests share: a federation made by the built CLI, `fed ui` on it (from the
 * built CLI too), and chromium with the page open — all stopped when the test finishes.
 */
export interface Dashboard extends BrowserSession {
  ui: FedUi;
  /** Open a page route (`/`, `/needs-you`, `/team/<id>`…) as a link would. */
  go(path: string): Promise<void>;
}

/** `fed --root <root> …` from the built CLI; fails the test with its stderr when it fails. */
export function fedIn(root: string) {
  return async (...args: string[]): Promise<FedResult> => {
    const result = await runFed(['--root', root, ...args], { cwd: root });
    if (result.code !== 0) throw new Error(`fed ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
    return result;
  };
}

/** A federation (`fed init`) with `teams` onboarded by the built CLI. */
export async function cliFederation(
  teams: readonly string[],
): Promise<{ root: string; fed: ReturnType<typeof fedIn> }> {
  const root = tempDir('fed-browser-');
  const fed = fedIn(root);
  await fed('init');
  for (const team of teams) await fed('team', 'onboard', team);
  return { root, fed };
}

/** `fed ui` on `root` and chromium signed in through the printed URL (the token becomes the cookie). */
export async function openDashboard(root: string): Promise<Dashboard> {
  const ui = await startFedUi(root);
  const browser = await openBrowser().catch(async (error: unknown) => {
    await ui.stop();
    throw error;
  });
  // The browser first: its event stream is a connection the server would otherwise wait for.
  onTestFinished(async () => {
    await browser.close();
    await ui.stop();
  });
  await browser.page.goto(ui.url);
  return {
    ...browser,
    ui,
    go: async (path) => {
      await browser.page.goto(`${ui.origin}${path}`);
    },
  };
}

/** The page requests that went anywhere but the server's own origin (none may). */
export function offOrigin(dashboard: { requests: string[]; ui: { origin: string } }): string[] {
  return dashboard.requests.filter((url) => new URL(url).origin !== dashboard.ui.origin);
}

export interface ServedDashboard extends BrowserSession {
  server: ServeProcess;
  ui: { origin: string };
  go(path: string): Promise<void>;
}

/**
 * `fed serve --json --ui <args>` on `root` (the built CLI) and chromium signed in through the URL its `ui`
 * event gives. The browser is closed when the test finishes; the server is SIGKILLed then if the test did
 * not stop it.
 */
export async function openServedDashboard(
  root: string,
  args: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ServedDashboard> {
  const server = startServe(root, ['--ui', ...args], env);
  const { url } = await server.waitForEvent('ui');
  const browser = await openBrowser();
  onTestFinished(() => browser.close());
  await browser.page.goto(url);
  const origin = new URL(url).origin;
  return {
    ...browser,
    server,
    ui: { origin },
    go: (path) => browser.page.goto(`${origin}${path}`).then(() => undefined),
  };
}
