/**
 * `fed ui` (issue 29) on a federation of 1 000 teams and 100 000 signals, each figure beside a bare
 * node:http server measured in the same run (test/fixtures/bench-ui-ceiling.mjs: it reads the registry
 * and returns it, and one fs.watch tells its event streams):
 * - start: from `fed ui`'s start until its URL is printed, beside the bare server's. Goal ≤ 300 ms, which
 *   the issue set where the bare server started in 61 ms: on a slower or busier machine the same goal is
 *   its ratio to the bare server in the same rounds, ≤ 300/61 ≈ 4.9×.
 * - first page ready: the token exchanged for the cookie, the shell, its assets, /api/board and
 *   /api/needs-you — against the bare server's three registry reads; interleaved rounds. Goal ≤ 1 s.
 *   With chromium installed, also the page itself until its first team card shows.
 * - a change made by the built CLI (`fed team pause|resume`) seen by every one of 20 event-stream
 *   clients: from the registry's write (its mtime) to each client's event; the bare server's 20 streams
 *   see the same change at the same time. Goal p99 ≤ 500 ms.
 * - the server's peak RSS (VmHWM). Goal ≤ 150 MiB.
 * - its CPU over 5 minutes of idleness (ten ticks of its clock) with the 20 clients connected
 *   (/proc/<pid>/stat), right after the changes above: the first tick reads what they marked. Goal ≤ 0.5 %
 *   of a core.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromiumMissing, openBrowser } from '../helpers/browser.js';
import { FED_BIN } from '../helpers/fed-cli.js';
import { startFedUi, startServing, type Serving } from '../helpers/fed-ui.js';
import { FIXTURES_DIR } from '../helpers/fixture-process.js';
import { percentile, report, reportInterleavedRatios, reportRoundRatios, summarize } from './harness.js';
import { uiFederation } from './ui-federation.js';

const TEAMS = 1_000;
const SIGNALS = 100_000;
const ROUNDS = 7;
const CLIENTS = 20;
const CHANGES = 30;
/** The idle window: ten ticks of the dashboard's 30 s clock, which is what costs an idle server anything. */
const IDLE_MS = 300_000;
/** The start goal, and the bare server's start where it was set: the same goal as a ratio. */
const START_GOAL_MS = 300;
const BARE_START_MS = 61;
const MIB = 1024 * 1024;

