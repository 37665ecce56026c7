import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { federationPaths } from 'fed/testing';
import { initFederation } from 'fed';
import {
  COLLECTOR_RECHECK_MS,
  collectorRecheckDue,
  readCollectorState,
  recordCollectorOutcome,
} from '../../../src/infra/telemetry/collector-state.js';
import { tempDir } from '../../helpers/temp-dir.js';

const URL_A = 'http://localhost:18888/v1/metrics';
const refused = { ok: false as const, error: Object.assign(new Error(''), { code: 'ECONNREFUSED' }) };
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 31, 12, 0, seconds));

describe('the collector state of a federation', () => {
  it('changes only when the collector does: one warning per outage, not one per command', () => {
    const root = tempDir();
    initFederation(root, {}, {});
    expect(collectorRecheckDue(root, URL_A, at(0))).toBe(true);

    const first = recordCollectorOutcome(root, URL_A, refused, at(0));
    expect(first).toMatchObject({
      changed: true,
      previous: undefined,
      state: { reachable: false, error: 'ECONNREFUSED', since: at(0).toISOString() },
    });
    expect(recordCollectorOutcome(root, URL_A, refused, at(5))).toMatchObject({
      changed: false,
      state: { since: at(0).toISOString(), checkedAt: at(5).toISOString() },
    });

    const back = recordCollectorOutcome(root, URL_A, { ok: true }, at(9));
    expect(back).toMatchObject({
      changed: true,
      previous: { reachable: false },
      state: { reachable: true, since: at(9).toISOString() },
    });
    expect(back.state).not.toHaveProperty('error');
    expect(readCollectorState(root)).toEqual(back.state);
  });

  it('leaves an unreachable collector alone for a minute, then tries it again; another URL is tried at once', () => {
    const root = tempDir();
    initFederation(root, {}, {});
    recordCollectorOutcome(root, URL_A, refused, at(0));
    expect(collectorRecheckDue(root, URL_A, new Date(at(0).getTime() + COLLECTOR_RECHECK_MS - 1))).toBe(false);
    expect(collectorRecheckDue(root, URL_A, new Date(at(0).getTime() + COLLECTOR_RECHECK_MS))).toBe(true);
    expect(collectorRecheckDue(root, 'http://collector:4318/v1/metrics', at(1))).toBe(true);
    // A first export to a new URL is a change, whatever the old URL's state was.
    expect(recordCollectorOutcome(root, 'http://collector:4318/v1/metrics', refused, at(2)).changed).toBe(true);
  });

  it('stores and reports the collector without the credentials its URL or the error may carry', () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const url = 'https://fed:s3cret@otel:4318/v1/metrics?api_key=k3y';
    const failed = { ok: false as const, error: new Error(`POST ${url} failed: 401`) };
    const { state } = recordCollectorOutcome(root, url, failed, at(0));
    expect(state).toMatchObject({
      url: 'https://fed:***@otel:4318/v1/metrics?api_key=***',
      error: 'POST https://fed:***@otel:4318/v1/metrics?api_key=*** failed: 401',
    });
    expect(readFileSync(federationPaths(root).collectorState, 'utf8')).not.toMatch(/s3cret|k3y/);
    // The record still answers for the endpoint it was made for.
    expect(collectorRecheckDue(root, url, at(1))).toBe(false);
    expect(recordCollectorOutcome(root, url, failed, at(2)).changed).toBe(false);
  });
});
