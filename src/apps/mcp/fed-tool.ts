import type { McpServer } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import { inCallerTerms, sameTerms } from '../../core/caller-terms.js';
import { FedError, InvalidInputError } from '../../core/errors.js';
import { zodProblemText } from '../../core/schema/problems.js';

/**
 * What a tool is: its description for the agent, the zod object schema its arguments must fit (strict)
 * and, for a tool that answers JSON, the schema of that answer (listed as its outputSchema, the answer
 * sent as structuredContent beside its text).
 */
export interface FedToolSpec<TInput extends z.ZodObject> {
  description: string;
  input: TInput;
  output?: z.ZodObject;
}

/** A tool's answer: structured data (sent as JSON text), or text as it is. */
export type FedToolOutput = Record<string, unknown> | unknown[] | string;

export type FedToolHandler<TInput extends z.ZodObject> = (args: z.infer<TInput>) => Promise<FedToolOutput>;

interface Registered {
  input: z.ZodObject;
  /** Whether its answer has an outputSchema, and so is sent as structuredContent too. */
  typed: boolean;
  handler: (args: unknown) => Promise<FedToolOutput>;
}

interface ServerTools {
  tools: Map<string, Registered>;
  /** Tool calls under way, so that stopping the server can let them finish (and answer) first. */
  running: Set<Promise<unknown>>;
  /** Extra text items for the next result (news the agent should see, e.g. new signals). */
  notes?: () => string[];
}

const serverTools = new WeakMap<McpServer, ServerTools>();

/**
 * Register a tool whose arguments are validated by fed (its zod schema, with fed's messages) and whose
 * failures are tool results, never a crashed server: a FedError becomes `isError` with fed's message and
 * code, anything else its message. The schema is listed as the tool's input schema, so
 * the agent sees exactly what fed accepts.
 */
export function registerFedTool<TInput extends z.ZodObject>(
  server: McpServer,
  name: string,
  spec: FedToolSpec<TInput>,
  handler: FedToolHandler<TInput>,
): void {
  assertSchemaSaysAll(name, spec.input);
  // The SDK keeps the tool for tools/list; its callback is never called, since fed answers tools/call.
  const unused = async (): Promise<CallToolResult> => errorResult(new Error(`${name}: not served by fed`));
  server.registerTool(
    name,
    { description: spec.description, inputSchema: spec.input as z.ZodObject, outputSchema: spec.output },
    unused,
  );
  const state = toolsOf(server);
  if (state.tools.size === 0) answerToolCalls(server, state);
  state.tools.set(name, {
    input: spec.input,
    typed: spec.output !== undefined,
    handler: handler as Registered['handler'],
  });
}

/** Text items to add to every tool result from now on, when `notes` has any (called once per result). */
export function setResultNotes(server: McpServer, notes: () => string[]): void {
  toolsOf(server).notes = notes;
}

function toolsOf(server: McpServer): ServerTools {
  let state = serverTools.get(server);
  if (!state) serverTools.set(server, (state = { tools: new Map(), running: new Set() }));
  return state;
}

/**
 * The SDK's own tools/call handler (installed by the first registerTool, so this runs after it) validates
 * with the SDK's messages and has no error codes: fed answers tools/call itself, so bad input gets fed's
 * message naming what is accepted. The SDK still lists the tools with their schemas.
 */
