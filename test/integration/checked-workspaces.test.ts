import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Federation, initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { getTeam, readRegistry, workspacePaths } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * One Federation context checks a team's workspace once; each write re-checks the folder it writes into.
 * A workspace (or runtime folder) replaced by a link after the first check is refused before the write.
 */
async function checkedTeam() {
  const root = tempDir();
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
  const fed = openFederation(root);
  const team = getTeam(readRegistry(root), 'docs');
  fed.workspace(team);
  return { root, fed, team, paths: workspacePaths(team.location) };
}

/** Replace `dir` by a link to a copy of it outside the federation; returns the copy. */
function replaceWithLink(dir: string): string {
  const outside = join(tempDir('fed-outside-'), 'moved');
  cpSync(dir, outside, { recursive: true });
  renameSync(dir, `${dir}.old`);
  symlinkSync(outside, dir);
  return outside;
}

const exclusive = (fed: Federation, team: ReturnType<typeof getTeam>) =>
  fed.backend.lifecycles.exclusive(team, async () => 'entered', { durable: false });

describe('workspace checks within one Federation context', () => {
  it('the state folder replaced by a link after the first check: the lifecycle section is refused and nothing is written there', async () => {
    const { fed, team, paths } = await checkedTeam();
    await expect(exclusive(fed, team)).resolves.toBe('entered');
    mkdirSync(paths.state, { recursive: true });
    const outside = replaceWithLink(paths.state);
    const before = readdirSync(outside);
    await expect(exclusive(fed, team)).rejects.toMatchObject({ code: 'WORKSPACE_SYMLINK' });
    // Refused before the line is even looked at.
    await expect(
      fed.backend.lifecycles.appendJournal(team, [{ seq: 1 } as never], { durable: false }),
    ).rejects.toMatchObject({ code: 'WORKSPACE_SYMLINK' });
    expect(readdirSync(outside)).toEqual(before);
  });

  it('the whole workspace replaced by a link after the first check: a send to the team is refused', async () => {
    const { root, fed, team, paths } = await checkedTeam();
    await sendSignal(fed, { to: 'docs', type: 'directive', subject: 'first' }, { durable: false });
    const outside = replaceWithLink(team.location);
    await expect(
      sendSignal(fed, { to: 'docs', type: 'directive', subject: 'second' }, { durable: false }),
    ).rejects.toMatchObject({ code: 'WORKSPACE_SYMLINK' });
    expect(readdirSync(join(outside, '.fed', 'signals', 'inbox')).filter((f) => f.includes('second'))).toEqual([]);
    expect(paths.inbox.startsWith(root)).toBe(true);
  });

  it('a folder missing since the first check is checked again whole and made for the write', async () => {
    const { fed, team, paths } = await checkedTeam();
    rmSync(paths.state, { recursive: true, force: true });
    await expect(exclusive(fed, team)).resolves.toBe('entered');
    expect(readdirSync(paths.fedDir)).toContain('state');
  });

  it("meta's inbox or the delivery facts replaced by a link after a first write: the next send is refused", async () => {
    const { root, fed } = await checkedTeam();
    const report = (subject: string) =>
      sendSignal(fed, { from: 'docs', to: 'meta', type: 'report', subject }, { durable: false });
    await report('first');
    for (const folder of [workspacePaths(root).inbox, join(root, '.fed', 'delivery')]) {
      const outside = replaceWithLink(folder);
      const before = readdirSync(outside);
      await expect(report('second')).rejects.toMatchObject({ code: 'RUNTIME_FOLDER_SYMLINK' });
      expect(readdirSync(outside)).toEqual(before);
      rmSync(folder);
      renameSync(`${folder}.old`, folder);
    }
  });
});

/** A federation of `docs` and `api`, and a context that has checked no workspace yet. */
async function uncheckedTeams() {
  const root = tempDir();
  initFederation(root, {}, {});
  for (const domain of ['docs', 'api']) await onboardTeam(openFederation(root), { domain }, { durable: false });
  const registry = readRegistry(root);
  return {
    root,
    fed: openFederation(root),
    docs: workspacePaths(getTeam(registry, 'docs').location),
    api: workspacePaths(getTeam(registry, 'api').location),
  };
}

const directive = (fed: Federation, subject: string) =>
  sendSignal(fed, { to: 'docs', type: 'directive', subject }, { durable: false });

/** Signal files whose name carries `subject` (as a slug), in `box`. */
const named = (box: string, subject: string) => readdirSync(box).filter((f) => f.includes(subject));

// The first write of a context checks the workspace whole: a link on the way to the folder written, or
// among the team's runtime folders beside it, is refused before anything is written (a registry placing
// a team elsewhere: registry-location.test.ts).
describe("a context's first write into a team's workspace", () => {
  it('the inbox replaced by a link: the first send is refused and nothing is written through it', async () => {
    const { fed, docs } = await uncheckedTeams();
    const outside = replaceWithLink(docs.inbox);
    await expect(directive(fed, 'linked-inbox')).rejects.toMatchObject({ code: 'WORKSPACE_SYMLINK' });
    expect(named(outside, 'linked-inbox')).toEqual([]);
  });

  it("the workspace replaced by a link to another team's: the first send is refused, nothing reaches that team", async () => {
    const { root, fed, docs, api } = await uncheckedTeams();
    renameSync(docs.workspace, `${docs.workspace}.old`);
    symlinkSync(api.workspace, docs.workspace);
    await expect(directive(fed, 'borrowed-workspace')).rejects.toMatchObject({ code: 'WORKSPACE_SYMLINK' });
    expect(named(api.inbox, 'borrowed-workspace')).toEqual([]);
    expect(docs.inbox.startsWith(root)).toBe(true);
  });

  it('a runtime folder beside the inbox replaced by a link: the first send is refused, though the inbox is real', async () => {
    const { fed, docs } = await uncheckedTeams();
    mkdirSync(docs.state, { recursive: true });
    const outside = replaceWithLink(docs.state);
    const before = readdirSync(outside);
    await expect(directive(fed, 'beside-a-link')).rejects.toMatchObject({ code: 'WORKSPACE_SYMLINK' });
    expect(named(docs.inbox, 'beside-a-link')).toEqual([]);
    expect(readdirSync(outside)).toEqual(before);
  });
});
