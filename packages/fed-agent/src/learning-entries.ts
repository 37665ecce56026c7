import type { LearningCategory, LearningConfidence, LearningEntry } from 'fed/agent';
import type { Survey } from 'fed/survey';
import type { MissionSearch } from './mission-search.js';

/**
 * What the scan learned, as learning-log entries (docs/design/spec.md §2.5), each with a confidence that says how it was
 * learned: `high` when read from a manifest, parsed from the code (imports, `package main`) or counted;
 * `medium` when inferred from names (folder roles, conventional entry-point names, a file's relevance to
 * the mission by its path or declared names); `low` when guessed from text alone (a file that only
 * mentions the mission's words, a test runner told by a config file's presence).
 */
const MAX_UNREADABLE_ENTRIES = 20;

export function learningEntries(survey: Survey, domain: string, now: Date): LearningEntry[] {
  const timestamp = now.toISOString();
  const entries: LearningEntry[] = [];
  const add = (category: LearningCategory, confidence: LearningConfidence, content: string, tags: string[]) =>
    entries.push({
      timestamp,
      domain,
      category,
      content,
      tags: [...new Set(tags.filter((t) => t !== ''))],
      confidence,
    });

  const { totals } = survey;
  add(
    'structure',
    'high',
    `${totals.files} readable files, ${totals.lines} lines, ${totals.bytes} bytes in ${survey.layout.length} top-level entries`,
    ['inventory'],
  );
  for (const entry of survey.layout.filter((e) => e.folder).slice(0, 6)) {
    add('structure', 'high', `${entry.path}/ holds ${entry.files} files and ${entry.lines} lines`, [
      'layout',
      entry.path,
    ]);
    if (entry.role)
      add('structure', 'medium', `${entry.path}/ probably holds ${entry.role} (from its name)`, [
        'layout',
        'role',
        entry.path,
      ]);
  }
  const { packages } = survey;
  if (packages.list.length > 1) {
    add(
      'structure',
      'high',
      `a monorepo of ${packages.list.length} packages (${packages.declaredBy.join(', ')}): ${packages.list.map((p) => `${p.name} in ${p.path}/`).join(', ')}`,
      ['monorepo', 'packages'],
    );
    for (const edge of packages.edges)
      add(
        'dependency',
        'high',
        `package ${edge.from} depends on package ${edge.to}${edge.dev ? ' (development only)' : ''}`,
        ['packages', edge.from, edge.to],
      );
  }
  for (const problem of survey.workspaceProblems)
    add('gap', 'high', `${problem.path} could not be understood: ${problem.problem}`, ['workspace']);
  for (const language of survey.languages.slice(0, 5)) {
    add('stack', 'high', `${language.name}: ${language.files} files, ${language.lines} lines`, [
      'language',
      language.name.toLowerCase(),
    ]);
  }
  for (const manifest of survey.manifests) {
    if (manifest.problem) {
      add('gap', 'high', `${manifest.path} could not be understood: ${manifest.problem}`, ['manifest', manifest.kind]);
      continue;
    }
    const what = [
      manifest.name ? `names the project ${manifest.name}` : 'has no name',
      `declares ${manifest.dependencies.length} runtime dependencies and ${manifest.devDependencies.length} development dependencies`,
    ];
    add(
      'stack',
      'high',
      `${manifest.path} ${what.join(' and ')}${manifest.description ? `: ${manifest.description}` : ''}`,
      ['manifest', manifest.kind],
    );
  }
  if (survey.manifests.length === 0)
    add('gap', 'medium', 'no build manifest (package.json, pyproject.toml, go.mod, Cargo.toml) was found', [
      'manifest',
    ]);
  if (survey.packageManager)
    add('stack', 'high', `dependencies are locked with ${survey.packageManager}`, [
      'package-manager',
      survey.packageManager,
    ]);
  for (const entry of survey.entryPoints) {
    add(
      'entry-point',
      entry.confidence,
      `${entry.path}: ${entry.confidence === 'high' ? entry.reason : `probably an entry point (${entry.reason})`}`,
      ['entry-point', entry.path.split('/')[0] ?? ''],
    );
  }
  const { graph } = survey;
  if (graph.modules > 0) {
    add(
      'dependency',
      'high',
      `${graph.modules} ${graph.languages.join('/')} modules with ${graph.internalImports} resolved imports between them, in ${graph.groups.length} groups`,
      ['import-graph'],
    );
    const { hub } = graph;
    if (hub)
      add('dependency', 'high', `${hub.label} is imported by ${hub.dependents} other module groups`, [
        'import-graph',
        hub.id,
      ]);
    for (const pkg of graph.external.slice(0, 5))
      add('dependency', 'high', `external package ${pkg.name} is imported by ${pkg.files} files`, [
        'external',
        pkg.name,
      ]);
  }
  const { tests } = survey;
  if (tests.files > 0) {
    add(
      'testing',
      'medium',
      `${tests.files} test files (by their folder or name), most under ${tests.folders[0]?.path ?? '.'}`,
      ['tests'],
    );
    if (tests.runner)
      add(
        'testing',
        tests.runnerSource === 'manifest' ? 'high' : 'low',
        `tests run with ${tests.runner}${tests.command ? ` (${tests.command})` : ''}, ${tests.runnerSource === 'manifest' ? 'as the manifest declares' : 'guessed from a config file'}`,
        ['tests', tests.runner],
      );
  } else add('gap', 'medium', 'no test files were found (by folder or name)', ['tests']);
  for (const hotspot of survey.todos.slice(0, 3)) {
    add(
      'hotspot',
      'high',
      `${hotspot.path} has ${hotspot.count} TODO/FIXME markers; the first, line ${hotspot.first.line}: ${hotspot.first.text}`,
      ['todo', hotspot.first.tag.toLowerCase()],
    );
  }
  for (const file of survey.largest.slice(0, 3)) {
    add('hotspot', 'high', `${file.path} is one of the largest source files: ${file.lines} lines`, [
      'size',
      file.language?.name.toLowerCase() ?? '',
    ]);
  }
  for (const entry of survey.unreadable.slice(0, MAX_UNREADABLE_ENTRIES))
    add('gap', 'high', `${entry.path} could not be read: ${entry.reason}`, ['unreadable']);
  if (survey.unreadable.length > MAX_UNREADABLE_ENTRIES) {
    add('gap', 'high', `${survey.unreadable.length - MAX_UNREADABLE_ENTRIES} more files could not be read`, [
      'unreadable',
    ]);
  }
  return entries;
}

