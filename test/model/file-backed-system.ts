import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v4 as uuidv4 } from 'uuid';
import type { EventObject } from 'xstate';
import { applyLifecycleInputs, initFederation, onboardTeam, openFederation, type RegistryEntry, sendSignal } from 'fed';
import { getTeam, loadTeamLifecycle, readRegistry, TeamInboxConsumer } from 'fed/testing';
import type { ObservedState, SystemUnderTest } from './path-runner.js';

/** When the team is onboarded; the lifecycle's initial state is entered then, so the model starts with it too. */
export const ONBOARDED_AT = '2025-01-01T09:00:00.000Z';

type SampleEvent = EventObject & { at?: string; signalId?: string; subject?: string; body?: string };

/**
 * The real file-backed actor system as a system under test for the model paths: a temp federation with
 * one team; signal-like events travel as real signals through the team's inbox and the consumer, agent
 * events go through the same library call as `fed event`, and every observation is read back from disk.
 *
 * Signals get fresh UUIDs (a repeated id would be deduplicated, as it should), which `observe` maps back
 * to the samples' ids so the context can be compared with the model's.
 */
export function fileBackedSystemUnderTest(
  archetype: string,
): SystemUnderTest & { root: () => string; team: () => RegistryEntry } {
  let root: string | undefined;
  const sampleIdOf = new Map<string, string>();
  const team = () => getTeam(readRegistry(root!), 'team');

  const signal = async (event: SampleEvent, from: string, type: string, subject: string, body = '') => {
    const id = uuidv4();
    if (event.signalId) sampleIdOf.set(id, event.signalId);
    await sendSignal(
      openFederation(root!),
      { to: 'team', from, type, subject, body, id },
      { durable: false, now: () => new Date(event.at!) },
    );
    await new TeamInboxConsumer(openFederation(root!), team(), { durable: false }).consume();
  };
  const agentEvent = (event: SampleEvent) =>
    applyLifecycleInputs(openFederation(root!), team(), [{ source: 'event', event }], { durable: false });

  return {
    root: () => root!,
    team,
    async start() {
      root = realpathSync(mkdtempSync(join(tmpdir(), 'fed-model-')));
      initFederation(root, {}, {});
      await onboardTeam(
        openFederation(root),
        { domain: 'team', archetypeId: archetype },
        { durable: false, now: () => new Date(ONBOARDED_AT) },
      );
      await onboardTeam(openFederation(root), { domain: 'peer' }, { durable: false });
    },
    async send(raw) {
      const event = raw as SampleEvent;
      const state = (await loadTeamLifecycle(team(), openFederation(root!).backend.lifecycles)).snapshot.value;
      const paused = state === 'paused';
      switch (event.type) {
        case 'MISSION_ASSIGNED':
          return signal(event, 'meta', 'directive', event.subject!, event.body);
        // While paused, the consumer holds signals back until resume; the agent can still record them.
        case 'DIRECTIVE_RECEIVED':
          return paused ? void (await agentEvent(event)) : signal(event, 'peer', 'directive', event.subject!);
        // A consultant waiting for the asker's reply takes their next signal as that reply (FEEDBACK_RECEIVED).
        case 'QUESTION_RECEIVED':
          return paused || state === 'waiting-for-feedback'
            ? void (await agentEvent(event))
            : signal(event, 'meta', 'question', event.subject!);
        case 'FEEDBACK_RECEIVED':
          return signal(event, 'meta', 'report', event.subject!);
        case 'RETIRE':
          return paused ? void (await agentEvent(event)) : signal(event, 'meta', 'directive', 'retire');
        case 'PAUSE':
          return signal(event, 'meta', 'directive', 'pause');
        case 'RESUME':
          return signal(event, 'meta', 'directive', 'resume');
        default:
          await agentEvent(event);
      }
    },
    async observe(): Promise<ObservedState> {
      // Read back from disk every time: the state is what a restarted process would restore.
      const snapshot = (await loadTeamLifecycle(team(), openFederation(root!).backend.lifecycles)).snapshot;
      const context = JSON.parse(JSON.stringify(snapshot.context), (_key, value: unknown) =>
        typeof value === 'string' && sampleIdOf.has(value) ? sampleIdOf.get(value) : value,
      ) as unknown;
      return { value: snapshot.value, status: snapshot.status, context };
    },
    stop() {
      if (root) rmSync(root, { recursive: true, force: true });
      root = undefined;
      sampleIdOf.clear();
    },
  };
}
