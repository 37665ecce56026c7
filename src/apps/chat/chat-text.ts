/**
 * Chat text as the bridge reads it. Chat products deliver markup — Teams sends a mention as
 * `<at>acme</at>` inside HTML paragraphs — so text is reduced to plain lines first, a mention wrapped in
 * markup becoming `@acme`.
 */
const ENTITIES: Record<string, string> = { nbsp: ' ', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", amp: '&' };

export function plainText(text: string): string {
  return text
    .replace(/@?<at\b[^>]*>\s*@?([^<]*?)\s*<\/at>/gi, '@$1')
    .replace(/<br\s*\/?>|<\/(?:p|div|li)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(nbsp|lt|gt|quot|apos|#39|amp);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\r\n?/g, '\n')
    .trim();
}

export interface AddressedCommand {
  /** The first line after the mention, e.g. `pause docs`. */
  line: string;
  /** The lines after it (a signal's body for `send`). */
  body: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The command a message addresses to `@name` (case-insensitive; not `@names` or `me@name.com`), or
 * undefined when it does not mention the name. The command is what follows the first mention.
 */
export function addressedCommand(text: string, name: string): AddressedCommand | undefined {
  const plain = plainText(text);
  const mention = new RegExp(`(?:^|[^\\w@.])@${escapeRegExp(name)}(?![\\w-])`, 'i').exec(plain);
  if (!mention) return undefined;
  const rest = plain.slice(mention.index + mention[0].length).replace(/^[\s:,]+/, '');
  const [line = '', ...body] = rest.split('\n');
  return { line: line.trim(), body: body.join('\n').trim() };
}
