import type { FederationConfig } from '../core/schema/config.js';
import { collectorRecheckDue, recordCollectorOutcome } from '../infra/telemetry/collector-state.js';
import { otlpMetricsUrl, startMetricsExport, type MetricsExport } from '../infra/telemetry/metrics-export.js';
import type { CliIo } from './cli-io.js';
import { atCliExit } from './exit-tasks.js';

/**
 * The CLI's metrics export. A MeterProvider is global to the process, so this is too: the first command
 * that loads a federation config with telemetry enabled starts it (commands that load no config — init,
 * machines export, schema — never do), and main.ts stops it once, after the command, with a bounded
 * flush (see exit-tasks.ts). The SDK loads only when a metric is recorded. A collector that cannot be reached costs the
 * federation one warning — when it goes from reachable (or unknown) to unreachable — never the command; and
 * while it stays unreachable, only one command a minute tries it again (a refused export costs a command
 * most of a second), the others send nothing.
 */
let active: MetricsExport | undefined;

export function startCliTelemetry(root: string, config: FederationConfig, io: CliIo): void {
  if (active !== undefined || !config.telemetry.enabled) return;
  if (!collectorRecheckDue(root, otlpMetricsUrl(config.telemetry.collector.endpoint))) return;
  let warned = false;
  const started = startMetricsExport({
    endpoint: config.telemetry.collector.endpoint,
    onExport: (outcome) => {
      const { state, previous, changed } = recordCollectorOutcome(root, started.url, outcome);
      if (!changed || warned) return;
      if (!state.reachable) {
        warned = true;
        io.stderr(
          `warning: telemetry: metrics could not be sent to ${state.url} (${state.error}); the command is not affected — ` +
            'run a collector there, or set FED_TELEMETRY_ENABLED=false (this warning is shown again only after the collector was reachable)\n',
        );
      } else if (previous !== undefined) {
        io.stderr(`telemetry: metrics reach ${state.url} again\n`);
      }
    },
  });
  active = started;
  atCliExit(async () => {
    active = undefined;
    await started.shutdown();
  });
}
