import { Server } from 'node:net';
import type { ChildProcess } from 'node:child_process';

/**
 * The IPC channel between the launcher and the sandbox's listener (sandbox-listener.ts): the listening
 * socket goes up, then the launcher's go-ahead comes down. Kept free of fed's other modules: the watchdog
 * loads it.
 */
export const LISTENER_READY = 'fed-network-ready';
/** The descriptor the channel has inside the sandbox (after stdin, stdout, stderr and the lifeline). */
export const LISTENER_CHANNEL_FD = 4;

/** The launcher's side: each listener goes to `serve` with its port, then the sandbox goes on. */
export function receiveListener(child: ChildProcess, serve: (listener: Server, port: number) => void): void {
  child.on('message', (message: { listener?: unknown }, handle) => {
    if (!(handle instanceof Server) || typeof message?.listener !== 'number') return;
    serve(handle, message.listener);
    child.send(LISTENER_READY);
  });
}

/** The watchdog's side, between the launcher and bwrap: the listener up (its own copy closed), the go-ahead down. */
export function relayListener(child: ChildProcess): void {
  child.on('message', (message, handle) => {
    if (handle instanceof Server) process.send!(message, handle, () => handle.close());
  });
  process.on('message', (message) => child.send(message as string));
}
