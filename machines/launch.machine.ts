import { assertEvent, assign, setup } from 'xstate';
import { z } from 'zod';

/**
 * The sequence of one `fed launch` (src/apps/launch/launch-team.ts), as a pure machine: the launcher
 * moves it at each step, so a step out of order is a bug caught where it happens, and the model-based
 * tests (test/model/launch-model.test.ts) walk its paths against real launches.
 *
 * refusing   — checking what refuses a launch: the team's status, a run in progress (its lease), a
 *              lifecycle over, paused, waiting or without a mission;
 * preparing  — launch files, prompt, agent command (a built-in agent that cannot do the work, or a
 *              command that cannot be started, still refuses), sandbox or codebase baseline; a CLI
 *              account under a rate limit another team met is judged at once (paused until its reset),
 *              without starting the agent;
 * running    — the agent runs, supervised: the inbox consumed, its stream read, limits enforced;
 * stopping   — the launcher stops it (the team paused, a timeout or limit, an interruption);
 * judging    — it has exited: what the run means for the team (complete, waiting, paused, failed);
 * recording  — the run recorded and the hooks told; then `recorded`, or `refused` before any agent ran.
 */
export const LAUNCH_MACHINE_ID = 'launch';

export const LAUNCH_OUTCOMES = ['complete', 'waiting', 'paused', 'failed'] as const;
export type LaunchOutcome = (typeof LAUNCH_OUTCOMES)[number];

export const launchEventSchema = z.discriminatedUnion('type', [
  /** A check or the preparation refused the launch, with the refusal's code. */
  z.strictObject({ type: z.literal('REFUSED'), code: z.string() }),
  /** Nothing refuses it: the team has work to do. */
  z.strictObject({ type: z.literal('CHECKED') }),
  z.strictObject({ type: z.literal('AGENT_STARTED') }),
  z.strictObject({
    type: z.literal('STOP'),
    reason: z.enum(['paused', 'interrupted', 'fenced', 'timeout', 'limit', 'hopeless']),
  }),
  z.strictObject({ type: z.literal('AGENT_EXITED') }),
  z.strictObject({ type: z.literal('JUDGED'), outcome: z.enum(LAUNCH_OUTCOMES) }),
  z.strictObject({ type: z.literal('RECORDED') }),
]);
export type LaunchEvent = z.infer<typeof launchEventSchema>;

export interface LaunchMachineContext {
  /** The code of the refusal, once refused. */
  refusal: string | null;
  /** Why the launcher stopped the agent, when it did. */
  stop: Extract<LaunchEvent, { type: 'STOP' }>['reason'] | null;
  outcome: LaunchOutcome | null;
}

export type LaunchPhase =
  'refusing' | 'preparing' | 'running' | 'stopping' | 'judging' | 'recording' | 'recorded' | 'refused';

export const launchMachine = setup({
  types: {
    context: {} as LaunchMachineContext,
    events: {} as LaunchEvent,
  },
  actions: {
    recordRefusal: assign(({ event }) => {
      assertEvent(event, 'REFUSED');
      return { refusal: event.code };
    }),
    recordStop: assign(({ event }) => {
      assertEvent(event, 'STOP');
      return { stop: event.reason };
    }),
    recordOutcome: assign(({ event }) => {
      assertEvent(event, 'JUDGED');
      return { outcome: event.outcome };
    }),
  },
}).createMachine({
  id: LAUNCH_MACHINE_ID,
  context: { refusal: null, stop: null, outcome: null },
  initial: 'refusing',
  states: {
    refusing: {
      description: 'Checking what refuses a launch: status, lease, lifecycle over, paused, waiting, no mission',
      on: {
        CHECKED: 'preparing',
        REFUSED: { target: 'refused', actions: 'recordRefusal' },
      },
    },
    preparing: {
      description:
        "Launch files, prompt, agent command, sandbox or baseline; the agent is started — or, while its CLI account's rate limit lasts, the team is paused without it",
      on: {
        AGENT_STARTED: 'running',
        JUDGED: { target: 'recording', actions: 'recordOutcome' },
        REFUSED: { target: 'refused', actions: 'recordRefusal' },
      },
    },
    running: {
      description: 'The agent runs, supervised: inbox consumed, stream read, limits enforced',
      on: {
        STOP: { target: 'stopping', actions: 'recordStop' },
        AGENT_EXITED: 'judging',
      },
    },
    stopping: {
      description: 'The launcher stops the agent: paused team, timeout, limit, interruption or fencing',
      on: { AGENT_EXITED: 'judging' },
    },
    judging: {
      description: 'What the ended run means for the team, and who is told',
      on: { JUDGED: { target: 'recording', actions: 'recordOutcome' } },
    },
    recording: {
      description: 'The run recorded, the hooks told',
      on: { RECORDED: 'recorded' },
    },
    recorded: { description: 'The launch is over, with its outcome', type: 'final' },
    refused: { description: 'The launch was refused before any agent ran', type: 'final' },
  },
});
