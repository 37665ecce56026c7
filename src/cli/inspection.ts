import { createInspection, type Inspection } from '../infra/inspect/create-inspection.js';
import type { CliIo } from './cli-io.js';

/** `--inspect` / `--inspect-log <file>` of the commands that run actors: set up, and the page URL told. */
export async function openInspection(
  options: { inspect?: boolean; inspectLog?: string },
  io: CliIo,
): Promise<Inspection> {
  const inspection = await createInspection({ inspect: options.inspect, logFile: options.inspectLog });
  if (inspection.url) io.stderr(`inspector: open ${inspection.url}\n`);
  return inspection;
}
