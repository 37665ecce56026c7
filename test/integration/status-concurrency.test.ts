import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam } from '../../src/index.js';
import { readRegistry } from '../../src/adapters/file/registry-file.js';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { openFederation } from '../../src/engine/context.js';

const RACERS = 4;

describe('concurrent identical status changes (issue 19 item 7)', () => {
  for (const archetype of ['deliverable', 'research']) {
    it(`${RACERS} processes running "fed team pause" at once: one wins, the others exit 2 (${archetype} team)`, async () => {
      const root = tempDir();
      initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
      await onboardTeam(openFederation(root), { domain: 'docs', archetypeId: archetype }, { durable: false });
      const results = await Promise.all(
        Array.from({ length: RACERS }, () => runFed(['--root', root, 'team', 'pause', 'docs'])),
      );
      const winners = results.filter((r) => r.code === 0);
      expect(
        winners.map((r) => r.stdout),
        JSON.stringify(results),
      ).toEqual(['docs: active → paused\n']);
      for (const loser of results.filter((r) => r.code !== 0)) {
        expect(loser.code, loser.stderr).toBe(2);
        expect(loser.stderr).toContain('cannot pause team "docs": it is paused');
      }
      expect(readRegistry(root).teams[0]?.status).toBe('paused');
    }, 60_000);
  }
});
