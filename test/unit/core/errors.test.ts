import { describe, expect, it } from 'vitest';
import { UnknownTeamError } from '../../../src/core/errors.js';

describe('UnknownTeamError', () => {
  it('offers to onboard a name that could be a team, and only such a name', () => {
    const known = ['docs', 'api'];
    expect(new UnknownTeamError('web', known).message).toBe(
      'unknown team "web" (registered teams: docs, api); onboard it with: fed team onboard web',
    );
    expect(new UnknownTeamError('meta', known).message).toBe(
      '"meta" is the meta coordinator, not a team (registered teams: docs, api); name a team',
    );
    expect(new UnknownTeamError('../../etc', known).message).toBe(
      'unknown team "../../etc" (registered teams: docs, api); a team id is a slug of lowercase letters, digits and single hyphens',
    );
    expect(new UnknownTeamError('', []).message).toBe(
      'no team named: the name is empty (no team is registered yet); give a team id',
    );
  });
});
