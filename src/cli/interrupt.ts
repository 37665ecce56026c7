/**
 * An AbortController that Ctrl-C (SIGINT) and SIGTERM abort, for long-running commands (watchers,
 * daemons, launches): they stop in order — finish the cycle, stop their agent, release their leases —
 * instead of dying mid-write. `dispose()` removes the handlers again once the command is done.
 */
export class Interrupt extends AbortController {
  private readonly onSignal = () => this.abort();

  constructor() {
    super();
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  dispose(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
