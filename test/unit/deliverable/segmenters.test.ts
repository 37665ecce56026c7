import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { packageRoot } from 'fed/testing';

/**
 * The deliverable rules make their Intl segmenters when a document is first analysed, not as they load:
 * the first Intl object of a process starts ICU (7–10 ms), which `fed run` and `fed launch` would
 * otherwise pay before their first agent starts (src/engine/deliverable/segmenters.ts).
 */
describe('the deliverable rules’ segmenters', () => {
  it('are made on first use: loading the rules makes none, a checked document its two', () => {
    const script = `
      const made = [];
      const Native = Intl.Segmenter;
      Intl.Segmenter = class extends Native {
        constructor(locale, options) { super(locale, options); made.push(options.granularity); }
      };
      const { checkMarkdownText } = await import('fed/agent');
      const loaded = made.length;
      checkMarkdownText('# Title\\n\\nA summary. Of two sentences.\\n\\n## Part\\n\\nWords here.\\n');
      checkMarkdownText('# Again\\n\\nOne more. And another.\\n');
      console.log(JSON.stringify({ loaded, made }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageRoot(),
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    const { loaded, made } = JSON.parse(run.stdout) as { loaded: number; made: string[] };
    expect(loaded).toBe(0);
    expect(made.sort()).toEqual(['sentence', 'word']);
  });
});
