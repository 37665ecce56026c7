/**
 * The built-in agent's survey of a generated 5 000-file repository (TypeScript modules importing each
 * other, Python, Markdown, JSON, a .gitignore'd build folder), beside the raw ceiling measured in the same
 * run on the same files: a bare recursive readdir plus a read of every file. Goal: the survey finishes in
 * seconds (≤ 5 s) and runs at ≥ 20 % of the raw read rate — it also decodes every text file, counts its
 * lines and scans code for imports and TODO markers; writing the document adds little on top.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { selectExcerpt } from '../../packages/fed-agent/src/excerpt.js';
import { distillInsights } from '../../packages/fed-agent/src/insights.js';
import { searchMission } from '../../packages/fed-agent/src/mission-search.js';
import { planOutline } from '../../packages/fed-agent/src/outline.js';
import { renderDeliverable } from '../../packages/fed-agent/src/render-markdown.js';
import { surveyCodebase, topLevelSources } from 'fed/testing';
import { checkAnalysedMarkdown } from 'fed/agent';
import { percentile, report } from './harness.js';

const FILES = 5_000;
const ROUNDS = 3;

/** A repository of FILES files: 60 % TypeScript in 40 packages importing each other, the rest Python, Markdown, JSON. */
export function generateRepository(root: string): number {
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write(
    'package.json',
    JSON.stringify({
      name: 'generated',
      bin: { gen: 'dist/packages/p0/m0.js' },
      scripts: { build: 'tsc', test: 'vitest run' },
      devDependencies: { vitest: '4' },
    }),
  );
  write('.gitignore', 'dist/\n');
  let files = 2;
  for (let i = 0; files < FILES; i++, files++) {
    const pkg = `packages/p${i % 40}`;
    const kind = i % 10;
    if (kind < 6) {
      const imports = [
        `import { value as a } from '../p${(i + 1) % 40}/m${i + 1}.js';`,
        "import { z } from 'zod';",
        "import { readFileSync } from 'node:fs';",
      ];
      const body = Array.from(
        { length: 40 },
        (_, l) => `export const f${l} = (x: number) => x * ${l}; // line ${l}`,
      ).join('\n');
      write(
        `${pkg}/m${i}.ts`,
        `${imports.join('\n')}\n${i % 50 === 0 ? '// TODO: split this module\n' : ''}export const value = ${i};\n${body}\n`,
      );
    } else if (kind < 8)
      write(`${pkg}/docs/n${i}.md`, `# Note ${i}\n\n${'Some words about the module. '.repeat(30)}\n`);
    else if (kind < 9)
      write(`${pkg}/data/d${i}.json`, JSON.stringify({ id: i, values: Array.from({ length: 50 }, (_, k) => k) }));
    else write(`tools/t${i}.py`, `import os\n\n\ndef main():\n    # FIXME: flags\n    return ${i}\n`);
  }
  for (let i = 0; i < 200; i++) write(`dist/packages/out${i}.js`, 'ignored build output\n');
  return files;
}

/** The ceiling: every file found by a bare recursive readdir and read whole, nothing else. */
export function rawReadAll(dir: string): number {
  let count = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) count += rawReadAll(path);
    else {
      readFileSync(path);
      count++;
    }
  }
  return count;
}

export default async function agentBench(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-agent-'));
  try {
    const files = generateRepository(root);
    const rawFiles = rawReadAll(root); // also warms the page cache for both
    const raw: number[] = [];
    const survey: number[] = [];
    const whole: number[] = [];
    const answering: number[] = [];
    let surveyed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let t = performance.now();
      rawReadAll(root);
      raw.push(performance.now() - t);
      t = performance.now();
      const result = surveyCodebase(root);
      survey.push(performance.now() - t);
      surveyed = result.totals.files;
      t = performance.now();
      const again = surveyCodebase(root);
      const mission = { subject: 'Document the architecture', body: '' };
      const outline = planOutline(mission, topLevelSources(root), again.name);
      const search = searchMission(again, outline.topics);
      const document = renderDeliverable({
        survey: again,
        outline,
        search,
        insights: distillInsights(again, search),
        excerpt: selectExcerpt(again),
        mission,
      });
      if (!checkAnalysedMarkdown(document).ok) throw new Error('the generated deliverable does not pass the check');
      whole.push(performance.now() - t);
      // A mission with a flow question: every file's path, declared names and text searched, the chain traced.
      t = performance.now();
      const asked = planOutline({ subject: 'How does a value flow from module to module?', body: '' }, [], again.name);
      if (searchMission(again, asked.topics).answers[0]?.missing.length !== 0)
        throw new Error('the mission topic was not found');
      answering.push(performance.now() - t);
    }
    if (surveyed !== files) throw new Error(`survey saw ${surveyed} files, expected ${files}`);
    const median = (samples: number[]) =>
      percentile(
        [...samples].sort((a, b) => a - b),
        50,
      );
    // The bare read also reads the ignored build folder: its rate counts those files too.
    const rawRate = rawFiles / (median(raw) / 1000);
    const surveyRate = files / (median(survey) / 1000);
    report({
      name: `survey of ${files} files`,
      value: surveyRate,
      unit: 'files/s',
      ceiling: { name: 'bare readdir + read', value: rawRate },
      goal: '≥ 20 % of ceiling',
      met: surveyRate >= 0.2 * rawRate,
    });
    report({
      name: `survey of ${files} files`,
      value: median(survey),
      unit: 'ms',
      ceiling: { name: 'bare readdir + read', value: median(raw) },
      goal: '≤ 5 000 ms',
      met: median(survey) <= 5_000,
    });
    report({
      name: 'survey + distil + render + check',
      value: median(whole),
      unit: 'ms',
      ceiling: { name: 'survey alone', value: median(survey) },
      goal: '≤ 5 000 ms',
      met: median(whole) <= 5_000,
    });
    report({
      name: 'answering a mission topic',
      value: median(answering),
      unit: 'ms',
      ceiling: { name: 'survey alone', value: median(survey) },
      goal: '≤ 5 000 ms',
      met: median(answering) <= 5_000,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
