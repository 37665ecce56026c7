import type { FederationConfig } from '../core/schema/config.js';
import {
  collectorRecheckDue,
  describeExportError,
  recordCollectorOutcome,
} from '../infra/telemetry/collector-state.js';
import { otlpMetricsUrl, startMetricsExport, type MetricsExport } from '../infra/telemetry/metrics-export.js';
import { startTraceExport } from '../infra/telemetry/trace-export.js';
import { redactUrl } from '../core/redact-url.js';
import type { CliIo } from './cli-io.js';
import { atCliExit } from './exit-tasks.js';

/**
 * The CLI's metrics and trace export. A MeterProvider and a TracerProvider are global to the process, so
 * this is too: the first command that loads a federation config with telemetry enabled starts it
 * (commands that load no config — init, machines export, schema — never do), and main.ts stops it once,
 * after the command, with a bounded flush (see exit-tasks.ts). Each SDK loads only when a metric is
 * recorded or a span started. A collector that cannot be reached costs the federation one warning — when
 * it goes from reachable (or unknown) to unreachable — never the command; and while it stays unreachable,
 * only one command a minute tries it again (a refused export costs a command most of a second), the
 * others send nothing. The collector's state is the metrics' (a collector without a traces pipeline would
 * refuse spans and still be reachable); a refused span export costs one warning of its own, unless the
 * command already warned.
 */
let active: MetricsExport | undefined;

export function startCliTelemetry(root: string, config: FederationConfig, io: CliIo): void {
  if (active !== undefined || !config.telemetry.enabled) return;
  const { endpoint } = config.telemetry.collector;
  if (!collectorRecheckDue(root, otlpMetricsUrl(endpoint))) return;
  let warned = false;
  const started = startMetricsExport({
    endpoint,
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
  const traces = startTraceExport({
    endpoint,
    onExport: (outcome) => {
      if (outcome.ok || warned) return;
      warned = true;
      io.stderr(
        `warning: telemetry: spans could not be sent to ${redactUrl(traces.url)} (${describeExportError(outcome.error)}); the command is not affected\n`,
      );
    },
  });
  active = started;
  atCliExit(async () => {
    active = undefined;
    await Promise.all([started.shutdown(), traces.shutdown()]);
  });
}
