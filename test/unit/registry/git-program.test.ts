import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, gitAsync, GitCommandError } from '../../../src/engine/registry/git.js';
import { tempDir } from '../../helpers/temp-dir.js';

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

describe('the git fed runs outside the sandbox (issue 48)', () => {
  it('is never one a sandboxed agent could have planted first on PATH, in a .fed folder', () => {
    // A team's own home, which its sandboxed agent writes: a `git` there would run as the user, unsandboxed.
    const bin = join(tempDir(), '.fed', 'teams', 'docs', '.fed', 'home', '.local', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'git'), `#!/bin/sh\ntouch '${bin}/ran'\necho planted\n`);
    chmodSync(join(bin, 'git'), 0o755);
    process.env.PATH = `${bin}:${PATH}`;
    expect(git(tempDir(), ['--version'])).toMatch(/^git version /);
    expect(existsSync(join(bin, 'ran'))).toBe(false);
    // With nothing else on PATH, git is missing, and the one left out is named.
    process.env.PATH = bin;
    expect(() => git(tempDir(), ['--version'])).toThrow(
      `git is not installed or not on PATH (left out: ${join(bin, 'git')} — a sandboxed agent can write there, so fed never runs it)`,
    );
  });
});

describe('git run beside the event loop (gitAsync)', () => {
  it('answers as the synchronous git does: its output, its failure with what git said', async () => {
    const dir = tempDir();
    expect(await gitAsync(dir, ['--version'])).toBe(git(dir, ['--version']));
    const failure: unknown = await gitAsync(dir, ['rev-parse', '--show-toplevel']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitCommandError);
    expect((failure as GitCommandError).stderr).toMatch(/not a git repository/);
  });

  it('gives git no input: a command that reads it gets its end at once, as with the synchronous git', async () => {
    // The hash of empty input: a git left waiting on an open stdin would never answer.
    expect(await gitAsync(tempDir(), ['hash-object', '--stdin'])).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
  });
});
