import type { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentHostChatChannel } from '../../chat/agent-host-channel.js';
import { ChatBridge, type BridgeActivity } from '../../chat/chat-bridge.js';
import { FileChatChannel } from '../../chat/file-channel.js';
import { RefusedError } from '../../errors.js';
import { loadHooks } from '../../hooks/load-hooks.js';
import { federationPaths } from '../../layout.js';
import { federationContext, type CliIo } from '../io.js';
import { Interrupt } from '../interrupt.js';
import { positiveNumber } from '../option-parsers.js';

const DEFAULT_INTERVAL_SECONDS = 30;

const indent = (text: string) => text.replace(/^/gm, '  ');

export function registerChat(program: Command, io: CliIo): void {
  const chat = program.command('chat').description('the chat channel of meta: status summaries and user commands (chatConfig)');

  chat
    .command('bridge')
    .description('answer @<federationName> commands posted in the chat channel (the chat presence bridge)')
    .option('--interval <seconds>', `poll the channel every <seconds> (default ${DEFAULT_INTERVAL_SECONDS})`, positiveNumber('seconds'))
    .option('--once', 'poll once, wait for the launches it started, and exit')
    .option('--file', 'use the file channel .fed/chat/messages/ instead of the agent host (offline use, tests)')
    .action(async (options: { interval?: number; once?: boolean; file?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const config = ctx.config.config;
      if (!config.chatConfig && !options.file) {
        throw new RefusedError(
          'NO_CHAT_CONFIG',
          `chatConfig is not set in ${ctx.config.file}: add "chatConfig": {"teamId": "<team GUID>", "channelId": "19:…@thread.tacv2"} ` +
            `and "federationName", or pass --file to use the offline file channel ${federationPaths(ctx.root).chatMessages}`,
        );
      }
      const hooks = await loadHooks(ctx.root, config, 'chat bridge');
      const stop = new Interrupt();
      const channel = options.file
        ? new FileChatChannel(ctx.root, { author: config.federationName })
        : new AgentHostChatChannel({ root: ctx.root, config, env: io.env, signal: stop.signal });
      const bridge = await ChatBridge.open({ root: ctx.root, config, channel, hooks, signal: stop.signal, onActivity: (activity) => report(io, activity) });
      const intervalMs = (options.interval ?? DEFAULT_INTERVAL_SECONDS) * 1000;
      io.stderr(`chat bridge: answering @${config.federationName} in ${channel.description}${options.once ? ' (once)' : `, every ${intervalMs / 1000} s until interrupted`}\n`);
      try {
        for (;;) {
          try {
            await bridge.pollOnce();
          } catch (error) {
            // A poll that fails is tried again at the next interval; with --once it is the command's outcome.
            if (options.once || stop.signal.aborted) throw error;
            io.stderr(`warning: polling ${channel.description} failed, retrying in ${intervalMs / 1000} s: ${(error as Error).message}\n`);
          }
          if (options.once || stop.signal.aborted) break;
          await sleep(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
          if (stop.signal.aborted) break;
        }
      } finally {
        await bridge.close();
        stop.dispose();
      }
    });
}

function report(io: CliIo, activity: BridgeActivity): void {
  if (activity.kind === 'warning') return io.stderr(`warning: ${activity.text}\n`);
  if (activity.kind === 'launch-finished') return io.stdout(`launch of ${activity.team} finished:\n${indent(activity.reply)}\n`);
  const { message } = activity;
  io.stdout(`${message.at} ${message.author ?? '(unknown)'}: ${activity.command}${activity.failed ? '  (failed)' : ''}\n${indent(activity.reply)}\n`);
}
