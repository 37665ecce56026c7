import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { EventObject } from 'xstate';
import { archetypes, readEnvelope, statusOf, workspacePaths } from 'fed/testing';
import { readWholeJournal } from '../helpers/lifecycle-checks.js';
import { fileBackedSystemUnderTest, ONBOARDED_AT } from '../model/file-backed-system.js';
import { lifecycleTestModel, pathName, serializeLifecycleState } from '../model/lifecycle-model.js';
import { samplesFor, scenariosFor } from '../model/lifecycle-samples.js';
import { runPath, type ObservedState } from '../model/path-runner.js';

/**
 * The machines' model paths, played against the real file-backed actor system: signals through inboxes
 * and the consumer, agent events through `fed event`'s library call, state read back from disk after
 * every step. Besides matching the model, the files must stay consistent with each other.
 */
for (const entry of archetypes.map((archetype) => archetype.lifecycle)) {
  const model = lifecycleTestModel(entry, samplesFor[entry.id]!);
  const paths = [
    ...model.getShortestPaths().map((path) => [pathName(path), path] as const),
    ...Object.entries(scenariosFor[entry.id]!).map(
      ([name, events]) =>
        [name, model.getPathsFromEvents([...events], { serializeState: serializeLifecycleState })[0]!] as const,
    ),
  ];
  const pathModel = {
    machine: entry.machine,
    eventTypes: entry.events,
    vertexOf: serializeLifecycleState,
    input: { at: ONBOARDED_AT },
  };

  describe(`${entry.id} lifecycle on the file-backed actor system`, () => {
    test.each(paths)('%s', async (_name, path) => {
      const sut = fileBackedSystemUnderTest(entry.id);
      await runPath(path, pathModel, sut, {
        afterStep: (observed: ObservedState, event: EventObject) => {
          const team = sut.team();
          const envelope = readEnvelope(team.location);
          if (event.type === 'xstate.init') return expect(envelope).toBeUndefined();
          // The journal has exactly the events the envelope counts; meta heard of every state change.
          expect(readWholeJournal(team.location).map((l) => l.seq)).toEqual(
            Array.from({ length: envelope!.seq }, (_, i) => i + 1),
          );
          // Registry status and lifecycle agree; a finished lifecycle leaves the registry as it was (a team
          // paused by hand that then failed stays paused until someone resumes or archives it).
          if (observed.status === 'active')
            expect(statusOf(team)).toBe(observed.value === 'paused' ? 'paused' : 'active');
          // Every signal the lifecycle took in is acknowledged.
          const inbox = workspacePaths(team.location).inbox;
          if (existsSync(inbox)) {
            const names = readdirSync(inbox);
            const unacked = names.filter((n) => n.endsWith('.json') && !names.includes(`${n}.ack`));
            expect(unacked).toEqual([]);
          }
        },
      });
    });
  });
}
