import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed init: where a federation may be made', () => {
  async function federation(): Promise<{ root: string }> {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    return { root };
  }

  it("fed init in a team's workspace, or below it, is refused and creates nothing there", async () => {
    const fed = await federation();
    const workspace = join(fed.root, '.fed', 'teams', 'docs');
    const below = join(workspace, 'notes');
    mkdirSync(below);
    for (const [dir, where] of [
      [workspace, 'is the workspace'],
      [below, 'is inside the workspace'],
    ] as const) {
      const before = readdirSync(dir).sort();
      const result = await fedInProcess(['init'], dir);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `${dir} ${where} of team "docs" (${workspace}) of the federation at ${fed.root}: a federation there would be the team's agent's to change; run fed init in a folder outside it`,
      );
      expect(readdirSync(dir).sort()).toEqual(before);
    }
  });
});
