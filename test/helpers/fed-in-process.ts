import { runCli } from 'fed/testing';
import type { FedResult } from './fed-cli.js';

/**
 * `fed <args> --root <root>` in-process (runCli of src/cli/program.ts), run in `root` with telemetry off:
 * its exit code and what it printed. Where runFed (fed-cli.ts) runs the built CLI as a user would, this
 * runs the sources in the test's own process, where a test can see what they do (fs-calls.ts).
 */
export async function fedInProcess(args: readonly string[], root: string): Promise<FedResult & { code: number }> {
  const out = { stdout: '', stderr: '' };
  const code = await runCli([...args, '--root', root], {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    terminal: (text) => void (out.stdout += text),
    env: { FED_TELEMETRY_ENABLED: 'false' },
    cwd: root,
    isTTY: false,
  });
  return { code, ...out };
}
