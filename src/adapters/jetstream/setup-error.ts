import { BackendUnavailableError } from '../../core/errors.js';

/**
 * The NATS server answered, and refused what the federation's settings ask of it: credentials it rejects,
 * TLS it does not speak, more copies than it can keep. The settings are the problem, not the server being
 * down: `problem` says what, naming the setting, and `fix` how to change it — `fed doctor`'s finding; the
 * message says both (exit 2).
 */
export class JetStreamSetupError extends BackendUnavailableError {
  readonly problem: string;
  readonly fix: string;

  constructor(servers: readonly string[], problem: string, fix: string, cause: unknown) {
    super(servers, `${problem}; ${fix}`, cause);
    this.problem = problem;
    this.fix = fix;
  }
}
