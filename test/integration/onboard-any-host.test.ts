import { describe, expect, it } from 'vitest';
import { initFederation } from 'fed';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed team onboard --any-host', () => {
  it('on a federation whose registry is in files: onboarded, with a warning that one host serves it', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const result = await fedInProcess(['team', 'onboard', 'docs', '--any-host'], root);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'warning: --any-host: this federation keeps its registry in files, where one host serves every team, so the team runs here',
    );
  });
});
