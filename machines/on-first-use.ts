/**
 * A machine built on its first use, once. Building one (xstate formats every state's transitions) is a
 * measurable part of a short command's start-up, and a command uses one or two of fed's machines: `fed
 * team show` for a deliverable team need not build the coding lifecycle. machines/index.ts builds each one
 * for the library's users, who import the machines themselves.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
