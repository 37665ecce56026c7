import type { CliIo } from './cli-io.js';
import { stdoutStream } from './stdout.js';
import { escapeControls } from '../core/terminal-text.js';

/**
 * Lines redrawn in place on a terminal, one per key (`fed run`: one per team): redrawn on every update
 * and once a second, so times in state tick. Each line is cut to the terminal's width, so the cursor
 * moves back over exactly the lines drawn.
 */
export class LiveLines<T> {
  private readonly items = new Map<string, T>();
  private drawn = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly io: CliIo,
    private readonly describe: (item: T, now: number) => string,
    private readonly width: number = stdoutStream().columns || 120,
    refreshMs = 1000,
  ) {
    this.timer = setInterval(() => this.draw(), refreshMs);
    this.timer.unref();
  }

  update(key: string, item: T): void {
    this.items.set(key, item);
    this.draw();
  }

  /** Draw a last time and stop ticking; later output goes below the lines. */
  stop(): void {
    clearInterval(this.timer);
    this.draw();
  }

  private draw(): void {
    const now = Date.now();
    // Escaped, then cut: the lines are written with fed's cursor moves as they are (CliIo.terminal).
    const lines = [...this.items.values()].map((item) =>
      escapeControls(this.describe(item, now).replace(/\n/g, ' ')).slice(0, Math.max(1, this.width - 1)),
    );
    const up = this.drawn > 0 ? `\x1b[${this.drawn}A` : '';
    this.io.terminal(up + lines.map((line) => `\r\x1b[2K${line}\n`).join(''));
    this.drawn = lines.length;
  }
}
