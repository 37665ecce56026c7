/**
 * Transitions every team lifecycle shares (FAIL, PAUSE, RESUME and recorded signals), written once so the
 * lifecycle machines cannot drift apart. They refer to actions and guards by name; each machine's `setup`
 * spreads `lifecycleActions()` and `lifecycleGuards()` (lifecycle-setup.ts), which implement them.
 */

/** What a working state accepts besides its own progress events. */
export function whileWorking<TWorkState extends string>(state: TWorkState) {
  return {
    FAIL: { target: 'failed', actions: { type: 'recordFailure', params: { state } } },
    PAUSE: { target: 'paused', actions: { type: 'recordPause', params: { state } } },
    DIRECTIVE_RECEIVED: { actions: 'recordDirective' },
    QUESTION_RECEIVED: { actions: 'recordQuestion' },
  } as const;
}

/**
 * What `paused` accepts: RESUME back to exactly the state recorded in `pausedFrom` (one guarded
 * transition per working state, so diagrams and @xstate/graph paths show every way back), FAIL, and
 * recorded signals. PAUSE is not accepted: pausing twice would lose where the team was.
 */
export function whilePaused<TWorkState extends string>(workStates: readonly TWorkState[]) {
  return {
    RESUME: workStates.map((state) => ({ guard: { type: 'wasPausedIn', params: { state } }, target: state }) as const),
    FAIL: { target: 'failed', actions: { type: 'recordFailure', params: { state: 'paused' } } },
    DIRECTIVE_RECEIVED: { actions: 'recordDirective' },
    QUESTION_RECEIVED: { actions: 'recordQuestion' },
  } as const;
}
