import type { ProjectCommand, Survey } from 'fed/survey';
import { code, count, escapeText, fenced, numberedList, plural, table } from './markdown-text.js';

/**
 * The two sections a newcomer starts with: how to build, test and run the project (the commands its
 * manifests, scripts and Makefile declare, each with where it comes from) and where to start reading
 * (the README, the entry points, the modules most of the code depends on, the tests). Pure: everything
 * shown is in the survey.
 */
const STEP_NAMES: Record<ProjectCommand['step'], string> = {
  install: 'Install',
  build: 'Build',
  test: 'Test',
  run: 'Run',
  check: 'Check',
};

const MAX_SHOWN_TARGETS = 12;
const MAX_DEPENDED_ON = 5;

/** What the primary manifest says the project is. */
function manifestLine(survey: Survey): string | null {
  const manifest = survey.manifests[0];
  if (!manifest) return null;
  const named = manifest.name ? ` named ${code(manifest.name)}` : '';
  if (manifest.kind === 'npm') {
    const scripts = Object.keys(manifest.scripts);
    const listed = scripts.length
      ? `:\n\n${fenced('json', JSON.stringify({ scripts: manifest.scripts }, null, 2))}`
      : '.';
    return `${code(manifest.path)} defines ${plural(scripts.length, 'script')}${listed}`;
  }
  if (manifest.kind === 'python') return `${code(manifest.path)} describes a Python project${named}.`;
  if (manifest.kind === 'go') return `${code(manifest.path)} declares the Go module ${code(manifest.name ?? '?')}.`;
  return `${code(manifest.path)} describes a Rust crate${named}.`;
}

export function howToRunSection(survey: Survey): string {
  const { commands, makeTargets } = survey.commands;
  if (commands.length === 0)
    return 'No build manifest (package.json, pyproject.toml, setup.py, go.mod, Cargo.toml) or Makefile was found, so there is no declared way to build or run the code. Read the README, if there is one, for instructions.';
  const parts: string[] = [];
  const about = manifestLine(survey);
  if (about) parts.push(about);
  const unique = [...new Set(commands.map((c) => c.command))];
  parts.push('From a fresh clone, to install, build, test and run it:', fenced('sh', unique.join('\n')));
  parts.push(
    'Where each command comes from:',
    table(
      ['Step', 'Command', 'Declared in'],
      commands.map((c) => [STEP_NAMES[c.step], code(c.command), escapeText(c.from)]),
    ),
  );
  const others = makeTargets.filter((t) => !commands.some((c) => c.command === `make ${t}`));
  if (others.length)
    parts.push(
      `The Makefile's other targets: ${others
        .slice(0, MAX_SHOWN_TARGETS)
        .map((t) => code(`make ${t}`))
        .join(
          ', ',
        )}${others.length > MAX_SHOWN_TARGETS ? `, and ${count(others.length - MAX_SHOWN_TARGETS)} more` : ''}.`,
    );
  const more = survey.manifests.slice(1);
  if (more.length) parts.push(`Other manifests: ${more.map((m) => code(m.path)).join(', ')}.`);
  return parts.join('\n\n');
}

/** The files the most other files import, most first. */
export function mostDependedOn(survey: Survey): { path: string; dependents: number }[] {
  const dependents = new Map<string, Set<string>>();
  for (const { from, to } of survey.graph.links) {
    if (from === to) continue;
    (dependents.get(to) ?? dependents.set(to, new Set()).get(to)!).add(from);
  }
  return [...dependents]
    .map(([path, from]) => ({ path, dependents: from.size }))
    .filter((f) => f.dependents > 1)
    .sort((a, b) => b.dependents - a.dependents || a.path.localeCompare(b.path))
    .slice(0, MAX_DEPENDED_ON);
}

export function whereToStartSection(survey: Survey): string {
  const steps: string[] = [];
  if (survey.readme)
    steps.push(
      `Read ${code(survey.readme)} first: it is the project's own introduction${survey.description ? ` ("${escapeText(survey.description)}")` : ''}.`,
    );
  else if (survey.description) steps.push(`The manifest describes the project as "${escapeText(survey.description)}".`);
  const entries = survey.entryPoints.slice(0, 3);
  if (entries.length)
    steps.push(
      `Then the entry ${entries.length === 1 ? 'point' : 'points'}, where execution starts: ${entries.map((e) => code(e.path)).join(', ')}.`,
    );
  const hubs = mostDependedOn(survey);
  if (hubs.length)
    steps.push(
      `Then the ${plural(hubs.length, 'module')} most of the code depends on (see the table below): what they define is used everywhere.`,
    );
  const testFolder = survey.tests.folders[0];
  if (testFolder)
    steps.push(
      `The tests show how the code is meant to be used: ${plural(survey.tests.files, 'test file')}, most in ${testFolder.path === '.' ? 'the root folder' : code(`${testFolder.path}/`)}${survey.tests.command ? `, run with ${code(survey.tests.command)}` : ''}.`,
    );
  if (steps.length === 0)
    steps.push('The largest source files (see "Largest source files") are where most of the code is: start with them.');
  const parts = [numberedList(steps)];
  if (hubs.length)
    parts.push(
      table(
        ['Module', 'Imported by (files)'],
        hubs.map((h) => [code(h.path), count(h.dependents)]),
      ),
    );
  return parts.join('\n\n');
}
