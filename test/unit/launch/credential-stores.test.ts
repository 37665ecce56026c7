import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hideMounts } from '../../../src/apps/launch/prepare/sandbox/credential-stores.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe("what a sandboxed agent cannot read: the user's credential stores and agent.denyRead (issue 80 item 3)", () => {
  it('each store that exists, a folder seen empty and a file that cannot be opened, a link hidden where it leads', () => {
    const home = tempDir();
    const elsewhere = tempDir();
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.netrc'), 'machine example.com\n');
    symlinkSync(elsewhere, join(home, '.aws'));
    mkdirSync(join(home, 'notes'));
    writeFileSync(join(home, 'notes', 'secret.txt'), 'secret\n');
    const root = tempDir();
    writeFileSync(join(root, '.env'), 'KEY=1\n');
    const hidden = hideMounts(root, { HOME: home }, ['~/notes/secret.txt', '.env', 'not-there']);
    expect(hidden.outsideRoot).toEqual([
      { kind: 'empty', path: join(home, '.ssh') },
      { kind: 'empty', path: elsewhere },
      { kind: 'unreadable', path: join(home, '.netrc') },
      { kind: 'unreadable', path: join(home, 'notes', 'secret.txt') },
    ]);
    expect(hidden.inRoot).toEqual([{ kind: 'unreadable', path: join(root, '.env') }]);
  });

  it('a store the user moved with XDG_CONFIG_HOME is hidden there too; no home, nothing of one', () => {
    const config = tempDir();
    mkdirSync(join(config, 'gh'));
    expect(hideMounts(tempDir(), { HOME: tempDir(), XDG_CONFIG_HOME: config }, []).outsideRoot).toEqual([
      { kind: 'empty', path: join(config, 'gh') },
    ]);
    expect(hideMounts(tempDir(), {}, ['~/.ssh'])).toEqual({ outsideRoot: [], inRoot: [] });
  });

  it('a store an environment variable moved out of the home is hidden where it names: a folder, a file, a list, the files of a folder', () => {
    const moved = tempDir();
    mkdirSync(join(moved, 'gnupg'));
    writeFileSync(join(moved, 'aws-credentials'), '[default]\n');
    writeFileSync(join(moved, 'kube-a'), 'a\n');
    writeFileSync(join(moved, 'kube-b'), 'b\n');
    mkdirSync(join(moved, 'codex'));
    writeFileSync(join(moved, 'codex', 'auth.json'), '{}\n');
    writeFileSync(join(moved, 'codex', 'config.toml'), '\n');
    const hidden = hideMounts(
      tempDir(),
      {
        GNUPGHOME: join(moved, 'gnupg'),
        AWS_SHARED_CREDENTIALS_FILE: join(moved, 'aws-credentials'),
        KUBECONFIG: `${join(moved, 'kube-a')}:relative/kube:${join(moved, 'kube-b')}`,
        CODEX_HOME: join(moved, 'codex'),
        DOCKER_CONFIG: join(moved, 'not-there'),
      },
      [],
    );
    expect(hidden.outsideRoot).toEqual([
      { kind: 'empty', path: join(moved, 'gnupg') },
      { kind: 'unreadable', path: join(moved, 'aws-credentials') },
      { kind: 'unreadable', path: join(moved, 'kube-a') },
      { kind: 'unreadable', path: join(moved, 'kube-b') },
      // Its auth alone: the rest of the folder is the CLI's config, which the agent may read.
      { kind: 'unreadable', path: join(moved, 'codex', 'auth.json') },
    ]);
  });
});
