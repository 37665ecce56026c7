import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { FIXTURES_DIR } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { signalFederation } from '../helpers/signal-federation.js';
import { closedPort, otlpReceiver, type OtlpExportRequest } from '../helpers/otlp-receiver.js';

interface OtlpPoint {
  attributes?: { key: string; value: { stringValue?: string } }[];
  asDouble?: number;
  asInt?: string;
}
interface OtlpMetric {
  name: string;
  sum?: { dataPoints: OtlpPoint[] };
  gauge?: { dataPoints: OtlpPoint[] };
  histogram?: { dataPoints: OtlpPoint[] };
}
interface OtlpRequest {
  resourceMetrics: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeMetrics: { scope: { name: string }; metrics: OtlpMetric[] }[];
  }[];
}

/** The metrics exports among what a collector received (a launch sends its spans to /v1/traces too). */
const metricExports = (requests: readonly OtlpExportRequest[]) =>
  requests.filter((r) => r.path === '/v1/metrics').map((r) => r.body as OtlpRequest);

/** Every data point exported, as `name {attr=value,…}`. */
function points(requests: readonly OtlpExportRequest[]): string[] {
  return metricExports(requests).flatMap((body) =>
    body.resourceMetrics.flatMap((rm) =>
      rm.scopeMetrics.flatMap((sm) =>
        sm.metrics.flatMap((metric) =>
          (metric.sum ?? metric.gauge ?? metric.histogram)!.dataPoints.map(
            (p) => `${metric.name} {${(p.attributes ?? []).map((a) => `${a.key}=${a.value.stringValue}`).join(',')}}`,
          ),
        ),
      ),
    ),
  );
}

const enabled = (url: string) => ({ FED_TELEMETRY_ENABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: url });

