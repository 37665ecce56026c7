import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openFederation } from 'fed';
import type { HostDirectory } from 'fed/testing';
import { Placement } from '../../../src/apps/serve/placement.js';
import { signalFederation } from '../../helpers/signal-federation.js';

/**
 * Placement.arriving: a team placed on this host whose workspace this server has yet to make (moved here
 * a moment ago) is arriving, not lost — its actor's "workspace does not exist; archive the team" would be
 * a false alarm. A team that lived here (its workspace made or found by this server) whose workspace then
 * goes missing is not.
 */
async function placementOn(host: string, { shared = true } = {}) {
  const { root } = await signalFederation(['docs']);
  const env = { FED_TELEMETRY_ENABLED: 'false' };
  const files = openFederation(root, { env });
  // A backend with a host directory, as a federation shared across machines has (only its presence counts here).
  const fed = shared ? openFederation(root, { env, backend: { ...files.backend, hosts: {} as HostDirectory } }) : files;
  const entry = await fed.team('docs');
  return {
    placement: new Placement(
      fed,
      host,
      () => undefined,
      () => undefined,
    ),
    entry,
  };
}

describe('Placement.arriving', () => {
  it('is a team placed here and not made here yet; once made, a missing workspace is a loss to tell', async () => {
    const { placement, entry } = await placementOn('beta');
    const here = { ...entry, host: 'beta' };
    expect(placement.arriving(here)).toBe(true);
    expect(await placement.serves(here)).toBe(true);
    expect(placement.arriving(here)).toBe(false);
    rmSync(here.location, { recursive: true, force: true });
    expect(placement.arriving(here)).toBe(false);
  });

  it('is never a team placed elsewhere, one the registry puts where this server would not make it, or on files', async () => {
    const { placement, entry } = await placementOn('beta');
    expect(placement.arriving({ ...entry, host: 'alpha' })).toBe(false);
    expect(placement.arriving({ ...entry, host: 'beta', location: `${entry.location}-copy` })).toBe(false);
    expect(placement.arriving({ ...entry, host: undefined })).toBe(false);
    const onFiles = await placementOn('beta', { shared: false });
    expect(onFiles.placement.arriving({ ...onFiles.entry, host: 'beta' })).toBe(false);
  });
});
