import { initialTransition, transition } from 'xstate';
import { launchMachine, type LaunchEvent, type LaunchPhase } from '../../../machines/launch.machine.js';
import { RefusedError } from '../../core/errors.js';

/**
 * Where a launch is in its sequence (machines/launch.machine.ts), moved by xstate's pure transition at
 * each step of launchTeam and told to `onPhase`. A step the sequence does not allow where the launch is
 * would be a bug in the launcher: it is thrown loudly.
 */
export class LaunchPhases {
  private snapshot = initialTransition(launchMachine)[0];

  constructor(private readonly onPhase?: (phase: LaunchPhase, event: LaunchEvent) => void) {}

  get phase(): LaunchPhase {
    return this.snapshot.value;
  }

  step(event: LaunchEvent): void {
    if (!this.snapshot.can(event)) throw new Error(`a launch that is ${this.phase} cannot take ${event.type}`);
    // The launch machine's actions are assigns, applied to the snapshot: there is nothing else to execute.
    [this.snapshot] = transition(launchMachine, this.snapshot, event);
    this.onPhase?.(this.phase, event);
  }

  /** A refusal before the agent started ends the launch as refused; any other error leaves the sequence where it was. */
  ended(error: unknown): void {
    if (!(error instanceof RefusedError)) return;
    const refused: LaunchEvent = { type: 'REFUSED', code: error.code };
    if (this.snapshot.can(refused)) this.step(refused);
  }
}
