/**
 * How a program fed launches with no watchdog around it ends with its launcher (`import … from
 * 'fed/lifeline'`): the lifeline's descriptor and grace period in its environment, and the watchers that
 * end it — or its whole process group — when the launcher is gone (src/infra/process/lifeline.ts). An
 * entry of its own, with nothing else of fed: the built-in agent's executable loads it first, before it
 * sets V8's flags.
 */
export { LIFELINE_ENV, LIFELINE_GRACE_ENV, watchLifeline } from './infra/process/lifeline.js';
export { endGroupWithLauncher } from './infra/process/lifeline-worker.js';
