import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { type ChangeWatch, type FederationBackend, type FederationChange, openFederation } from 'fed';
import { runFed, type FedResult } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A root for the change feed's suite: its federate.config.json (undefined: the default, files), written
 * before `fed init` so every process — the test's listener and the CLI — opens the same backend.
 */
export type ChangeFeedConfig = () => Record<string, unknown> | undefined;

/** Generous: a change is told within milliseconds, but the machine is shared with other suites. */
const HEARD_WITHIN_MS = 15_000;

const WORKER = fileURLToPath(new URL('./fixtures/change-feed-worker.mjs', import.meta.url));

/**
 * The change feed port (`FederationChanges`) against a real federation: every change is made by another
 * process — the built CLI, as a person or an agent would — and must reach the listener with the right
 * scope and team. Needs the build (`npm run build`).
 */
export function describeChangeFeed(name: string, config: ChangeFeedConfig): void {
  describe(`${name}: the change feed (FederationChanges)`, () => {
    async function federation(): Promise<{
      root: string;
      fed: (...args: string[]) => Promise<FedResult>;
      backend: FederationBackend;
    }> {
      const root = tempDir('fed-changes-');
      const written = config();
      if (written) writeFileSync(join(root, 'federate.config.json'), JSON.stringify(written));
      const fed = async (...args: string[]) => {
        const result = await runFed(['--root', root, ...args]);
        expect(result, `fed ${args.join(' ')}: ${result.stderr}`).toMatchObject({ code: 0 });
        return result;
      };
      await fed('init');
      await fed('team', 'onboard', 'docs');
      return { root, fed, backend: openFederation(root).backend };
    }

    function listen(backend: FederationBackend) {
      const changes: FederationChange[] = [];
      const errors: Error[] = [];
      const watch: ChangeWatch = backend.changes.watch(
        (change) => changes.push(change),
        (error) => errors.push(error),
      );
      onTestFinished(() => watch.close());
      const heard = (...wanted: FederationChange[]) =>
        vi.waitFor(
          () => {
            for (const want of wanted) expect(changes).toContainEqual(want);
          },
          { timeout: HEARD_WITHIN_MS, interval: 20 },
        );
      return { watch, changes, errors, heard };
    }

    const team = (id: string, what: Extract<FederationChange, { scope: 'team' }>['what']): FederationChange => ({
      scope: 'team',
      team: id,
      what,
    });

    it("hears another process's signal sends, acknowledgments, answers, events and pauses, each where it happened", async () => {
      const { fed, backend } = await federation();
      const feed = listen(backend);
      await feed.watch.ready;

      const sent = await fed(
        'signal',
        'send',
        '--to',
        'docs',
        '--type',
        'question',
        '--subject',
        'Which API?',
        '--json',
      );
      const id = (JSON.parse(sent.stdout) as { id: string }).id;
      await feed.heard(team('docs', 'inbox'), { scope: 'meta', what: 'outbox' });

      feed.changes.length = 0;
      await fed('signal', 'ack', id, '--team', 'docs');
      await feed.heard(team('docs', 'inbox'));

      feed.changes.length = 0;
      await fed(
        'signal',
        'send',
        '--from',
        'docs',
        '--to',
        'meta',
        '--type',
        'report',
        '--subject',
        'This one',
        '--reply-to',
        id,
      );
      await feed.heard({ scope: 'meta', what: 'inbox' }, team('docs', 'outbox'), { scope: 'delivery' });

      feed.changes.length = 0;
      await fed('team', 'pause', 'docs');
      await feed.heard({ scope: 'registry' }, { scope: 'journal' });
      await fed('team', 'resume', 'docs');

      feed.changes.length = 0;
      await fed('event', '--team', 'docs', 'PAUSE');
      await feed.heard(team('docs', 'lifecycle'));
      expect(feed.errors).toEqual([]);
    });

    it('watches a team onboarded after the watch started', async () => {
      const { fed, backend } = await federation();
      const feed = listen(backend);
      await feed.watch.ready;
      await fed('team', 'onboard', 'later');
      await feed.heard({ scope: 'registry' });
      await fed('signal', 'send', '--to', 'later', '--type', 'directive', '--subject', 'Start');
      await feed.heard(team('later', 'inbox'));
      await fed('event', '--team', 'later', 'PAUSE');
      await feed.heard(team('later', 'lifecycle'));
      expect(feed.errors).toEqual([]);
    });

    it('tells nothing after close, and leaves nothing that keeps a process alive', async () => {
      const { root, fed, backend } = await federation();
      const feed = listen(backend);
      await feed.watch.ready;
      await feed.watch.close();
      await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'After close');
      await fed('event', '--team', 'docs', 'PAUSE');
      // Another listener, opened after, hears the next change: by then the closed one would have too.
      const after = listen(backend);
      await after.watch.ready;
      await fed('event', '--team', 'docs', 'RESUME');
      await after.heard(team('docs', 'lifecycle'));
      expect(feed.changes).toEqual([]);

      // A process that watches, hears a change, and closes the watch (and its backend) exits by itself.
      const worker = await runWorker(root);
      expect(worker, worker.stderr).toMatchObject({ code: 0 });
      expect(worker.stdout).toContain('heard');
      expect(worker.stdout).toContain('closed');
    });
  });
}

/** The worker, with a bound: a watcher left open would keep it alive until the bound kills it (code null). */
function runWorker(root: string): Promise<FedResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, root], {
      stdio: 'pipe',
      env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