function answerToolCalls(server: McpServer, state: ServerTools): void {
  server.server.setRequestHandler('tools/call', async (request) => {
    const { name } = request.params;
    // A tool that does not exist is a wrong request, not a tool's failure: the MCP revisions answer it -32602.
    if (!state.tools.has(name))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(name)}; tools: ${[...state.tools.keys()].join(', ')} (tools/list describes them)`,
      );
    const call = callTool(state, name, request.params.arguments);
    state.running.add(call);
    try {
      // Through the SDK's projection of a result for the revision the request is served under.
      return server.server.projectCallToolResult(withNotes(await call, state), undefined);
    } finally {
      state.running.delete(call);
    }
  });
}

/** Settles once the tool calls under way have (the ones that start meanwhile included). */
export async function toolCallsSettled(server: McpServer): Promise<void> {
  const running = serverTools.get(server)?.running;
  while (running && running.size > 0) await Promise.allSettled([...running]);
}

async function callTool(state: ServerTools, name: string, args: unknown): Promise<CallToolResult> {
  const tool = state.tools.get(name)!;
  try {
    const parsed = tool.input.safeParse(args ?? {}, { reportInput: true });
    if (!parsed.success)
      throw new InvalidInputError(
        `invalid arguments for ${name}: ${zodProblemText(parsed.error)}; ${name} accepts ${describeArguments(tool.input)}`,
      );
    const output = await tool.handler(parsed.data);
    if (typeof output === 'string') return { content: [{ type: 'text', text: output }] };
    // Typed for a client that reads it (its outputSchema), and as text for one that does not.
    const text = JSON.stringify(output, null, 2);
    if (!tool.typed || Array.isArray(output)) return { content: [{ type: 'text', text }] };
    return { content: [{ type: 'text', text }], structuredContent: output };
  } catch (error) {
    return errorResult(error, tool.input);
  }
}

/**
 * A failure as a tool result: fed's message and its stable code; an error without one (a bug) its message
 * only. The library's messages name the CLI's options (`--reply-to`); to a tool's caller they are said in
 * the tool's arguments (`replyTo`), and an option the tool does not take is not named (core/caller-terms.ts).
 */
function errorResult(error: unknown, input?: z.ZodObject): CallToolResult {
  const said = error instanceof Error ? error.message : String(error);
  const message = input ? inCallerTerms(said, sameTerms(Object.keys(input.shape))) : said;
  if (!(error instanceof FedError)) return { isError: true, content: [{ type: 'text', text: message }] };
  return {
    isError: true,
    content: [{ type: 'text', text: `${message} (${error.code})` }],
    _meta: { code: error.code },
  };
}

function withNotes(result: CallToolResult, state: ServerTools): CallToolResult {
  const notes = state.notes?.() ?? [];
  if (notes.length === 0) return result;
  return { ...result, content: [...result.content, ...notes.map((text) => ({ type: 'text' as const, text }))] };
}

/** The arguments a schema takes, for a refusal: `to, type, subject, body?` (optional ones marked). */
function describeArguments(input: z.ZodObject): string {
  const keys = Object.entries(input.shape).map(([key, field]) =>
    (field as z.ZodType).safeParse(undefined).success ? `${key}?` : key,
  );
  return keys.length ? `{${keys.join(', ')}} and nothing else` : 'no arguments';
}

/**
 * A tool's arguments are listed as the JSON Schema of its zod schema, which drops what JSON Schema cannot
 * say (a refine, a transform): a client would then send what the listed schema accepts and fed refuses. So
 * a schema with such a check is refused when the tool is registered, and every rule is written as one
 * JSON Schema has (a pattern, a length, an enum).
 */
function assertSchemaSaysAll(tool: string, input: z.ZodType): void {
  const unsaid = (schema: z.ZodType, path: string): string | undefined => {
    const def = schema._zod.def as unknown as Record<string, unknown> & {
      type: string;
      checks?: { _zod: { def: { check: string } } }[];
    };
    if (def.type === 'transform' || def.type === 'custom') return `${path} (a ${def.type})`;
    if (def.checks?.some((check) => check._zod.def.check === 'custom')) return `${path} (a refine)`;
    const inner = ['innerType', 'element', 'keyType', 'valueType', 'in', 'out'].flatMap((key) =>
      def[key] ? [[def[key], path] as const] : [],
    );
    const shape = Object.entries((def.shape ?? {}) as Record<string, z.ZodType>).map(
      ([key, field]) => [field, path ? `${path}.${key}` : key] as const,
    );
    const options = ((def.options ?? []) as z.ZodType[]).map((option) => [option, path] as const);
    for (const [child, at] of [...inner, ...shape, ...options]) {
      const found = unsaid(child as z.ZodType, at);
      if (found) return found;
    }
    return undefined;
  };
  const found = unsaid(input, '');
  if (found)
    throw new Error(
      `tool ${tool}: the argument ${found} has a check its listed JSON Schema cannot say; write it as a pattern, length or enum`,
    );
}
