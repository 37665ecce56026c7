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
});
