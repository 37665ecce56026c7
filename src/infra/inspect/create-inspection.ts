import type { InspectionEvent } from 'xstate';
import { openInspectionLog, type InspectionRecord } from './inspection-log.js';
import { startStatelyInspector, type StatelyInspector } from './stately-inspector.js';

/**
 * The one call a command that runs actors makes for `--inspect` / `--inspect-log <file>`:
 *
 *   const inspection = await createInspection({ inspect: options.inspect, logFile: options.inspectLog });
 *   if (inspection.url) io.stderr(`inspect at ${inspection.url}\n`);
 *   try { createActor(machine, { inspect: inspection.inspect }) … } finally { await inspection.stop(); }
 *
 * With neither option, `inspect` is undefined and stop() does nothing, so commands need no branches.
 */
export interface InspectionOptions {
  /** Serve the Stately inspector (see stately-inspector.ts); its page URL is returned. */
  inspect?: boolean;
  /** Append xstate inspection events to this file as JSON lines. */
  logFile?: string;
  /** Port for the inspector page (default: any free port). */
  port?: number;
}

export interface Inspection {
  /** Pass as xstate's `inspect` option; undefined when nothing is inspected. */
  inspect?: (event: InspectionEvent) => void;
  /** Records of actors in other processes (a launched agent's `fed event`), for the log; undefined without one. */
  record?: (record: InspectionRecord) => void;
  /** The inspector page to open in a browser, with `inspect: true`. */
  url?: string;
  /** Stop serving, flush and close the log. Safe to call twice; the process never waits on inspection. */
  stop(): Promise<void>;
}

export async function createInspection(options: InspectionOptions): Promise<Inspection> {
  const sinks: ((event: InspectionEvent) => void)[] = [];
  const log = options.logFile
    ? openInspectionLog(
        options.logFile,
        undefined,
        'give the path of a file to append to (fed creates it when it is missing)',
      )
    : undefined;
  if (log) sinks.push(log.observe);
  let stately: StatelyInspector | undefined;
  try {
    stately = options.inspect ? await startStatelyInspector({ port: options.port }) : undefined;
  } catch (error) {
    log?.close();
    throw error;
  }
  if (stately) sinks.push(stately.inspect);
  return {
    inspect: sinks.length ? (event) => sinks.forEach((sink) => sink(event)) : undefined,
    record: log?.append,
    url: stately?.url,
    async stop() {
      try {
        await stately?.stop();
      } finally {
        log?.close();
      }
    },
  };
}
