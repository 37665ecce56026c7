import { code, folderRef } from './markdown-text.js';
import { neighbourOf, type Area } from './area-scope.js';
import { resolveRelative, type Survey } from 'fed/survey';

/**
 * How an area depends on the rest of the codebase, from the survey's import graph: the other areas its
 * files import (out) and those importing it (in), each with the file-level imports behind the link; the
 * external packages its files import; the relative imports naming no file of the codebase (code copied
 * out of a larger project, or generated files not checked in); and the test files that exercise it —
 * inside its folder, or elsewhere importing its files or its package.
 */
export interface AreaLink {
  /** The other area: a package folder, a folder at the area's depth, or a file above that depth. */
  area: string;
  /** The other area is a single file. */
  file: boolean;
  imports: number;
  /** The files on the other side, most imported first. */
  files: string[];
}

export interface AreaLinks {
  out: AreaLink[];
  in: AreaLink[];
  external: { name: string; files: number }[];
  /** Relative specifiers that resolve to no file, by how many of the area's files use them. */
  unresolved: { specifier: string; files: number }[];
  tests: { inside: string[]; outside: string[] };
}

const SCRIPT = new Set(['TypeScript', 'JavaScript']);

function grouped(pairs: readonly [string, string][], paths: ReadonlySet<string>): AreaLink[] {
  const byArea = new Map<string, Map<string, number>>();
  for (const [area, file] of pairs) {
    const files = byArea.get(area) ?? byArea.set(area, new Map()).get(area)!;
    files.set(file, (files.get(file) ?? 0) + 1);
  }
  return [...byArea]
    .map(([area, files]) => ({
      area,
      file: paths.has(area),
      imports: [...files.values()].reduce((n, c) => n + c, 0),
      files: [...files].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([f]) => f),
    }))
    .sort((a, b) => b.imports - a.imports || a.area.localeCompare(b.area));
}

export function areaLinks(area: Area, survey: Survey): AreaLinks {
  const own = new Set(area.files.map((f) => f.path));
  const out: [string, string][] = [];
  const into: [string, string][] = [];
  for (const { from, to } of survey.graph.links) {
    if (own.has(from) && !own.has(to)) out.push([neighbourOf(to, area, survey), to]);
    if (!own.has(from) && own.has(to)) into.push([neighbourOf(from, area, survey), from]);
  }
  const paths = new Set(survey.files.map((f) => f.path));
  const external = new Map<string, number>();
  const unresolved = new Map<string, number>();
  const code = area.files.filter((f) => !f.test && f.imports.length);
  for (const file of code) {
    for (const { name } of survey.graph.external) {
      const uses = file.imports.some((s) => s === name || s.startsWith(`${name}/`) || s.startsWith(`${name}.`));
      if (uses) external.set(name, (external.get(name) ?? 0) + 1);
    }
    if (!SCRIPT.has(file.language?.name ?? '')) continue;
    for (const specifier of file.imports.filter((s) => s.startsWith('.')))
      if (!resolveRelative(file.path, specifier, paths))
        unresolved.set(specifier, (unresolved.get(specifier) ?? 0) + 1);
  }
  const byCount = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const packageName = area.package?.name;
  // Python's `tokens.sign` and Go's `example.com/shop/internal/orders` name the area by its folder.
  const namesArea = (specifier: string, language: string | undefined) =>
    language === 'Python'
      ? `${specifier.replace(/\./g, '/')}/`.startsWith(`${area.path}/`)
      : language === 'Go' && (specifier === area.path || specifier.endsWith(`/${area.path}`));
  const outside = survey.files
    .filter((f) => f.test && !own.has(f.path))
    .filter(
      (f) =>
        (packageName !== undefined && f.imports.some((s) => s === packageName || s.startsWith(`${packageName}/`))) ||
        f.imports.some((s) =>
          s.startsWith('.') ? own.has(resolveRelative(f.path, s, paths) ?? '') : namesArea(s, f.language?.name),
        ),
    )
    .map((f) => f.path);
  return {
    out: grouped(out, paths),
    in: grouped(into, paths),
    external: byCount(external).map(([name, files]) => ({ name, files })),
    unresolved: byCount(unresolved).map(([specifier, files]) => ({ specifier, files })),
    tests: { inside: area.files.filter((f) => f.test && f.language?.kind === 'code').map((f) => f.path), outside },
  };
}

/** The other area as Markdown: a file as itself (`main.go`), a folder with its slash (`src/core/`). */
export const linkRef = (link: AreaLink): string => (link.file ? code(link.area) : folderRef(link.area));
