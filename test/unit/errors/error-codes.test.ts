import { describe, expect, it } from 'vitest';
import type { FedErrorCode } from '../../../src/core/error-codes.js';
import { FedError, FileSystemError, RefusedError } from 'fed';

// The `@ts-expect-error` lines are the test: `npm run typecheck` (tsc over test/) fails if one of them
// compiles, i.e. if an unknown code stopped being an error.
describe('error codes', () => {
  it('accepts the codes fed throws', () => {
    const refused = new RefusedError('TEAM_ELSEWHERE', 'the team works on another machine');
    const code: FedErrorCode = refused.code;
    expect(code).toBe('TEAM_ELSEWHERE');
    expect(new FileSystemError('ENOSPC', '/x', 'the disk is full', false, undefined).code).toBe('FS_ENOSPC');
  });

  it('refuses an unknown code at compile time', () => {
    // @ts-expect-error — not a code fed throws (a typo of TEAM_ELSEWHERE)
    const typo = new RefusedError('TEAM_ELSWHERE', 'x');
    // @ts-expect-error — FedError takes the same closed list
    const unknown = new FedError('SOMETHING_ELSE', 'x');
    // @ts-expect-error — only the errnos fs-errors explains become FS_ codes
    const errno = new FileSystemError('ECONNREFUSED', undefined, 'x', false, undefined);
    // @ts-expect-error — a comparison with an unknown code is flagged too
    const compared = typo.code === 'TEAM_ELSWHERE';
    expect([unknown.code, errno.code, compared]).toEqual(['SOMETHING_ELSE', 'FS_ECONNREFUSED', true]);
  });
});
