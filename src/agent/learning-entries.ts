import type { LearningCategory, LearningConfidence, LearningEntry } from '../schema/learning-log.js';
import type { Survey } from './survey.js';

/**
 * What the scan learned, as learning-log entries (spec §2.5): counts and manifest fields are `high`
 * confidence; anything read from names or a text scan (folder roles, import graph, test runner) `medium`.
 */
const MAX_UNREADABLE_ENTRIES = 20;

export function learningEntries(survey: Survey, domain: string, now: Date): LearningEntry[] {
  const timestamp = now.toISOString();
  const entries: LearningEntry[] = [];
  const add = (category: LearningCategory, confidence: LearningConfidence, content: string, tags: string[]) =>
    entries.push({ timestamp, domain, category, content, tags: [...new Set(tags.filter((t) => t !== ''))], confidence });

  const { totals } = survey;
  add('structure', 'high', `${totals.files} readable files, ${totals.lines} lines, ${totals.bytes} bytes in ${survey.layout.length} top-level entries`, ['inventory']);
  for (const entry of survey.layout.filter((e) => e.folder).slice(0, 6)) {
    const role = entry.role ? `, probably ${entry.role}` : '';
    add('structure', entry.role ? 'medium' : 'high', `${entry.path}/ holds ${entry.files} files and ${entry.lines} lines${role}`, ['layout', entry.path]);
  }
  for (const language of survey.languages.slice(0, 5)) {
    add('stack', 'high', `${language.name}: ${language.files} files, ${language.lines} lines`, ['language', language.name.toLowerCase()]);
  }
  for (const manifest of survey.manifests) {
    if (manifest.problem) {
      add('gap', 'high', `${manifest.path} could not be understood: ${manifest.problem}`, ['manifest', manifest.kind]);
      continue;
    }
    const what = [manifest.name ? `names the project ${manifest.name}` : 'has no name', `declares ${manifest.dependencies.length} dependencies and ${manifest.devDependencies.length} development dependencies`];
    add('stack', 'high', `${manifest.path} ${what.join(' and ')}${manifest.description ? `: ${manifest.description}` : ''}`, ['manifest', manifest.kind]);
  }
  if (survey.manifests.length === 0) add('gap', 'medium', 'no build manifest (package.json, pyproject.toml, go.mod, Cargo.toml) was found', ['manifest']);
  if (survey.packageManager) add('stack', 'high', `dependencies are locked with ${survey.packageManager}`, ['package-manager', survey.packageManager]);
  for (const entry of survey.entryPoints) {
    add('entry-point', entry.confidence, `${entry.path}: ${entry.confidence === 'high' ? entry.reason : `probably an entry point (${entry.reason})`}`, ['entry-point', entry.path.split('/')[0] ?? '']);
  }
  const { graph } = survey;
  if (graph.modules > 0) {
    add('dependency', 'medium', `${graph.modules} TypeScript/JavaScript modules with ${graph.internalImports} resolved imports between them, in ${graph.groups.length} groups`, ['import-graph']);
    const { hub } = graph;
    if (hub) add('dependency', 'medium', `${hub.label} is imported by ${hub.dependents} other module groups`, ['import-graph', hub.id]);
    for (const pkg of graph.external.slice(0, 5)) add('dependency', 'medium', `external package ${pkg.name} is imported by ${pkg.files} files`, ['external', pkg.name]);
  }
  const { tests } = survey;
  if (tests.files > 0) {
    const runner = tests.runner ? `, run with ${tests.runner}${tests.command ? ` (${tests.command})` : ''}` : '';
    add('testing', 'medium', `${tests.files} test files, most under ${tests.folders[0]?.path ?? '.'}${runner}`, ['tests', tests.runner ?? '']);
  } else add('gap', 'medium', 'no test files were found', ['tests']);
  for (const hotspot of survey.todos.slice(0, 3)) {
    add('hotspot', 'high', `${hotspot.path} has ${hotspot.count} TODO/FIXME markers; the first, line ${hotspot.first.line}: ${hotspot.first.text}`, ['todo', hotspot.first.tag.toLowerCase()]);
  }
  for (const file of survey.largest.slice(0, 3)) {
    add('hotspot', 'high', `${file.path} is one of the largest source files: ${file.lines} lines`, ['size', file.language?.name.toLowerCase() ?? '']);
  }
  for (const entry of survey.unreadable.slice(0, MAX_UNREADABLE_ENTRIES)) add('gap', 'high', `${entry.path} could not be read: ${entry.reason}`, ['unreadable']);
  if (survey.unreadable.length > MAX_UNREADABLE_ENTRIES) {
    add('gap', 'high', `${survey.unreadable.length - MAX_UNREADABLE_ENTRIES} more files could not be read`, ['unreadable']);
  }
  return entries;
}
