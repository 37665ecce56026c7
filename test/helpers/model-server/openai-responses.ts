import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelScript, ModelStep, RecordedTurn } from './script.js';

/**
 * A scripted OpenAI Responses API on a free localhost port, for the real Codex (a model provider in a
 * temporary CODEX_HOME whose `base_url` is this server's, `wire_api = "responses"`): each POST to
 * /v1/responses gets the script's next step as a streamed response (response.created, an output item — a
 * message or a function call — added and done, response.completed with usage); once the script is done,
 * every turn ends with "done". A step can be an HTTP error with the provider's headers, or a request held
 * open until the server closes. Every request is recorded, with its headers and input.
 */
export interface ScriptedResponses {
  url: string;
  turns: RecordedTurn[];
  close(): Promise<void>;
}

export async function scriptedResponses(script: ModelScript): Promise<ScriptedResponses> {
  const turns: RecordedTurn[] = [];
  const held = new Set<ServerResponse>();
  let next = 0;
  let ids = 0;
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      if (request.method !== 'POST' || !request.url?.startsWith('/v1/responses')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        return void response.end(JSON.stringify({ error: { message: 'not here', type: 'invalid_request_error' } }));
      }
      const parsed = JSON.parse(body) as { model: string; tools?: { name?: string; type: string }[]; input: unknown[] };
      const step: ModelStep = script.steps[next++] ?? { say: 'done' };
      turns.push({
        headers: request.headers,
        model: parsed.model,
        tools: (parsed.tools ?? []).map((tool) => tool.name ?? tool.type),
        messages: parsed.input,
        step,
      });
      answer(response, step, parsed.model, ++ids, script.usage);
      if ('hold' in step) held.add(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    turns,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => resolve(body));
  });
}

/** One step as the Responses API streams it (or its error, or nothing yet). */
function answer(
  response: ServerResponse,
  step: ModelStep,
  model: string,
  id: number,
  usage: { input: number; output: number },
): void {
  if ('hold' in step) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    return;
  }
  if ('fail' in step) {
    response.writeHead(step.fail.status, { 'content-type': 'application/json', ...step.fail.headers });
    response.end(JSON.stringify(step.fail.body));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  const base = { id: `resp_${id}`, object: 'response', model, status: 'in_progress', output: [] };
  event('response.created', { response: base });
  const item =
    'say' in step
      ? {
          id: `msg_${id}`,
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: step.say, annotations: [] }],
        }
      : {
          id: `fc_${id}`,
          type: 'function_call',
          status: 'completed',
          call_id: `call_${id}`,
          name: step.call,
          ...(step.namespace !== undefined && { namespace: step.namespace }),
          arguments: JSON.stringify(step.input),
        };
  event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
  if ('say' in step)
    event('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: step.say });
  event('response.output_item.done', { output_index: 0, item });
  event('response.completed', {
    response: {
      ...base,
      status: 'completed',
      output: [item],
      usage: {
        input_tokens: usage.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.output,
      },
    },
  });
  response.end();
}
