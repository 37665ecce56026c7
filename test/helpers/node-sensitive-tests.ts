/**
 * The tests `npm run test:node -- <major> --core` runs on another Node line (CI: 22, 24 and 26, after the
 * whole suite on the machine's Node): each where a Node line changes what fed does — V8 and its flags,
 * the bundles and their code caches, processes and signals, the sandbox, filesystem errors, the servers.
 * Everything else is fed's own logic on the same JavaScript, which the whole suite covers on the floor
 * (`npm test`); `npm run test:node -- 26` without `--core` runs the whole suite on a line. The whole suite
 * on every line would take CI past its half hour (about 16 minutes a line on two cores).
 */
export const NODE_SENSITIVE_TESTS: Record<string, string> = {
  'test/e2e/demo.test.ts': 'the demo end to end, the built-in agent healthy in the report',
  'packages/fed-agent/test/e2e/agent-v8-flags.test.ts': "the V8 flags fed-agent's tiering passes exist in this V8",
  'packages/fed-agent/test/e2e/fed-agent.test.ts': 'the built-in agent: its start, its usage errors, its output',
  'test/integration/builtin-agent-lifeline.test.ts': "fed-agent's lifeline worker, started before V8's flags change",
  'test/integration/monitor-last-launch.test.ts': "an agent log Node writes to is read as the agent's",
  'test/e2e/cli-startup.test.ts': 'the CLI bundle through its V8 code cache',
  'test/e2e/launcher-tiering.test.ts': "the launcher's V8 flags set before its bundle is compiled, its cache accepted",
  'test/integration/launch-sandbox.test.ts': 'bubblewrap started from child_process, the sandbox held',
  'test/integration/hostile-agent.test.ts': "an agent's escapes refused, told from each Node's error shapes",
  'test/e2e/filesystem-errors.test.ts': "the filesystem's errors as this Node gives them",
  'test/integration/crash-campaign.test.ts': 'SIGKILLs of the built CLI across commands: the guarantees hold',
  'test/e2e/mcp-agent.test.ts': "fed's MCP server over stdio, as an agent starts it",
  'test/e2e/ui-young-generation.test.ts':
    'fed ui run again in its own process (process.execve) with a small young generation',
};
