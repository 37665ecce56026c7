/**
 * Every message fed posts starts with `[<federationName>]` (`[fed]` without one): readers see who speaks,
 * and the bridge recognises its own messages — replies and help quote `@<federationName>` — so it never
 * takes them for commands.
 */
export function signature(federationName: string | undefined): string {
  return `[${federationName ?? 'fed'}]`;
}

export function signed(text: string, federationName: string | undefined): string {
  return `${signature(federationName)} ${text}`;
}
