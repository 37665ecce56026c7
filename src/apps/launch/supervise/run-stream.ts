import { closeSync, mkdirSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { openForAppend } from '../../../infra/fs/open-for-append.js';
import { emptyStats, type AgentPreset, type JsonEvent, type StreamStats } from '../presets/agent-preset.js';

/**
 * The agent's stdout as it arrives: copied raw to the run's transcript (and, for CLIs with plain text
 * output, to the agent log as well), split into lines, and read by the preset — JSON events or text —
 * into the run's stats (session id, turns, tokens, cost, the final verdict). `onUpdate` is called after
 * each line that changed something, so the launcher can record the session id and enforce limits at once.
 */
export class RunStream {
  readonly stats: StreamStats = emptyStats();
  /**
   * What could not be recorded (a full disk while the agent runs): the run goes on and is judged as usual
   * — an exception here would escape the stream's event handler and kill the launcher with its agent
   * unsupervised — and the launcher reports these as warnings.
   */
  readonly problems: string[] = [];
  private recording = true;
  private readonly transcript: number;
  private readonly textLog: number | undefined;
  private pending = '';
  private closed = false;
  /** Whether the agent wrote anything but whitespace to stdout (a CLI refusing to start writes nothing there). */
  spoke = false;
  /** When the agent last wrote to stdout (epoch ms; its start until it does): a CLI waiting in silence is read from it. */
  lastOutputAt = Date.now();
  /**
   * What the session this run resumes had cost before it, as fed counted it (its earlier runs, earlier
   * fix attempts): taken from a session total the CLI reports, so each run counts only what it added.
   */
  sessionCostBeforeUsd = 0;

  constructor(
    private readonly preset: AgentPreset,
    transcriptPath: string,
    agentLogPath: string,
    private readonly onUpdate: (stats: StreamStats) => void,
  ) {
    mkdirSync(dirname(transcriptPath), { recursive: true });
    this.transcript = openForAppend(transcriptPath);
    try {
      this.textLog = preset.stream === 'text' ? openForAppend(agentLogPath) : undefined;
    } catch (error) {
      closeSync(this.transcript);
      throw error;
    }
  }

  write(chunk: Buffer): void {
    if (this.recording) {
      try {
        writeSync(this.transcript, chunk);
        if (this.textLog !== undefined) writeSync(this.textLog, chunk);
      } catch (error) {
        this.recording = false;
        this.problems.push(
          `the agent's output could no longer be written to its transcript or log (${(error as Error).message}); the rest of this run is not recorded there`,
        );
      }
    }
    const text = chunk.toString('utf8');
    this.lastOutputAt = Date.now();
    this.spoke ||= text.trim() !== '';
    const lines = (this.pending + text).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) this.readLine(line);
  }

  /** The end of the output: a last line without a newline is still read. Closing twice is harmless. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.pending) this.readLine(this.pending);
    this.pending = '';
    closeSync(this.transcript);
    if (this.textLog !== undefined) closeSync(this.textLog);
  }

  private readLine(line: string): void {
    const before = JSON.stringify(this.stats);
    if (this.preset.stream === 'json') {
      const event = parseEvent(line);
      if (event) this.preset.onEvent?.(event, this.stats);
    } else this.preset.onText?.(line, this.stats);
    const { sessionCostUsd } = this.stats;
    // (Rounded only when something is taken off: a difference of floats carries their error, a total does not.)
    if (sessionCostUsd !== null)
      this.stats.costUsd =
        this.sessionCostBeforeUsd === 0
          ? sessionCostUsd
          : Math.max(0, Number((sessionCostUsd - this.sessionCostBeforeUsd).toFixed(12)));
    if (JSON.stringify(this.stats) === before) return;
    try {
      this.onUpdate(this.stats);
    } catch (error) {
      this.problems.push(`recording the run's progress failed: ${(error as Error).message}`);
    }
  }
}

/** One JSON event line; anything else (a banner, a warning a CLI printed to stdout) is only transcript. */
function parseEvent(line: string): JsonEvent | undefined {
  const text = line.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonEvent) : undefined;
  } catch {
    return undefined;
  }
}
