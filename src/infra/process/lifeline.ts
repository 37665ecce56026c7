import { Socket } from 'node:net';

/**
 * The lifeline between a launcher and the process it supervises: a pipe whose one end only the launcher
 * holds, handed to the child as descriptor `LIFELINE_FD`. When the launcher dies — even by SIGKILL — the
 * kernel closes its end, and the child reads the end of the pipe.
 */
export const LIFELINE_FD = 3;

/**
 * Set in the environment of an agent that watches the lifeline itself (fed's built-in agent), naming its
 * descriptor: such an agent runs with no watchdog process between it and its launcher.
 */
export const LIFELINE_ENV = 'FED_LIFELINE_FD';

/**
 * Set beside LIFELINE_ENV: how long (ms) what such an agent started has, once the launcher is gone, between
 * SIGTERM and SIGKILL — the grace period a stop gives it.
 */
export const LIFELINE_GRACE_ENV = 'FED_LIFELINE_GRACE_MS';

/**
 * Calls `onGone` once, when the launcher's end of the lifeline on `fd` closes. The lifeline never keeps the
 * process alive by itself.
 */
export function watchLifeline(fd: number, onGone: () => void): void {
  // A socket, not an fs stream: a blocking fs read would hold a thread-pool thread that process.exit waits for.
  const lifeline = new Socket({ fd, readable: true, writable: false });
  let gone = false;
  const once = () => {
    if (gone) return;
    gone = true;
    onGone();
  };
  lifeline.on('data', () => undefined);
  lifeline.on('end', once);
  lifeline.on('error', once);
  lifeline.resume();
  lifeline.unref();
}
