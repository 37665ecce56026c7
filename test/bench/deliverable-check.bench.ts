/**
 * `fed deliverable check` on the worst Markdown shapes up to the 256 KiB limit (issue shapes that took
 * 49–91 s, and the worst found inside the limits of src/engine/deliverable/markdown-limits.ts), beside the
 * raw ceiling measured in the same run: the GFM parse of 256 KiB of plain prose. Goal: every shape is
 * checked — or refused before parsing, naming why — in ≤ 2 s, and every shape the dashboard renders
 * (the ones not refused: its team page parses the same Markdown in the browser) parses in ≤ 1 s.
 */
import { checkMarkdownText, MARKDOWN_LIMITS, markdownLimitProblem, parseMarkdown } from 'fed/testing';
import { report, summarize } from './harness.js';

const BYTES = MARKDOWN_LIMITS.bytes - 64;
const ROUNDS = 3;
const HEAD = '# Shape\n\nA summary sentence. Another one.\n\n';
const PROSE = 'Some words about the module and what it does for its callers. ';

/** `unit` repeated `times` (or until the byte limit), then prose in long lines up to the limit. */
function shape(unit: string, times = Number.POSITIVE_INFINITY): string {
  const body = unit ? unit.repeat(Math.min(times, Math.floor((BYTES - HEAD.length) / unit.length))) : '';
  let text = `${HEAD}${body}\n\n`;
  const line = `${PROSE.repeat(30)}\n\n`;
  while (text.length + line.length <= BYTES) text += line;
  return text;
}

/** `line` up to the line limit, in paragraphs of as many lines as one may have. */
function paragraphs(line: string): string {
  const paragraph = `${`${line}\n`.repeat(MARKDOWN_LIMITS.paragraphLines - 1)}\n`;
  const count = Math.floor((MARKDOWN_LIMITS.lines - 10) / MARKDOWN_LIMITS.paragraphLines);
  return `${HEAD}${paragraph.repeat(count)}${`${line}\n`.repeat(MARKDOWN_LIMITS.lines - 10 - count * MARKDOWN_LIMITS.paragraphLines)}`;
}

const SHAPES: Record<string, string> = {
  // Refused before parsing (each took 49–91 s before the limits).
  '`x` lines ×125 000': `${HEAD}${'x\n'.repeat(125_000)}`,
  '`<` ×250 000': `${HEAD}${'<'.repeat(250_000)}`,
  '`&#` ×120 000': `${HEAD}${'&#'.repeat(120_000)}`,
  '`|` ×250 000': `${HEAD}${'|'.repeat(250_000)}`,
  '`[a]` ×80 000': `${HEAD}${'[a]'.repeat(80_000)}`,
  // The worst inside the limits.
  prose: shape(''),
  // 8 000 short lines in one paragraph took 2.1 s to check: now refused by the paragraph's lines.
  'short lines at the line limit, one paragraph': `${HEAD}${'a word.\n'.repeat(MARKDOWN_LIMITS.lines - 10)}`,
  'short lines at the line limit, paragraphs at their limit': paragraphs('a word.'),
  'the byte and line limits filled, paragraphs at their limit': paragraphs(
    'abcd '.repeat(Math.floor((BYTES - HEAD.length) / MARKDOWN_LIMITS.lines / 5) - 1).trim(),
  ),
  'the byte limit filled, one paragraph at its limit': `${HEAD}${`${'abcd '.repeat(Math.floor((BYTES - HEAD.length) / MARKDOWN_LIMITS.paragraphLines / 5) - 1).trim()}\n`.repeat(MARKDOWN_LIMITS.paragraphLines - 1)}`,
  '`<` at the markup limit': shape('<', MARKDOWN_LIMITS.markupChars - 10),
  '`|` at the "|" limit': shape('|', MARKDOWN_LIMITS.pipes - 10),
  '`&#` at the markup limit': shape('&#', MARKDOWN_LIMITS.markupChars - 10),
  'links at the "[" limit': shape('[a](b) ', MARKDOWN_LIMITS.linkOpeners - 10),
  '`[a]` at the "[" limit': shape('[a]', MARKDOWN_LIMITS.linkOpeners - 10),
  'table rows at the "|" limit': `${HEAD}| a | b |\n|---|---|\n${'| a | b |\n'.repeat(Math.floor((MARKDOWN_LIMITS.pipes - 10) / 3))}`,
};

/**
 * CPU milliseconds of each round, each on a text of its own (the checker remembers the facts of a text it
 * has read). CPU time, not wall time: the check is synchronous work on one core, which on an idle machine
 * is its wall time, while on a shared one wall time measures the neighbours.
 */
function timed(text: string, run: (text: string) => void): number[] {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const own = `${text}\nRound ${i}.\n`;
    const start = process.cpuUsage();
    run(own);
    const spent = process.cpuUsage(start);
    times.push((spent.user + spent.system) / 1000);
  }
  return times;
}

export default async function bench(): Promise<void> {
  // Warm: the first parse compiles the parser.
  checkMarkdownText(shape('', 10));
  const ceiling = summarize(timed(SHAPES.prose!, parseMarkdown)).median;
  for (const [name, text] of Object.entries(SHAPES)) {
    const refused = markdownLimitProblem(text) !== undefined;
    const check = summarize(
      timed(text, (own) => {
        try {
          checkMarkdownText(own);
        } catch (error) {
          if (!refused) throw error;
        }
      }),
    );
    report({
      name: `check ${name} (${Math.round(text.length / 1024)} KiB${refused ? ', refused before parsing' : ''})`,
      value: check.median,
      spread: check,
      rounds: ROUNDS,
      unit: 'CPU ms',
      ceiling: { name: 'GFM parse of 256 KiB of prose', value: ceiling },
      goal: '≤ 2 000 ms',
      met: check.max <= 2_000,
    });
    if (refused) continue;
    const page = summarize(timed(text, parseMarkdown));
    report({
      name: `dashboard parse of ${name}`,
      value: page.median,
      spread: page,
      rounds: ROUNDS,
      unit: 'CPU ms',
      ceiling: { name: 'GFM parse of 256 KiB of prose', value: ceiling },
      goal: '≤ 1 000 ms',
      met: page.max <= 1_000,
    });
  }
}
