import type { z } from 'zod';
import { FedError, RefusedError } from '../../core/errors.js';
import { splitCommand } from '../../core/split-command.js';
import { agentPollResultSchema, agentPostResultSchema, chatMessageSchema } from '../../core/schema/chat.js';
import { DEFAULT_CHAT_TIMEOUT_SECONDS, type FederationConfig } from '../../core/schema/config.js';
import { zodProblemText } from '../../core/schema/problems.js';
import { chatHostProblem } from './bridge-config.js';
import { CHAT_POLL_LIMIT, type ChatChannel, type ChatPoll } from './chat-channel.js';
import { ChatAgentError, runAgentSession } from './run-agent-session.js';

/** Where the prompt goes in `chatConfig.command`; without it the prompt is appended as the last argument. */
export const PROMPT_PLACEHOLDER = '{prompt}';
/** The line of every prompt that states the request as JSON, for scripted hosts and wrappers. */
export const REQUEST_LINE_PREFIX = 'fed-chat-request: ';

export interface AgentHostChannelOptions {
  root: string;
  config: FederationConfig;
  /** Environment of the sessions (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Stops a running session, e.g. when the command is interrupted. */
  signal?: AbortSignal;
}

type ChatRequest =
  | { op: 'post'; teamId: string; channelId: string; text: string }
  | { op: 'poll'; teamId: string; channelId: string; since: string };

/**
 * The chat channel through an agent host (docs/design/spec.md §5): every post or poll is one headless session of
 * `chatConfig.command` (default `agentCommand`) asked, in its prompt, to use its own chat tool on
 * `chatConfig.teamId` / `channelId` — the host handles authentication, fed holds no SDK and no keys. The
 * session runs in the federation root, bounded by `chatConfig.timeoutSeconds`, and answers with one JSON
 * line among whatever else it prints: `{"posted": true}` after a post, `{"messages": [...]}` after a poll.
 */
export class AgentHostChatChannel implements ChatChannel {
  readonly description: string;
  private readonly command: string[];
  private readonly what: string;
  private readonly chat: NonNullable<FederationConfig['chatConfig']>;
  private readonly options: AgentHostChannelOptions;

  constructor(options: AgentHostChannelOptions) {
    const chat = options.config.chatConfig;
    if (!chat)
      throw new FedError(
        'NO_CHAT_CONFIG',
        'the agent-host chat channel needs chatConfig (teamId, channelId) in federate.config.json',
      );
    const noHost = chatHostProblem(options.config);
    if (noHost) throw new RefusedError('NO_CHAT_AGENT', noHost.message);
    this.chat = chat;
    this.what = chat.command ? 'chatConfig.command' : 'agentCommand';
    this.command = splitCommand(chat.command ?? options.config.agentCommand, this.what);
    this.options = options;
    this.description = `channel ${chat.channelId} through the agent host "${this.command[0]}"`;
  }

  async post(text: string): Promise<void> {
    const output = await this.session({ op: 'post', teamId: this.chat.teamId, channelId: this.chat.channelId, text });
    const result = lastJsonLine(output, agentPostResultSchema);
    if (!result)
      throw new ChatAgentError(
        `the chat agent (${this.what}) did not confirm the post with a {"posted": true} line${tail(output)}`,
      );
    if (!result.posted)
      throw new ChatAgentError(`the chat agent (${this.what}) could not post: ${result.error ?? 'no reason given'}`);
  }

  async poll(since: string): Promise<ChatPoll> {
    const output = await this.session({ op: 'poll', teamId: this.chat.teamId, channelId: this.chat.channelId, since });
    const result = lastJsonLine(output, agentPollResultSchema);
    if (!result)
      throw new ChatAgentError(`the chat agent (${this.what}) printed no {"messages": [...]} line${tail(output)}`);
    const poll: ChatPoll = { messages: [], problems: [] };
    result.messages.forEach((raw, i) => {
      const parsed = chatMessageSchema.safeParse(raw);
      if (parsed.success) poll.messages.push(parsed.data);
      else poll.problems.push(`message ${i} from the chat agent: ${zodProblemText(parsed.error)}`);
    });
    return poll;
  }

  private session(request: ChatRequest): Promise<string> {
    const prompt = promptFor(request);
    const hasPlaceholder = this.command.some((word) => word.includes(PROMPT_PLACEHOLDER));
    const args = hasPlaceholder
      ? this.command.map((word) => word.replaceAll(PROMPT_PLACEHOLDER, prompt))
      : [...this.command, prompt];
    const env = this.options.env ?? process.env;
    return runAgentSession(args, {
      cwd: this.options.root,
      env: { ...env, FED_ROOT: this.options.root },
      timeoutMs: (this.chat.timeoutSeconds ?? DEFAULT_CHAT_TIMEOUT_SECONDS) * 1000,
      signal: this.options.signal,
      what: this.what,
    });
  }
}

/** The prompt of one session: what to do with the chat tool, what to print, and the request as JSON. */
export function promptFor(request: ChatRequest): string {
  const where = `the chat channel with team id ${request.teamId} and channel id ${request.channelId}`;
  const rules =
    'Use only your chat tool. Do not read or change any file, run any other command, or post anything else.';
  const task =
    request.op === 'post'
      ? [
          `Post the message between the two lines of ==== below, exactly as it is, to ${where}.`,
          rules,
          'When it is posted, print this line alone: {"posted": true, "id": "<id of the posted message, if your tool gives one>"}',
          'If it cannot be posted, print this line alone: {"posted": false, "error": "<why>"}',
          '====',
          request.text,
          '====',
        ]
      : [
          `Read the messages of ${where} posted at or after ${request.since} (ISO 8601), including replies in threads, at most ${CHAT_POLL_LIMIT}, oldest first.`,
          rules,
          'Print them as this one line, with nothing else on it:',
          '{"messages": [{"id": "<message id>", "at": "<time posted, ISO 8601>", "author": "<author display name>", "text": "<message text, mentions such as <at>…</at> kept>"}]}',
          'Print {"messages": []} when there are none.',
        ];
  return [
    `You are the chat relay of a fed federation. ${task[0]}`,
    ...task.slice(1),
    '',
    `${REQUEST_LINE_PREFIX}${JSON.stringify(request)}`,
  ].join('\n');
}

/** The last line of `output` that is a JSON object `schema` accepts (agents print other things too). */
function lastJsonLine<T>(output: string, schema: z.ZodType<T>): T | undefined {
  const lines = output.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    try {
      const parsed = schema.safeParse(JSON.parse(line));
      if (parsed.success) return parsed.data;
    } catch {
      // Not JSON: agent chatter.
    }
  }
  return undefined;
}

function tail(output: string): string {
  const last = output.trim().split('\n').slice(-3).join(' | ').slice(0, 300);
  return last ? `; it printed: ${last}` : '; it printed nothing';
}
