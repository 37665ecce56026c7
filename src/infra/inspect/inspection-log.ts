import { appendFileSync, closeSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openForAppend } from '../fs/open-for-append.js';
import type { AnyTransitionDefinition, InspectionEvent } from 'xstate';
import { safeJsonLine } from './safe-json.js';

/**
 * `--inspect-log <file>`: xstate inspection events as JSON lines, offline (no browser, no network). The
 * file is append-only, so runs accumulate. Records keep what a reader needs — which actor, which event,
 * the state and context after it, the transitions and actions taken — not xstate's internal objects.
 */
export interface InspectionRecord {
  /** When the event was observed (wall clock; inspection is a side effect, not machine logic). */
  at: string;
  type: string;
  actorId: string | undefined;
  sessionId: string;
  rootId: string;
  [detail: string]: unknown;
}

export function inspectionRecord(event: InspectionEvent, at: string): InspectionRecord {
  const base = {
    at,
    type: event.type,
    actorId: (event.actorRef as { id?: string }).id,
    sessionId: event.actorRef.sessionId,
    rootId: event.rootId,
  };
  switch (event.type) {
    case '@xstate.event':
      return { ...base, sourceId: event.sourceRef?.sessionId, event: event.event };
    case '@xstate.snapshot':
    case '@xstate.transition':
      return { ...base, event: event.event, snapshot: snapshotData(event.snapshot) };
    case '@xstate.microstep':
      return {
        ...base,
        event: event.event,
        value: snapshotData(event.snapshot).value,
        transitions: event._transitions.map(transitionData),
      };
    case '@xstate.action':
      return { ...base, action: event.action };
    case '@xstate.actor':
      return base;
  }
}

function snapshotData(snapshot: unknown): {
  status?: unknown;
  value?: unknown;
  context?: unknown;
  output?: unknown;
  error?: unknown;
} {
  const { status, value, context, output, error } = snapshot as Record<string, unknown>;
  return { status, value, context, output, error };
}

function transitionData(transition: AnyTransitionDefinition) {
  return {
    event: transition.eventType,
    source: transition.source.id,
    targets: transition.target?.map((node) => node.id) ?? [],
  };
}

export interface InspectionLog {
  file: string;
  observe(event: InspectionEvent): void;
  /** Append a record observed elsewhere (another process's actor: the agent's `fed event`). */
  append(record: InspectionRecord): void;
  /** Close the file; throws if a record could not be written (writing never disturbs the actors). */
  close(): void;
}

/**
 * `fix`: how to fix a path that is not a file to append to, for one a person chose (`--inspect-log`): what
 * is there is theirs; by default (a relay log fed names) it is to be removed.
 */
export function openInspectionLog(file: string, now: () => Date = () => new Date(), fix?: string): InspectionLog {
  mkdirSync(dirname(file), { recursive: true });
  const fd = openForAppend(file, fix);
  let failure: Error | undefined;
  let closed = false;
  const write = (record: () => InspectionRecord) => {
    // An exception here would surface inside the actor that is being inspected; keep the first one for close().
    if (closed || failure) return;
    try {
      appendFileSync(fd, safeJsonLine(record()));
    } catch (error) {
      failure = error as Error;
    }
  };
  return {
    file,
    observe: (event) => write(() => inspectionRecord(event, now().toISOString())),
    append: (record) => write(() => record),
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
      if (failure) throw new Error(`the inspection log ${file} is incomplete: ${failure.message}`, { cause: failure });
    },
  };
}
