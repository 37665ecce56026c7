import type { Command } from 'commander';
import type { BridgeActivity } from '../../apps/chat/chat-bridge.js';
import { runChatBridge } from '../../apps/chat/run-chat-bridge.js';
import { loadHooks } from '../../engine/hooks/load-hooks.js';
import { federationContext, type CliIo } from '../io.js';
import { Interrupt } from '../interrupt.js';
import { REPEAT_INTERVAL, timerSeconds } from '../option-parsers.js';

const DEFAULT_INTERVAL_SECONDS = 30;

const indent = (text: string) => text.replace(/^/gm, '  ');

export function registerChat(program: Command, io: CliIo): void {
  const chat = program
    .command('chat')
    .description('the chat channel of meta: status summaries and user commands (chatConfig)');

  chat
    .command('bridge')
    .description('answer @<federationName> commands posted in the chat channel (the chat presence bridge)')
    .option(
      '--interval <seconds>',
      `poll the channel every <seconds> (default ${DEFAULT_INTERVAL_SECONDS}; at least 0.1, at most 24 days)`,
      timerSeconds(REPEAT_INTERVAL),
    )
    .option('--once', 'poll once, wait for the launches it started, and exit')
    .option('--file', 'use the file channel .fed/chat/messages/ instead of the agent host (offline use, tests)')
    .action(async (options: { interval?: number; once?: boolean; file?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const config = ctx.config.config;
      const intervalMs = (options.interval ?? DEFAULT_INTERVAL_SECONDS) * 1000;
      const stop = new Interrupt();
      try {
        await runChatBridge(ctx.fed, {
          config,
          file: options.file,
          intervalMs,
          once: options.once,
          signal: stop.signal,
          env: io.env,
          hooks: await loadHooks(ctx.root, config, 'chat bridge'),
          onStart: (where) =>
            io.stderr(
              `chat bridge: answering @${config.federationName} in ${where}${options.once ? ' (once)' : `, every ${intervalMs / 1000} s until interrupted`}\n`,
            ),
          onActivity: (activity) => report(io, activity),
        });
      } finally {
        stop.dispose();
      }
    });
}

function report(io: CliIo, activity: BridgeActivity): void {
  if (activity.kind === 'warning') return io.stderr(`warning: ${activity.text}\n`);
  if (activity.kind === 'launch-finished')
    return io.stdout(`launch of ${activity.team} finished:\n${indent(activity.reply)}\n`);
  const { message } = activity;
  io.stdout(
    `${message.at} ${message.author ?? '(unknown)'}: ${activity.command}${activity.failed ? '  (failed)' : ''}\n${indent(activity.reply)}\n`,
  );
}
