import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDeliverable } from '../../src/index.js';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';
import { scriptedResponses, type ScriptedResponses } from '../helpers/model-server/openai-responses.js';
import {
  DELIVERABLE,
  deliverableScript,
  fakeCli,
  fakeDrift,
  launchAgent,
  launchers,
  launchRealCli,
  realCliFederation,
  type CliTools,
  type TestFederation,
} from '../helpers/real-cli-launch.js';
import { skipWithoutRealCli } from '../helpers/real-clis.js';
import { handOver } from '../helpers/unprivileged-user.js';

/**
 * The real Codex (test/real-clis) driven by the real `fed launch`, against a scripted OpenAI Responses API
 * on a local port (a model provider in the launcher's own CODEX_HOME): the script calls fed's MCP tools
 * (Codex offers them as the namespace `mcp__fed`), writes the deliverable with its shell and stops.
 */
const SUITE = 'the real Codex driven by fed launch';

/** Codex's tools: fed's in their namespace, its shell for files. */
const CODEX: CliTools = {
  fed: (tool, input) => ({ call: tool, namespace: 'mcp__fed', input }),
  write: (path, content) => ({
    call: 'exec_command',
    input: { cmd: `cat > '${path}' <<'FED_EOF'\n${content}FED_EOF`, login: false },
  }),
};

let server: ScriptedResponses | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A CODEX_HOME of the launcher's whose model provider is the scripted server. */
function codexHome(fed: TestFederation, url: string): string {
  const home = join(fed.home, '.codex');
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'config.toml'),
    `model = "gpt-test"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "scripted"\nbase_url = "${url}"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n`,
  );
  if (fed.launcher) handOver(fed.home, fed.launcher);
  return home;
}

describe.skipIf(skipWithoutRealCli(SUITE, 'codex') || skipWithoutBubblewrap(`${SUITE} (sandboxed)`))(SUITE, () => {
  describe.each(launchers(SUITE))('launched by $label', ({ user: launcher }) => {
    it('completes a deliverable team end to end in the sandbox: fed tools called, the document written and accepted', async () => {
      const fed = await realCliFederation(launcher);
      server = await scriptedResponses({
        steps: deliverableScript(CODEX, fed.deliverable),
        usage: { input: 100, output: 20 },
      });
      const result = await launchRealCli(fed, 'codex', {
        CODEX_HOME: codexHome(fed, server.url),
        OPENAI_API_KEY: 'sk-test-key',
      });

      expect(result, JSON.stringify(result.lastRun)).toMatchObject({ outcome: 'complete', state: 'complete' });
      expect(result.lastRun).toMatchObject({ outcome: 'completed', sandboxed: true, preset: 'codex' });
      expect(checkDeliverable(fed.deliverable).violations).toEqual([]);
      expect(readFileSync(fed.deliverable, 'utf8')).toBe(DELIVERABLE);
      // Codex does not wait for its MCP servers before the first turn (seen with 0.169.0: a slow start of
      // fed's server, as an unprivileged user, left it out of the first turn's tools); later turns have it.
      expect(server.turns.some((turn) => turn.tools.includes('mcp__fed'))).toBe(true);
      expect(server.turns).toHaveLength(7);
      // The session is the thread Codex reported, sent with every turn.
      expect(result.lastRun.sessionId).toBeTruthy();
      for (const turn of server.turns)
        expect(turn.headers['session_id'] ?? turn.headers['x-codex-window-id']).toContain(result.lastRun.sessionId!);
      expect(result.lastRun).toMatchObject({ inputTokens: 7 * 100, outputTokens: 7 * 20 });
    }, 180_000);
  });

  it('the fake codex of the preset tests says nothing the real one does not, for the same work', async () => {
    const real = await realCliFederation(undefined);
    server = await scriptedResponses({
      steps: deliverableScript(CODEX, real.deliverable),
      usage: { input: 100, output: 20 },
    });
    const realRun = await launchRealCli(real, 'codex', {
      CODEX_HOME: codexHome(real, server.url),
      OPENAI_API_KEY: 'sk-test-key',
    });
    expect(realRun.lastRun.outcome).toBe('completed');
    const fake = await realCliFederation(undefined);
    const fakeRun = await launchAgent(fake, fakeCli('codex'), { FAKE_SCENARIO: 'completed' });
    expect(fakeRun.lastRun.outcome).toBe('completed');
    // An item is of a kind of its own: the fake's steps must be items the real Codex makes.
    const kind = (event: Record<string, unknown>) =>
      [event.type, (event.item as { type?: string } | undefined)?.type].filter(Boolean).join('/');
    expect(fakeDrift(fakeRun.lastRun.transcriptPath, realRun.lastRun.transcriptPath, kind)).toEqual([]);
  }, 180_000);
});
