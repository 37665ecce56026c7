/** The state name of a lifecycle snapshot, live or persisted (lifecycle machines are flat). */
export function stateOf(snapshot: { value: unknown }): string {
  return typeof snapshot.value === 'string' ? snapshot.value : JSON.stringify(snapshot.value);
}