/** What the search for the mission's topics found, or did not. */
export function missionEntries(search: MissionSearch, domain: string, now: Date): LearningEntry[] {
  const timestamp = now.toISOString();
  const entries: LearningEntry[] = [];
  for (const { topic, files, missing, answered, chain } of search.answers) {
    const tags = ['mission', ...topic.words.slice(0, 4)];
    if (missing.length)
      entries.push({
        timestamp,
        domain,
        category: 'gap',
        content: `the mission asks about "${topic.title}" but nothing in the codebase mentions ${missing.map((m) => `"${m}"`).join(', ')}`,
        tags,
        confidence: 'high',
      });
    if (!answered) continue;
    for (const file of files.slice(0, 3)) {
      const byName = file.matchedBy.includes('path') || file.matchedBy.includes('identifier');
      entries.push({
        timestamp,
        domain,
        category: 'structure',
        content: `${file.path} is relevant to "${topic.title}": it matches ${file.terms.join(', ')} by ${file.matchedBy.join(', ')}`,
        tags,
        confidence: byName ? 'medium' : 'low',
      });
    }
    if (chain)
      entries.push({
        timestamp,
        domain,
        category: 'dependency',
        content: `for "${topic.title}" the imports run ${chain.files.join(' -> ')}`,
        tags: [...tags, 'flow'],
        confidence: 'high',
      });
  }
  return entries;
}