export default async function uiBench(): Promise<void> {
  const setupStart = performance.now();
  const root = await uiFederation(TEAMS, SIGNALS);
  process.stdout.write(
    `  (a federation of ${TEAMS} teams and ${SIGNALS} signals built in ${((performance.now() - setupStart) / 1000).toFixed(0)} s)\n`,
  );
  try {
    await measure(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function measure(root: string): Promise<void> {
  await startUntilUrl(root);
  const ui = await startFedUi(root);
  const bare = await startServing([join(FIXTURES_DIR, 'bench-ui-ceiling.mjs'), root]).catch(async (error: unknown) => {
    await ui.stop();
    throw error;
  });
  try {
    const startedRss = memory(ui.child.pid!, 'VmRSS');
    await firstPage(ui, bare);
    if (chromiumMissing) process.stdout.write(`  first page in chromium: skipped (${chromiumMissing})\n`);
    else await firstPageInChromium(ui, bare);
    const cookie = await signIn(ui.url);
    const streams = [
      ...Array.from({ length: CLIENTS }, () => eventStream(`${ui.origin}/events`, { Cookie: cookie })),
      ...Array.from({ length: CLIENTS }, () => eventStream(`${bare.origin}/events`, {})),
    ];
    try {
      await Promise.all(streams.map((s) => s.open));
      await changesSeen(root, streams.slice(0, CLIENTS), streams.slice(CLIENTS));
      await idle(ui, bare);
    } finally {
      for (const stream of streams) stream.close();
    }
    const peak = memory(ui.child.pid!, 'VmHWM');
    const rss = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;
    report({
      name: `fed ui peak RSS (VmHWM; ${rss(startedRss)} once started, ${rss(memory(ui.child.pid!, 'VmRSS'))} at the end), ${TEAMS} teams × ${SIGNALS} signals, ${CLIENTS} streams`,
      value: peak / MIB,
      unit: 'MiB',
      ceiling: { name: 'the bare server', value: memory(bare.child.pid!, 'VmHWM') / MIB },
      goal: '≤ 150 MiB',
      met: peak <= 150 * MIB,
    });
  } finally {
    await ui.stop();
    await bare.stop();
  }
}

/**
 * From `fed ui`'s start until its URL is printed, beside the bare server's start, interleaved over ROUNDS
 * starts of each (each stopped once it printed its URL). fed ui prints its URL once it listens; it watches
 * every team's folders and computes the board and the queue after (the first page waits for them).
 */
async function startUntilUrl(root: string): Promise<void> {
  const times: number[] = [];
  const timed = async (start: () => Promise<Serving>) => {
    const started = performance.now();
    const serving = await start();
    const elapsed = performance.now() - started;
    await serving.stop();
    return elapsed;
  };
  await reportInterleavedRatios(
    {
      name: 'the bare server, until its URL is printed',
      run: () => timed(() => startServing([join(FIXTURES_DIR, 'bench-ui-ceiling.mjs'), root])),
    },
    [
      {
        name: 'fed ui, until its URL is printed',
        max: Number((START_GOAL_MS / BARE_START_MS).toFixed(1)),
        run: async () => {
          const elapsed = await timed(() => startFedUi(root));
          times.push(elapsed);
          return elapsed;
        },
      },
    ],
    ROUNDS,
  );
  const s = summarize(times);
  report({
    name: 'fed ui, from its start until its URL is printed, median',
    value: s.median,
    unit: 'ms',
    spread: s,
    rounds: times.length,
    goal: `≤ ${START_GOAL_MS} ms`,
    met: s.median <= START_GOAL_MS,
  });
}

/** `fed ui`'s URL opened as a browser opens it: the session cookie its redirect sets. */
async function signIn(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error(`ui bench: no cookie from ${url} (HTTP ${response.status})`);
  return cookie;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (!response.ok) throw new Error(`ui bench: GET ${url}: HTTP ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

/** What a first visit fetches, timed: the token for the cookie, the shell, then its assets and both views at once. */
async function firstPage(ui: Serving, bare: Serving): Promise<void> {
  const dashboard = async () => {
    const started = performance.now();
    const cookie = await signIn(ui.url);
    const shell = await get(`${ui.origin}/`, { Cookie: cookie });
    const assets = [...shell.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    if (assets.length === 0) throw new Error('ui bench: the shell names no asset');
    const [board] = await Promise.all([
      get(`${ui.origin}/api/board`, { Cookie: cookie }),
      get(`${ui.origin}/api/needs-you`, { Cookie: cookie }),
      ...assets.map((asset) => get(`${ui.origin}${asset}`, { Cookie: cookie })),
    ]);
    const elapsed = performance.now() - started;
    if ((JSON.parse(board) as { teams: unknown[] }).teams.length !== TEAMS) throw new Error('ui bench: wrong board');
    return elapsed;
  };
  const ceiling = async () => {
    const started = performance.now();
    await get(`${bare.origin}/`);
    await Promise.all([get(`${bare.origin}/board`), get(`${bare.origin}/needs-you`)]);
    return performance.now() - started;
  };
  const first = await dashboard();
  const values: number[] = [];
  await reportInterleavedRatios(
    { name: 'bare server: 3 registry reads', run: ceiling },
    [
      {
        name: 'first page ready (cookie, shell, assets, board, needs-you)',
        run: async () => {
          const value = await dashboard();
          values.push(value);
          return value;
        },
      },
    ],
    ROUNDS,
  );
  const s = summarize([first, ...values]);
  report({
    name: `first page ready over HTTP: the very first ${first.toFixed(0)} ms, median ${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`,
    value: Math.max(first, s.median),
    unit: 'ms',
    goal: '≤ 1000 ms',
    met: Math.max(first, s.median) <= 1000,
  });
}

/** The page in chromium until its first team card shows, against chromium opening the bare server's registry. */
async function firstPageInChromium(ui: Serving, bare: Serving): Promise<void> {
  const browser = await openBrowser();
  try {
    await browser.page.goto(ui.url);
    await browser.page.locator('article.card[data-team]').first().waitFor({ timeout: 30_000 });
    const values: number[] = [];
    await reportInterleavedRatios(
      {
        name: 'chromium: the bare server',
        run: async () => {
          const page = await browser.context.newPage();
          const started = performance.now();
          await page.goto(`${bare.origin}/board`);
          const elapsed = performance.now() - started;
          await page.close();
          return elapsed;
        },
      },
      [
        {
          name: 'chromium: the dashboard until its first card',
          run: async () => {
            const page = await browser.context.newPage();
            const started = performance.now();
            await page.goto(`${ui.origin}/`);
            await page.locator('article.card[data-team]').first().waitFor({ timeout: 30_000 });
            const elapsed = performance.now() - started;
            await page.close();
            values.push(elapsed);
            return elapsed;
          },
        },
      ],
      ROUNDS,
    );
    const s = summarize(values);
    report({
      name: `first page ready in chromium (first card shown), median (${s.min.toFixed(0)}–${s.max.toFixed(0)})`,
      value: s.median,
      unit: 'ms',
      goal: '≤ 1000 ms',
      met: s.median <= 1000,
    });
  } finally {
    await browser.close();
  }
}

interface EventStream {
  open: Promise<void>;
  /** When each registry change arrived (Date.now()). */
  registryEvents: number[];
  close(): void;
}

/** An event-stream client that notes when each registry change arrives. */
function eventStream(url: string, headers: Record<string, string>): EventStream {
  const registryEvents: number[] = [];
  let req: ClientRequest | undefined;
  const open = new Promise<void>((resolve, reject) => {
    req = request(url, { headers: { ...headers, Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`ui bench: ${url}: HTTP ${res.statusCode}`));
      resolve();
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = Date.now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (/^event: change$/m.test(event) && data && JSON.parse(data).change?.scope === 'registry')
            registryEvents.push(at);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
  return { open, registryEvents, close: () => req?.destroy() };
}

function fedCommand(root: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FED_BIN, '--root', root, ...args], {
      env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`fed ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

/** Each change's delay, from the registry's write to every client's event (a client that never saw it counts as 5 s). */
async function changesSeen(root: string, dashboard: EventStream[], bare: EventStream[]): Promise<void> {
  const registry = join(root, '.fed', 'team-registry.json');
  const delays = { dashboard: [] as number[], bare: [] as number[] };
  const ratios: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const team = `team-${String(1 + 2 * (i >> 1)).padStart(4, '0')}`;
    const before = Date.now();
    await fedCommand(root, ['team', i % 2 ? 'resume' : 'pause', team]);
    const written = statSync(registry).mtimeMs;
    const seen = async (streams: EventStream[]) => {
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && streams.some((s) => !s.registryEvents.some((at) => at >= before))) await sleep(5);
      return streams.map((s) =>
        Math.max(0, (s.registryEvents.find((at) => at >= before) ?? written + 5_000) - written),
      );
    };
    const [mine, theirs] = await Promise.all([seen(dashboard), seen(bare)]);
    delays.dashboard.push(...mine);
    delays.bare.push(...theirs);
    ratios.push(Math.max(...mine, 1) / Math.max(...theirs, 1));
    await sleep(100);
  }
  const p99 = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      99,
    );
  const mine = p99(delays.dashboard);
  report({
    name: `a CLI change seen by all ${CLIENTS} event streams, p99 of ${delays.dashboard.length} (median ${summarize(delays.dashboard).median.toFixed(0)} ms)`,
    value: mine,
    unit: 'ms',
    ceiling: { name: `bare fs.watch to ${CLIENTS} streams, p99`, value: Math.max(p99(delays.bare), 1) },
    goal: '≤ 500 ms',
    met: mine <= 500,
  });
  reportRoundRatios('slowest stream per change: fed ui / bare fs.watch (1 ms floor)', ratios);
}

/** CPU (user + system) of a process so far, in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kib = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) * 1024;
}

/** CPU of both servers over the same idle window, every client still connected. */
async function idle(ui: Serving, bare: Serving): Promise<void> {
  await sleep(1_000);
  const [ui0, bare0] = [cpuMs(ui.child.pid!), cpuMs(bare.child.pid!)];
  await sleep(IDLE_MS);
  const percent = (used: number) => (used / IDLE_MS) * 100;
  const mine = percent(cpuMs(ui.child.pid!) - ui0);
  const theirs = percent(cpuMs(bare.child.pid!) - bare0);
  report({
    name: `fed ui idle CPU over ${IDLE_MS / 1000} s, ${CLIENTS} streams connected (bare server: ${theirs.toFixed(1)} %)`,
    value: mine,
    unit: '% of a core',
    goal: '≤ 0.5 %',
    met: mine <= 0.5,
  });
}
