import {
  createActor,
  type ActorRefLike,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type ExecutableActionObject,
  type InspectionEvent,
} from 'xstate';
import type { MachineEntry } from '../../../machines/catalog.js';
import { FedError } from '../../core/errors.js';
import { randomUuid } from '../../infra/crypto/random.js';
import type { RegistryEntry } from '../../core/schema/registry.js';

/**
 * A lifecycle moves by xstate's pure `transition(machine, snapshot, event)` (on a scope kept for a walk):
 * no actor is created, started and stopped per apply. What an actor did besides computing the next
 * snapshot is done here: the actions `transition` returns are executed in order, as an actor executes
 * them, and inspection is told about the apply as it would be about an actor's.
 */

/**
 * The persisted snapshot a lifecycle starts from: its initial state, entered at `at`. The actions of
 * entering it are not executed: the lifecycle is only written here, never run (an actor that is created
 * and not started does not execute them either); the lifecycle machines' entry actions are `assign`s,
 * which are applied to the snapshot itself.
 */
export function initialPersistedSnapshot(entry: MachineEntry, at: string): Record<string, unknown> {
  let scope = initialScopes.get(entry.machine);
  if (!scope) initialScopes.set(entry.machine, (scope = new TransitionScope(entry.machine)));
  const [snapshot] = scope.initial({ at });
  return entry.machine.getPersistedSnapshot(snapshot) as Record<string, unknown>;
}

/**
 * A scope per machine for its initial snapshots: xstate's `initialTransition` constructs an actor per
 * call, which computes the initial snapshot once more before the one asked for — half of starting a
 * lifecycle. A dashboard or a monitoring cycle over a thousand teams never applied starts a thousand.
 */
const initialScopes = new WeakMap<AnyStateMachine, TransitionScope>();

/**
 * xstate's pure `transition(machine, snapshot, event)` on one actor scope kept for many transitions. xstate
 * builds a scope per call, constructing an actor for it, which computes the machine's initial snapshot: two
 * thirds of a signal's transition when profiled (10 of 15 µs; 10 ms of an apply of 1 000 signals). A walk
 * moves one lifecycle through its inputs in order, as one actor would through its events, so one scope
 * serves them all. Like xstate's, the scope executes nothing (the actions are returned, see below); the
 * actor it names is never started. Unlike xstate's, its system is kept from one transition to the next:
 * that is safe because the lifecycle machines run only assigns and invoke nothing
 * (test/machines/catalog.test.ts holds it), so no child ever registers there. The scope copies the one
 * xstate builds, an internal of xstate: test/unit/actors/lifecycle-transition.test.ts fails when that changes.
 */
export class TransitionScope {
  private readonly scope: AnyActorScope;
  /** The actions of the transition being computed. */
  private actions: ExecutableActionObject[] = [];

  constructor(private readonly machine: AnyStateMachine) {
    const self = createActor(machine);
    this.scope = {
      self,
      id: '',
      sessionId: '',
      logger: () => {},
      defer: () => {},
      emit: () => {},
      stopChild: () => {},
      system: self.system,
      actionExecutor: (action) => void this.actions.push(action),
    };
  }

  /** The machine's initial snapshot for `input`, and the actions of entering it: what xstate's `initialTransition` returns. */
  initial(input: unknown): [AnyMachineSnapshot, ExecutableActionObject[]] {
    this.actions = [];
    const snapshot = this.machine.getInitialSnapshot(this.scope, input) as AnyMachineSnapshot;
    return [snapshot, this.actions];
  }

  /** The snapshot `event` leads `snapshot` to, and the actions to execute: what xstate's `transition` returns. */
  transition(snapshot: AnyMachineSnapshot, event: { type: string }): [AnyMachineSnapshot, ExecutableActionObject[]] {
    this.actions = [];
    const next = this.machine.transition(snapshot, event, this.scope) as AnyMachineSnapshot;
    return [next, this.actions];
  }
}

/**
 * The snapshot `event` leads `snapshot` to; the event is known to be accepted. The lifecycle machines'
 * actions are `assign`s (applied inside `transition`, so it returns none to execute); any other action —
 * a machine given one with `provide` — is executed right away, as an actor would. An action that throws is
 * a bug in the machine: the apply fails and nothing is saved (an actor would be left in its error state).
 * `scope`: the walk's (see TransitionScope); without it, one is made for this transition.
 */
export function takeTransition(
  entry: MachineEntry,
  team: RegistryEntry,
  snapshot: AnyMachineSnapshot,
  event: { type: string },
  inspection?: ApplyInspection,
  scope?: TransitionScope,
): AnyMachineSnapshot {
  inspection?.received(event);
  const next = computeTransition(entry, team, snapshot, event, inspection, scope);
  inspection?.reached(next, event);
  return next;
}

function computeTransition(
  entry: MachineEntry,
  team: RegistryEntry,
  snapshot: AnyMachineSnapshot,
  event: { type: string },
  inspection: ApplyInspection | undefined,
  scope: TransitionScope | undefined,
): AnyMachineSnapshot {
  try {
    const [next, actions] = (scope ?? new TransitionScope(entry.machine)).transition(snapshot, event);
    for (const action of actions) executeAction(action, inspection);
    return next;
  } catch (error) {
    throw new FedError(
      'LIFECYCLE_ERROR',
      `team "${team.domainId}": the ${entry.id} lifecycle failed while applying its inputs (${(error as Error)?.message ?? String(error)}); nothing was saved, the state file is unchanged`,
      { refusal: false },
    );
  }
}

function executeAction(action: ExecutableActionObject, inspection: ApplyInspection | undefined): void {
  inspection?.executing(action);
  action.exec?.(action.info, action.params);
}

/**
 * What xstate inspection (`--inspect`, `--inspect-log`) is told about one apply: the events an actor of
 * the team would report — the actor (named by the team), then for each event applied the event, the
 * actions executed and the snapshot reached. The actor reference it names stands for the apply: it has
 * the team's id, the machine and the current snapshot, which is all inspectors read of it.
 */
export class ApplyInspection {
  private readonly ref: ActorRefLike;
  private current: AnyMachineSnapshot;

  constructor(
    private readonly inspect: (event: InspectionEvent) => void,
    entry: MachineEntry,
    team: RegistryEntry,
    snapshot: AnyMachineSnapshot,
  ) {
    this.current = snapshot;
    const sessionId = randomUuid();
    const ref = {
      id: team.domainId,
      sessionId,
      logic: entry.machine,
      getSnapshot: () => this.current,
      send: () => {
        throw new Error(
          `team "${team.domainId}": its lifecycle is changed by applying inputs, not by sending events to the inspected apply`,
        );
      },
    };
    this.ref = ref;
    this.emit({ type: '@xstate.actor', actorRef: this.ref, rootId: sessionId });
  }

  received(event: { type: string }): void {
    this.emit({ type: '@xstate.event', actorRef: this.ref, rootId: this.ref.sessionId, sourceRef: undefined, event });
  }

  executing(action: ExecutableActionObject): void {
    this.emit({
      type: '@xstate.action',
      actorRef: this.ref,
      rootId: this.ref.sessionId,
      action: { type: action.type, params: action.params },
    });
  }

  reached(snapshot: AnyMachineSnapshot, event: { type: string }): void {
    this.current = snapshot;
    this.emit({ type: '@xstate.snapshot', actorRef: this.ref, rootId: this.ref.sessionId, snapshot, event });
  }

  private emit(event: InspectionEvent): void {
    this.inspect(event);
  }
}
