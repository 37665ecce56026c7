import { agree, code, count, fenced, label, plural, table } from './markdown-text.js';
import type { CodePackage, DependencyKind, PackageEdge, Survey } from 'fed/survey';

/**
 * The answer to "which packages does this repository have, and how do they depend on each other"
 * (MissionPlan.packageGraph), read from the manifests alone: every workspace package with its published
 * name, version and folder, the packages of the repository it depends on — at run time, as a peer and
 * for development kept apart —, a Mermaid graph whose arrows point at the package depended on, and the
 * core: the package most others depend on. The same whatever the mission calls a package.
 */
export const PACKAGE_GRAPH_TITLE = 'Packages and how they depend on each other';

const KIND_NAMES: Record<DependencyKind, string> = {
  runtime: 'dependencies',
  peer: 'peer dependencies',
  dev: 'development dependencies',
};

/** Mermaid arrows: solid for run time, labelled for a peer, dotted for development only. */
const ARROWS: Record<DependencyKind, string> = { runtime: '-->', peer: '-->|peer|', dev: '-.->' };

const names = (list: readonly string[]) => (list.length ? list.map(code).join(', ') : '—');

/** The package others depend on most (at run time or as a peer first, then counting development too). */
function corePackage(list: readonly CodePackage[], edges: readonly PackageEdge[]) {
  const dependents = (p: CodePackage, kinds: readonly DependencyKind[]) =>
    edges.filter((e) => e.to === p.name && e.kinds.some((k) => kinds.includes(k))).map((e) => e.from);
  const ranked = list
    .map((p) => ({ pkg: p, using: dependents(p, ['runtime', 'peer']), all: dependents(p, ['runtime', 'peer', 'dev']) }))
    .filter((r) => r.all.length > 0)
    .sort(
      (a, b) => b.using.length - a.using.length || b.all.length - a.all.length || a.pkg.name.localeCompare(b.pkg.name),
    );
  return ranked[0];
}

function graph(list: readonly CodePackage[], edges: readonly PackageEdge[]): string {
  const ids = new Map(list.map((p, i) => [p.name, `p${i}`]));
  const nodes = list.map((p) => `  ${ids.get(p.name)}[${label(p.version ? `${p.name} ${p.version}` : p.name)}]`);
  // One arrow per pair, the strongest way it is declared (runtime, then peer, then development).
  const arrows = edges.map((e) => `  ${ids.get(e.from)} ${ARROWS[e.kinds[0]!]} ${ids.get(e.to)}`);
  return fenced('mermaid', ['flowchart LR', ...nodes, ...arrows].join('\n'));
}

export function packageGraphSection(survey: Survey): string {
  const { list, edges, declaredBy } = survey.packages;
  if (list.length < 2) {
    const manifest = list[0]
      ? { name: list[0].name, path: list[0].manifest }
      : survey.manifests.find((m) => m.name !== null);
    const what = manifest
      ? `one package, ${code(manifest.name!)} (${code(manifest.path)})`
      : 'no package a manifest declares';
    return `This repository is ${what}, not a workspace of several: no \`workspaces\` field, \`pnpm-workspace.yaml\`, \`lerna.json\`, \`nx.json\`, Cargo \`[workspace]\` or \`go.work\` declares members, and no second \`go.mod\` or \`pyproject.toml\` was found. How its modules import each other is shown under "Module dependencies".`;
  }
  const of = (p: CodePackage, kind: DependencyKind) =>
    edges.filter((e) => e.from === p.name && e.kinds.includes(kind)).map((e) => e.to);
  const usedBy = (p: CodePackage) => edges.filter((e) => e.to === p.name).map((e) => e.from);
  const rows = list.map((p) => [
    code(p.name),
    p.version ? code(p.version) : 'none declared',
    code(p.path === '.' ? './' : `${p.path}/`),
    names(of(p, 'runtime')),
    names(of(p, 'peer')),
    names(of(p, 'dev')),
    names(usedBy(p)),
  ]);
  const parts = [
    `${plural(list.length, 'package')}, as ${declaredBy.map(code).join(', ')} ${agree(declaredBy.length, 'declares', 'declare')}. Each with the name and version its manifest publishes, and the packages of this repository it depends on: ${Object.values(KIND_NAMES).join(', ')} kept apart.`,
    table(
      ['Package', 'Version', 'Folder', 'Depends on', 'Peer dependencies', 'Development dependencies', 'Depended on by'],
      rows,
    ),
  ];
  if (edges.length === 0) {
    parts.push('None of the packages declares a dependency on another package of the repository.');
    return parts.join('\n\n');
  }
  parts.push(
    `How they depend on each other: each arrow points at the package depended on; a solid arrow is a dependency, one marked "peer" a peer dependency, a dotted one a development dependency. ${plural(edges.length, 'dependency', 'dependencies')} between ${plural(new Set(edges.flatMap((e) => [e.from, e.to])).size, 'package')}.`,
    graph(list, edges),
  );
  const core = corePackage(list, edges)!;
  const isolated = list.filter((p) => !edges.some((e) => e.from === p.name || e.to === p.name));
  parts.push(
    `The core is ${code(core.pkg.name)} (${code(`${core.pkg.path}/`)}): ${count(core.using.length)} of the ${count(list.length - 1)} other packages depend on it${core.all.length > core.using.length ? `, ${count(core.all.length - core.using.length)} more for development` : ''}, so a change there reaches the most of the repository.${isolated.length ? ` ${isolated.map((p) => code(p.name)).join(', ')} ${agree(isolated.length, 'neither depends on another package nor is depended on', 'neither depend on another package nor are depended on')}.` : ''}`,
  );
  return parts.join('\n\n');
}
