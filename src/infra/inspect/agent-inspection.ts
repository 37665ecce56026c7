import { closeSync, openSync, readSync } from 'node:fs';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { workspacePaths } from '../../core/layout.js';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { openInspectionLog, type InspectionLog, type InspectionRecord } from './inspection-log.js';

/**
 * Inspection across processes. A launched agent moves its lifecycle with `fed event`, in its own process,
 * where the launcher's `--inspect-log` cannot see the actor. So when the launch is inspected, it names a
 * relay file in the team's workspace (writable inside the sandbox too) in the agent's environment; every
 * `fed event` run there appends its inspection records to it, and the launcher forwards each new record
 * to its own log as it catches up — so the log shows every transition of the team, whoever applied it.
 */
export const AGENT_INSPECTION_ENV = 'FED_INSPECTION_FILE';

export function inspectionRelayPath(workspace: string): string {
  return join(workspacePaths(workspace).launch, 'inspection.jsonl');
}

/** The launcher's side: an emptied relay file, read on from where it was last read. */
export class InspectionRelay {
  private offset = 0;
  private pending = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(readonly file: string) {
    writeFileAtomic(file, '', { durable: false });
  }

  /** Records appended since the last call; a line still being written waits for the next. */
  read(): InspectionRecord[] {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return [];
    }
    try {
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, this.offset);
        if (n === 0) break;
        this.offset += n;
        this.pending += this.decoder.write(buffer.subarray(0, n));
      }
    } finally {
      closeSync(fd);
    }
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    return lines.flatMap((line) => {
      try {
        return line.trim() ? [JSON.parse(line) as InspectionRecord] : [];
      } catch {
        return [];
      }
    });
  }
}

/** The agent's side (`fed event`): the relay log its launcher named, if it is inspected. */
export function openAgentInspection(env: NodeJS.ProcessEnv): InspectionLog | undefined {
  const file = env[AGENT_INSPECTION_ENV];
  return file ? openInspectionLog(file) : undefined;
}
