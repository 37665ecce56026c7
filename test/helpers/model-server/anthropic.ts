import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ModelScript, ModelStep, RecordedTurn } from './script.js';

/**
 * A scripted Anthropic Messages API on a free localhost port, for the real Claude Code
 * (`ANTHROPIC_BASE_URL`): each of the agent's requests — a POST to /v1/messages that offers tools — gets
 * the script's next step as a streamed answer (message_start, a text or tool_use content block,
 * message_delta with the stop reason and usage, message_stop); once the script is done, every turn ends
 * with "done". A step can be an HTTP error with the provider's headers (429, 401), or a request held
 * open until the server closes. Every request is recorded, with its headers and messages, so a test can
 * say what the CLI sent (its session id, the earlier turns of a resumed session).
 */
export interface ScriptedAnthropic {
  url: string;
  turns: RecordedTurn[];
  close(): Promise<void>;
}

export async function scriptedAnthropic(script: ModelScript): Promise<ScriptedAnthropic> {
  const turns: RecordedTurn[] = [];
  const held = new Set<ServerResponse>();
  let next = 0;
  let messageIds = 0;
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      if (request.method === 'HEAD' || request.url?.startsWith('/api/hello')) return void response.end();
      if (request.method !== 'POST' || !request.url?.startsWith('/v1/messages')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        return void response.end(
          JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'not here' } }),
        );
      }
      const parsed = JSON.parse(body) as { model: string; tools?: { name: string }[]; messages: unknown[] };
      if (request.url.includes('count_tokens')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end(JSON.stringify({ input_tokens: script.usage.input }));
      }
      // A side request of the CLI (a title, a check) offers no tools: it is answered, not scripted.
      const agentTurn = (parsed.tools?.length ?? 0) > 0;
      const step: ModelStep = agentTurn ? (script.steps[next++] ?? { say: 'done' }) : { say: 'ok' };
      if (agentTurn)
        turns.push({
          headers: request.headers,
          model: parsed.model,
          tools: (parsed.tools ?? []).map((tool) => tool.name),
          messages: parsed.messages,
          step,
        });
      answer(response, step, parsed.model, `msg_${++messageIds}`, script.usage);
      if ('hold' in step) held.add(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
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

/** One step as the Messages API streams it (or its error, or nothing yet). */
function answer(
  response: ServerResponse,
  step: ModelStep,
  model: string,
  id: string,
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
  const event = (type: string, data: Record<string, unknown>) =>
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  if ('say' in step) {
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: step.say } });
  } else {
    event('content_block_start', {
      index: 0,
      content_block: { type: 'tool_use', id: `toolu_${id}`, name: step.call, input: {} },
    });
    event('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.input) },
    });
  }
  event('content_block_stop', { index: 0 });
  event('message_delta', {
    delta: { stop_reason: 'say' in step ? 'end_turn' : 'tool_use', stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  event('message_stop', {});
  response.end();
}
