import type { FederationConfig } from '../schema/config.js';
import { startMetricsExport, type MetricsExport } from '../telemetry/metrics-export.js';
import type { CliIo } from './io.js';

/**
 * The CLI's metrics export. A MeterProvider is global to the process, so this is too: the first command
 * that loads a federation config with telemetry enabled starts it (commands that load no config — init,
 * machines export, schema — never do), and main.ts stops it once, after the command, with a bounded
 * flush. A collector that cannot be reached costs one warning, never the command.
 */
let active: MetricsExport | undefined;

export function startCliTelemetry(config: FederationConfig, io: CliIo): void {
  if (active !== undefined || !config.telemetry.enabled) return;
  let warned = false;
  const started = startMetricsExport({
    endpoint: config.telemetry.collector.endpoint,
    onExportFailure: (error) => {
      if (warned) return;
      warned = true;
      io.stderr(
        `warning: telemetry: metrics could not be sent to ${started.url} (${describeFailure(error)}); ` +
          'the command is not affected — run a collector there, or set FED_TELEMETRY_ENABLED=false\n',
      );
    },
  });
  active = started;
}

export async function stopCliTelemetry(): Promise<void> {
  const current = active;
  active = undefined;
  await current?.shutdown();
}

/** Node reports a refused connection to a name with several addresses as an AggregateError without a message. */
function describeFailure(error: Error): string {
  return error.message || (error as NodeJS.ErrnoException).code || error.name;
}
