import { describe, expect, it } from 'vitest';
import { teamWarningLines } from '../../../src/cli/commands/run.js';

describe('fed run: the teams warnings', () => {
  it('says a warning every launch had once, naming the teams, and keeps the others apart', () => {
    const missing = 'bubblewrap (bwrap) is not installed (apt-get install bubblewrap): …';
    expect(
      teamWarningLines([
        { team: 'docs', warnings: [missing] },
        { team: 'api', warnings: [missing, 'its hook failed'] },
        { team: 'web', warnings: [missing, missing] },
      ]),
    ).toEqual([`warning: docs, api, web: ${missing}\n`, 'warning: api: its hook failed\n']);
  });
});