describe('telemetry export (OTLP/HTTP)', () => {
  it('a real fed launch sends its metrics to the collector, and so do the fed events its agent runs', async () => {
    const collector = await otlpReceiver();
    const { root } = await federationWithMission();
    const result = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('complete')], {
      env: enabled(collector.url),
    });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(result.stderr).not.toContain('telemetry');

    expect(metricExports(collector.requests).length).toBeGreaterThan(0);
    for (const request of collector.requests) {
      expect(request.contentType).toBe('application/json');
      expect(['/v1/metrics', '/v1/traces']).toContain(request.path);
    }
    const resource = metricExports(collector.requests)[0]!.resourceMetrics[0]!.resource.attributes;
    expect(resource).toContainEqual({ key: 'service.name', value: { stringValue: 'fed' } });
    const exported = points(collector.requests);
    expect(exported).toEqual(
      expect.arrayContaining([
        'fed.signals.received {team=docs,type=directive,outcome=applied}',
        'fed.signals.acknowledged {team=docs,type=directive}',
        'fed.lifecycle.transitions {team=docs,archetype=deliverable,from=preparing,to=scanning}',
        'fed.lifecycle.transitions {team=docs,archetype=deliverable,from=aggregating,to=complete}',
        'fed.signals.sent {team=docs,type=report}',
      ]),
    );
    expect(exported.join('\n')).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|\.json/);
  });

  it('sends nothing when disabled by FED_TELEMETRY_ENABLED=false or by telemetry.enabled, and uses the configured endpoint otherwise', async () => {
    const collector = await otlpReceiver();
    const { root } = await signalFederation(['docs']);
    const send = (env: NodeJS.ProcessEnv) =>
      runFed(['--root', root, 'signal', 'send', '--to', 'docs', '--type', 'question', '--subject', 'Scope?'], { env });

    expect((await send({ FED_TELEMETRY_ENABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url })).code).toBe(0);
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ telemetry: { enabled: false, collector: { endpoint: collector.url } } }),
    );
    expect((await send({ FED_TELEMETRY_ENABLED: undefined, OTEL_EXPORTER_OTLP_ENDPOINT: undefined })).code).toBe(0);
    expect(collector.requests).toEqual([]);

    // The same send with telemetry on, through the endpoint of the config file alone, does arrive.
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ telemetry: { enabled: true, collector: { endpoint: collector.url } } }),
    );
    expect((await send({ FED_TELEMETRY_ENABLED: undefined, OTEL_EXPORTER_OTLP_ENDPOINT: undefined })).code).toBe(0);
    expect(points(collector.requests)).toEqual(['fed.signals.sent {team=meta,type=question}']);
  });

  it('fed init records telemetry on where a collector answers, off with how to turn it on where none does: then nothing warns', async () => {
    const collector = await otlpReceiver();
    const withCollector = tempDir();
    const asUser = (url: string) => ({ FED_TELEMETRY_ENABLED: undefined, OTEL_EXPORTER_OTLP_ENDPOINT: url });
    const on = await runFed(['--root', withCollector, 'init'], { env: asUser(collector.url) });
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toContain(`telemetry: on (a collector answers at ${collector.url}/v1/metrics)`);
    expect(JSON.parse(readFileSync(join(withCollector, 'federate.config.json'), 'utf8'))).toEqual({
      telemetry: { enabled: true },
    });

    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const without = tempDir();
    const off = await runFed(['--root', without, 'init'], { env: asUser(nowhere) });
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain(
      `telemetry: off (no collector answers at ${nowhere}/v1/metrics); to turn it on, run one there and set "telemetry": { "enabled": true } in federate.config.json`,
    );
    expect(JSON.parse(readFileSync(join(without, 'federate.config.json'), 'utf8'))).toEqual({
      telemetry: { enabled: false },
    });
    const later = await runFed(['--root', without, 'team', 'list'], { env: asUser(nowhere) });
    expect(later).toMatchObject({ code: 0, stderr: '' });
    // Re-run, the config is kept as it is and nothing is probed.
    const again = await runFed(['--root', without, 'init'], { env: asUser(collector.url) });
    expect(again.stdout).not.toContain('telemetry:');
    expect(collector.requests.filter((r) => r.path === '/v1/metrics')).toHaveLength(1);
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT wins over telemetry.collector.endpoint', async () => {
    const collector = await otlpReceiver();
    const { root } = await signalFederation(['docs']);
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ telemetry: { collector: { endpoint: `http://127.0.0.1:${await closedPort()}` } } }),
    );
    const result = await runFed(['--root', root, 'team', 'pause', 'docs'], { env: enabled(collector.url) });
    expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(points(collector.requests)).toEqual(
      expect.arrayContaining(['fed.lifecycle.transitions {team=docs,archetype=deliverable,from=preparing,to=paused}']),
    );
  });

  it('an unreachable collector costs one warning and at most a moment: the command still succeeds', async () => {
    const { root } = await signalFederation(['docs']);
    const port = await closedPort();
    const started = Date.now();
    const result = await runFed(
      ['--root', root, 'signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Go'],
      {
        env: enabled(`http://127.0.0.1:${port}`),
      },
    );
    const elapsed = Date.now() - started;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('directive-go.json');
    const warnings = result.stderr.split('\n').filter(Boolean);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^warning: telemetry: metrics could not be sent to http://127.0.0.1:${port}/v1/metrics \\(connect ECONNREFUSED`,
      ),
    );
    // Bounded by fed's export timeout (under a second), well below the exporter's own 10 s default.
    expect(elapsed).toBeLessThan(8_000);
  });

  it('names an unreachable collector without the credentials in its URL: in the warning, the record and fed monitor', async () => {
    const { root } = await signalFederation(['docs']);
    const port = await closedPort();
    const env = enabled(`http://fed:s3cret@127.0.0.1:${port}/?access_token=t0k`);
    const result = await runFed(
      ['--root', root, 'signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Go'],
      { env },
    );
    expect(result.code).toBe(0);
    const redacted = `http://fed:***@127.0.0.1:${port}/v1/metrics?access_token=***`;
    expect(result.stderr).toContain(`warning: telemetry: metrics could not be sent to ${redacted} (`);
    const monitor = await runFed(['--root', root, 'monitor'], { env });
    expect(monitor.stdout).toContain(`telemetry: ${redacted}: unreachable`);
    const record = readFileSync(join(root, '.fed', 'telemetry-collector.json'), 'utf8');
    expect(JSON.parse(record)).toMatchObject({ url: redacted, reachable: false });
    for (const text of [result.stderr, monitor.stdout, record]) expect(text).not.toMatch(/s3cret|t0k/);
  });

  it('warns once per federation while the collector stays down, retries it a minute later, and says when it is back', async () => {
    const { root } = await signalFederation(['docs']);
    const port = await closedPort();
    const env = enabled(`http://127.0.0.1:${port}`);
    const send = (subject: string) =>
      runFed(['--root', root, 'signal', 'send', '--to', 'docs', '--type', 'report', '--subject', subject], { env });
    const monitor = async () =>
      (
        JSON.parse((await runFed(['--root', root, 'monitor', '--json'], { env })).stdout) as {
          telemetry: Record<string, unknown>;
        }
      ).telemetry;

    const stateFile = join(root, '.fed', 'telemetry-collector.json');
    expect(existsSync(stateFile)).toBe(false);
    const first = await send('One');
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(
      /^warning: telemetry: metrics could not be sent to .*shown again only after the collector was reachable/,
    );
    const second = await send('Two');
    expect(second).toMatchObject({ code: 0, stderr: '' });
    expect(await monitor()).toMatchObject({
      enabled: true,
      url: `http://127.0.0.1:${port}/v1/metrics`,
      collector: 'unreachable',
      error: expect.stringContaining('ECONNREFUSED'),
    });

    // A minute later (the record says so) the collector is up again: the next command sends, and says so once.
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { checkedAt: string };
    writeFileSync(stateFile, JSON.stringify({ ...state, checkedAt: new Date(Date.now() - 61_000).toISOString() }));
    const collector = await otlpReceiver(port);
    const third = await send('Three');
    expect(third).toMatchObject({
      code: 0,
      stderr: `telemetry: metrics reach http://127.0.0.1:${port}/v1/metrics again\n`,
    });
    expect(points(collector.requests)).toContain('fed.signals.sent {team=meta,type=report}');
    expect((await send('Four')).stderr).toBe('');
    expect(await monitor()).toMatchObject({ collector: 'reachable' });
  });

  it('fed deliverable check records the deliverable metrics of the team whose workspace holds the file (docs/design/spec.md §6)', async () => {
    const collector = await otlpReceiver();
    const { root, team } = await signalFederation(['docs']);
    const file = join(team('docs').workspace, 'deliverable.md');
    copyFileSync(join(FIXTURES_DIR, 'deliverables', 'good.md'), file);
    const result = await runFed(['--root', root, 'deliverable', 'check', file], { env: enabled(collector.url) });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(points(collector.requests).sort()).toEqual([
      'deliverable.code_examples {team=docs}',
      'deliverable.sections {team=docs}',
      'deliverable.size_bytes {team=docs}',
    ]);
  });
});
