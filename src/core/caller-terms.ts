import { FedError } from './errors.js';

/**
 * What a caller that is not the CLI calls each input of a library operation, by the field of the
 * operation's request (`replyTo` → `signalId`): an MCP tool's arguments, the dashboard's request fields.
 */
export type CallerTerms = Readonly<Record<string, string>>;

/** Terms of a caller whose fields are named as the operation's request names them (`to` → `to`). */
export function sameTerms(fields: readonly string[]): CallerTerms {
  return Object.fromEntries(fields.map((field) => [field, field]));
}

/**
 * A library message in its caller's terms. The library names its input as the CLI's options
 * (`--reply-to: no signal with id …`, `recipient (--to): …`), as a person at a terminal gave it; to
 * another caller, each option it has is named as it calls it (`--reply-to` → `replyTo`), and one it does
 * not have is dropped where it only says which option gave the input (`sender (--from): …` →
 * `sender: …`): that caller never gave it, the tool or page did. A clause that quotes a fed command
 * (`find it with: fed signal list --all`) keeps its options: it runs as written.
 */
export function inCallerTerms(message: string, terms: CallerTerms): string {
  const named = new Map(Object.entries(terms).map(([field, name]) => [optionOf(field), name]));
  // Clause by clause (split after ':' and ';'): a clause that quotes a fed command keeps its options.
  return message
    .split(/(?<=[:;])/)
    .map((clause) =>
      /\bfed [a-z]/.test(clause)
        ? clause
        : clause
            .replace(/ \((--[a-z][a-z-]*)\)/g, (_said, flag: string) => {
              const name = named.get(flag);
              return name === undefined ? '' : ` (${name})`;
            })
            .replace(/(?<![\w-])--[a-z][a-z-]*(?![\w-])/g, (flag) => named.get(flag) ?? flag),
    )
    .join('');
}

/** `work`, with a fed refusal it throws said in the caller's terms (see inCallerTerms). */
export async function refusedInCallerTerms<T>(terms: CallerTerms, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FedError) error.message = inCallerTerms(error.message, terms);
    throw error;
  }
}

/** The CLI option of a request field: `replyTo` → `--reply-to`. */
function optionOf(field: string): string {
  return `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
