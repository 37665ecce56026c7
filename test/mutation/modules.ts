/**
 * The modules `npm run mutate` measures — those whose failure loses data or lets an agent out — each with
 * the source it mutates and the tests that run that source in their own process (the tests that reach a
 * mutant: the e2e suite runs the built CLI, which no mutant of the source reaches).
 */
export interface MutationModule {
  /** What it is, for the report. */
  title: string;
  mutate: string[];
  tests: string[];
}

export const MUTATION_MODULES: Record<string, MutationModule> = {
  fs: {
    title: 'the filesystem layer (src/infra/fs): atomic writes, locks, bounded reads',
    mutate: ['src/infra/fs/**/*.ts'],
    tests: ['test/unit/fs/**/*.test.ts', 'test/integration/lock.test.ts', 'test/integration/no-follow-links.test.ts'],
  },
  registry: {
    title: 'the registry store (the file adapter and the optimistic update)',
    mutate: [
      'src/adapters/file/registry-file.ts',
      'src/adapters/file/registry-validation.ts',
      'src/adapters/file/registry-copy.ts',
      'src/engine/registry/update-registry.ts',
    ],
    // Not the contention and stall tests, nor the conformance suite's concurrent writers: their writers are
    // processes of the built CLI, which no mutant reaches, and each mutant would wait on them for nothing.
    tests: [
      'test/unit/registry/**/*.test.ts',
      'test/integration/registry.test.ts',
      'test/integration/registry-location.test.ts',
      'test/integration/event-registry-validations.test.ts',
    ],
  },
  actors: {
    title: 'the team actors: consume, walk, transition',
    mutate: [
      'src/engine/actors/consume-inbox.ts',
      'src/engine/actors/lifecycle-walk.ts',
      'src/engine/actors/lifecycle-transition.ts',
    ],
    tests: [
      'test/unit/actors/**/*.test.ts',
      'test/integration/actors.test.ts',
      'test/integration/actors-hardening.test.ts',
      'test/integration/actors-bounded-state.test.ts',
      'test/integration/ack-owed-effects.test.ts',
      'test/integration/actors-consume-edges.test.ts',
      'test/integration/actors-consume-passes.test.ts',
      'test/conformance/file.conformance.test.ts',
    ],
  },
  broker: {
    title: "the launcher's broker and its wire protocol",
    mutate: [
      'src/apps/launch/supervise/agent-broker.ts',
      'src/infra/process/broker-protocol.ts',
      'src/core/schema/broker-request.ts',
    ],
    tests: [
      'test/integration/agent-broker.test.ts',
      'test/unit/launch/agent-commands.test.ts',
      'test/unit/process/broker-protocol.test.ts',
    ],
  },
  sandbox: {
    title: "the sandbox plan (bubblewrap's arguments)",
    mutate: ['src/apps/launch/prepare/sandbox/sandbox.ts'],
    tests: [
      'test/unit/launch/find-bubblewrap.test.ts',
      'test/unit/launch/sandbox-plan.test.ts',
      'test/integration/launch-sandbox.test.ts',
      'test/integration/hostile-agent.test.ts',
      'test/integration/hostile-agent-federation.test.ts',
    ],
  },
  deliverable: {
    title: 'the deliverable check',
    mutate: [
      'src/engine/deliverable/check-deliverable.ts',
      'src/engine/deliverable/documentation-rules.ts',
      'src/engine/deliverable/markdown-limits.ts',
      'src/engine/deliverable/analyse-markdown.ts',
      'src/engine/deliverable/markdown-facts.ts',
      'src/engine/deliverable/diagram-types.ts',
      'src/engine/deliverable/codebase-guard.ts',
    ],
    tests: [
      'test/unit/deliverable/**/*.test.ts',
      'test/unit/telemetry/deliverable-metrics.test.ts',
      // The built-in agent's documents and the skills' examples, checked in process: a check that refuses
      // a good document fails them.
      'packages/fed-agent/test/unit/run-agent.test.ts',
      'packages/fed-agent/test/unit/render-markdown.test.ts',
      'test/unit/skills.test.ts',
    ],
  },
};
