import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFederation, RefusedError, UnknownTeamError } from 'fed';
import { writeRegistryStatus } from 'fed/testing';
import { resolveSignalWorkspace } from '../../../src/adapters/file/signals/resolve-workspace.js';
import { signalFederation } from '../../helpers/signal-federation.js';

describe('resolving where a party keeps its signals', () => {
  it("puts meta's boxes in the federation root and a team's in its registry location", async () => {
    const fed = await signalFederation(['docs']);
    expect(resolveSignalWorkspace(fed.root, 'meta')).toEqual({
      id: 'meta',
      workspace: fed.root,
      inbox: join(fed.root, '.fed', 'signals', 'inbox'),
      outbox: join(fed.root, '.fed', 'signals', 'outbox'),
      entry: undefined,
    });
    const docs = resolveSignalWorkspace(fed.root, 'docs');
    expect(docs.workspace).toBe(join(fed.root, '.fed', 'teams', 'docs'));
    expect(docs.inbox).toBe(join(docs.workspace, '.fed', 'signals', 'inbox'));
    expect(docs.entry?.domainId).toBe('docs');
  });

  it('refuses unknown teams naming the role, and archived teams unless only reading', async () => {
    const fed = await signalFederation(['docs']);
    expect(() => resolveSignalWorkspace(fed.root, 'ghost', { role: 'recipient (--to)' })).toThrow(UnknownTeamError);
    expect(() => resolveSignalWorkspace(fed.root, 'ghost', { role: 'recipient (--to)' })).toThrow(
      /^recipient \(--to\): unknown team "ghost"/,
    );
    await writeRegistryStatus(openFederation(fed.root), 'docs', { type: 'ARCHIVE' }, { durable: false });
    expect(() => resolveSignalWorkspace(fed.root, 'docs')).toThrow(RefusedError);
    expect(resolveSignalWorkspace(fed.root, 'docs', { allowArchived: true }).id).toBe('docs');
  });
});
