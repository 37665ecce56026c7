/** What untilAborted gives when `signal` aborted first. */
export const ABORTED = Symbol('aborted');

/**
 * `promise`'s value, or ABORTED as soon as `signal` aborts (at once if it has): a server stopping does not
 * wait for a read or an ask that an unreachable broker holds until it is back. The promise runs on; a
 * failure of it after that is swallowed here.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
