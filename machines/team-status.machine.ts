import { setup } from 'xstate';
import { z } from 'zod';
import { onFirstUse } from './on-first-use.js';

/**
 * A team's registry status (docs/design/spec.md §2.4, §3.2): `active` ⇄ `paused`, and `archived` once its work is done.
 * The spec leaves the transitions open; ours: PAUSE/RESUME toggle, ARCHIVE from either is final.
 */
export const TEAM_STATUS_MACHINE_ID = 'team-status';
export const TEAM_STATUS_MACHINE_VERSION = 1;

export const teamStatusEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('PAUSE') }),
  z.object({ type: z.literal('RESUME') }),
  z.object({ type: z.literal('ARCHIVE') }),
]);
export type TeamStatusEvent = z.infer<typeof teamStatusEventSchema>;

/** The machine, built on first use (on-first-use.ts). */
export const getTeamStatusMachine = onFirstUse(() =>
  setup({
    types: {
      events: {} as TeamStatusEvent,
    },
  }).createMachine({
    id: TEAM_STATUS_MACHINE_ID,
    initial: 'active',
    states: {
      active: {
        description: 'Currently working',
        on: { PAUSE: 'paused', ARCHIVE: 'archived' },
      },
      paused: {
        description: 'Manually paused',
        on: { RESUME: 'active', ARCHIVE: 'archived' },
      },
      archived: {
        description: 'Work complete, no longer active',
        type: 'final',
      },
    },
  }),
);

export type TeamStatusMachine = ReturnType<typeof getTeamStatusMachine>;
