import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastLaunchStderr } from '../../../src/apps/launch/judge/agent-log-tail.js';
import { agentLogHeader } from '../../../src/core/schema/agent-log.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A launch's header block as fed launch writes it (agent-process.ts), then what the agent wrote. */
const launch = (at: string, command: string[], stderr: string) =>
  `\n${agentLogHeader(new Date(at))}\ncommand: ${JSON.stringify(command)}\ncwd: /w\npreset: claude\n\n${stderr}`;

describe("the agent's stderr of its last launch, from its log", () => {
  it('is what follows the last header block: not the header, whose command may quote anything', () => {
    const file = join(tempDir(), 'agent.log');
    writeFileSync(
      file,
      launch('2026-01-01T00:00:00Z', ['claude', '-p', 'old'], 'TypeError: an old problem\n') +
        launch('2026-01-02T00:00:00Z', ['claude', '-p', 'Fix the TypeError: in x.ts'], 'line one\n\nline two\n'),
    );
    expect(lastLaunchStderr(file)).toEqual(['line one', 'line two']);
  });

  it('leaves out what Node itself writes, and reads a log of an earlier release (the header line alone) or none', () => {
    const file = join(tempDir(), 'agent.log');
    writeFileSync(
      file,
      '=== fed launch 2026-01-02T00:00:00Z ===\nError: unrecognized flag --interrupt-budget=1\nTry --help for options\n(node:12) Warning: x\nrefused: no\n',
    );
    expect(lastLaunchStderr(file)).toEqual(['refused: no']);
    writeFileSync(file, 'no header at all\n');
    expect(lastLaunchStderr(file)).toEqual(['no header at all']);
    expect(lastLaunchStderr(join(tempDir(), 'never-launched.log'))).toEqual([]);
  });
});
