import type { IncomingHttpHeaders } from 'node:http';

/**
 * What a scripted model server answers the real agent CLIs with (anthropic.ts for Claude Code,
 * openai-responses.ts for Codex): plain data, one step per turn of the agent — "call tool X with Y",
 * "say this and stop", "refuse with this HTTP error", "hold the answer" (a turn in flight, to kill the
 * launcher in).
 */
export type ModelStep =
  | { say: string }
  /** A tool call; `namespace`: the group the tool is in, where the API has them (Codex's `mcp__fed`). */
  | { call: string; input: Record<string, unknown>; namespace?: string }
  | { fail: { status: number; headers?: Record<string, string>; body: unknown } }
  | { hold: true };

export interface ModelScript {
  steps: ModelStep[];
  /** The tokens every answer reports using (input, output). */
  usage: { input: number; output: number };
}

/** One turn of the agent as the server saw it: what the CLI sent, and the step it was answered with. */
export interface RecordedTurn {
  headers: IncomingHttpHeaders;
  model: string;
  /** The tools the CLI offered the model, by name. */
  tools: string[];
  /** The conversation so far, as the CLI sent it (a resumed session sends its earlier turns). */
  messages: unknown[];
  step: ModelStep;
}
