import { join, posix } from 'node:path';
import { exportsOf, type ApiEntry } from './area-api.js';
import { areaLinks, type AreaLinks } from './area-links.js';
import { isUnder, type Area } from './area-scope.js';
import { folderCommands, folderRole, type Manifest, readAnalysedText, type Survey } from 'fed/survey';
import { fileComment } from './doc-comments.js';

/**
 * What a document about one area says, gathered from its files: its purpose (manifest description,
 * README, the entry file's doc comment), its public API (each source file's exports with signatures,
 * entry files and the files other areas import first), its internal structure (files or sub-folders
 * with what their doc comments say they are), its links to other areas, its entry points, its tests and
 * how it is built. Reads at most MAX_READ of the area's files.
 */
export interface AreaFacts {
  area: Area;
  purpose: { description: string | null; readme: { path: string; text: string } | null; entryDoc: string | null };
  /** Source files with exports, in the order a reader should meet them. */
  api: { path: string; language: string; entries: ApiEntry[]; importedFromOutside: number }[];
  structure: { path: string; folder: boolean; files: number; lines: number; role: string | null }[];
  links: AreaLinks;
  entryPoints: { path: string; reason: string }[];
  /** The manifest that builds it: its own, else the nearest one above it. */
  build: { manifest: Manifest | null; own: boolean; commands: string[] };
  code: { files: number; lines: number; languages: string[] };
}

const MAX_READ = 300;
const MAX_STRUCTURE_FILES = 24;

/** The first paragraph of prose in a README: no heading, badge, HTML or code. */
function readmeParagraph(text: string): string | null {
  const paragraphs = text.split(/\n\s*\n/).map((p) => p.trim());
  const prose = paragraphs.find((p) => p !== '' && !/^(#|!\[|<|```|\[!\[|---|={3,}|-{3,}|\|)/.test(p));
  if (!prose) return null;
  // Quoted as the reader sees it: a link's text (`[git worktree](https://…)` is "git worktree"), and
  // Markdown's escapes taken off (`\[Next.js\]` is "[Next.js]"), so the quote's own escaping is the only one.
  const flat = prose
    .replace(/(?<!\\)\[((?:\\.|[^\]\\])*)\]\([^)]*\)/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>~])/g, '$1')
    .replace(/\s+/g, ' ');
  return flat.length > 400 ? `${flat.slice(0, 399).trimEnd()}…` : flat;
}

function relativeTo(area: Area, path: string): string {
  return area.path === '.' ? path : path.slice(area.path.length + 1);
}

/** Its files when there are few, else its sub-folders (below a lone `src/`) and the files beside them. */
function structureOf(area: Area, comments: ReadonlyMap<string, string | null>): AreaFacts['structure'] {
  const product = area.files.filter((f) => !f.test && f.language?.kind === 'code');
  if (product.length <= MAX_STRUCTURE_FILES)
    return product
      .map((f) => ({ path: f.path, folder: false, files: 1, lines: f.lines, role: comments.get(f.path) ?? null }))
      .sort((a, b) => a.path.localeCompare(b.path));
  let base = area.path;
  for (;;) {
    const below = new Set(product.map((f) => relativeTo({ ...area, path: base }, f.path).split('/')));
    const firsts = new Set([...below].map((parts) => (parts.length > 1 ? parts[0] : '')));
    const only = [...firsts][0];
    if (firsts.size !== 1 || !only) break;
    base = base === '.' ? only : `${base}/${only}`;
  }
  const rows = new Map<string, AreaFacts['structure'][number]>();
  for (const file of product) {
    const rest = relativeTo({ ...area, path: base }, file.path).split('/');
    const folder = rest.length > 1;
    const path = folder ? posix.join(base, rest[0]!) : file.path;
    const row = rows.get(path) ?? { path, folder, files: 0, lines: 0, role: folder ? folderRole(rest[0]!) : null };
    row.files++;
    row.lines += file.lines;
    if (!folder) row.role = comments.get(file.path) ?? null;
    rows.set(path, row);
  }
  return [...rows.values()].sort((a, b) => Number(b.folder) - Number(a.folder) || a.path.localeCompare(b.path));
}

export function gatherAreaFacts(area: Area, survey: Survey): AreaFacts {
  const links = areaLinks(area, survey);
  const own = new Set(area.files.map((f) => f.path));
  // Its own entry points: a package nested in its folder has its own area (see Area.files).
  const entryPaths = new Set(survey.entryPoints.filter((e) => own.has(e.path)).map((e) => e.path));
  const importedFromOutside = new Map<string, number>();
  for (const { from, to } of survey.graph.links)
    if (!own.has(from) && own.has(to)) importedFromOutside.set(to, (importedFromOutside.get(to) ?? 0) + 1);
  const sources = area.files
    .filter((f) => !f.test && f.analysed && f.language?.kind === 'code')
    .sort(
      (a, b) =>
        Number(entryPaths.has(b.path)) - Number(entryPaths.has(a.path)) ||
        (importedFromOutside.get(b.path) ?? 0) - (importedFromOutside.get(a.path) ?? 0) ||
        a.path.localeCompare(b.path),
    )
    .slice(0, MAX_READ);
  const comments = new Map<string, string | null>();
  const api: AreaFacts['api'] = [];
  for (const file of sources) {
    const text = readAnalysedText(join(survey.codebase, file.path));
    if (text === undefined) continue;
    const language = file.language!.name;
    comments.set(file.path, fileComment(text, language));
    const entries = exportsOf(text, language);
    if (entries.length)
      api.push({ path: file.path, language, entries, importedFromOutside: importedFromOutside.get(file.path) ?? 0 });
  }
  const readmeFile = area.files.find((f) => /^readme(\.md|\.rst|\.txt)?$/i.test(relativeTo(area, f.path)));
  const readmeText = readmeFile && readAnalysedText(join(survey.codebase, readmeFile.path));
  const readme = readmeText ? readmeParagraph(readmeText) : null;
  const nearest =
    area.manifest ??
    survey.manifests
      .filter((m) => isUnder(area.path, posix.dirname(m.path)))
      .sort((a, b) => b.path.length - a.path.length)[0] ??
    null;
  const ownManifest = area.manifest !== null;
  const codeFiles = area.files.filter((f) => !f.test && f.language?.kind === 'code');
  const languages = [...new Set(codeFiles.map((f) => f.language!.name))];
  const firstEntry = [...entryPaths][0];
  return {
    area,
    purpose: {
      description: area.manifest?.description ?? area.package?.description ?? null,
      readme: readme && readmeFile ? { path: readmeFile.path, text: readme } : null,
      entryDoc: firstEntry ? (comments.get(firstEntry) ?? null) : null,
    },
    api,
    structure: structureOf(area, comments),
    links,
    entryPoints: survey.entryPoints
      .filter((e) => entryPaths.has(e.path))
      .map((e) => ({ path: e.path, reason: e.reason })),
    build: {
      manifest: nearest,
      own: ownManifest,
      commands: nearest
        ? folderCommands(
            survey.codebase,
            survey.files,
            survey.manifests,
            survey.packageManager,
            posix.dirname(nearest.path),
            area.path,
          ).commands.map((c) => c.command)
        : [],
    },
    code: {
      files: codeFiles.length,
      lines: codeFiles.reduce((n, f) => n + f.lines, 0),
      languages,
    },
  };
}
