import { posix } from 'node:path';
import type { CodePackage, FileRecord, Manifest, Survey } from 'fed/survey';
import type { MissionTopic } from './mission-plan.js';

/**
 * The area a team's mission names — a package or a folder of the codebase, what `fed plan` writes into
 * each planned team's mission ("Document packages/api/") — so the document is about that area, not the
 * whole repository. A path the mission names in a statement is an area when it is a folder holding files
 * (code, or only assets or data);
 * a path inside a question or a how-does-X-work instruction ("How does `src/db/` cache?", "Explain how
 * `src/db/` caches") stays a topic to answer, and a file stays a topic.
 */
export interface Area {
  /** Its folder, relative to the codebase, without a trailing `/`. */
  path: string;
  /** The package's name, else the folder's. */
  name: string;
  /** The repository's package whose folder this is, when it is one. */
  package: CodePackage | null;
  /** The manifest in its folder, when it has one. */
  manifest: Manifest | null;
  /** Its files: those under its folder, but not inside a nested package of the repository. */
  files: FileRecord[];
  /** The mission topic it comes from. */
  topic: MissionTopic;
}

/** Whether `path` lies in `folder` (`.` holds everything). */
export const isUnder = (path: string, folder: string): boolean => folder === '.' || path.startsWith(`${folder}/`);

/** The deepest of `folders` holding `path` (a package of a monorepo owns the files no nested package does). */
export function ownerFolder(path: string, folders: readonly string[]): string | undefined {
  return folders.filter((dir) => isUnder(path, dir)).sort((a, b) => b.length - a.length)[0];
}

/** The areas the mission's topics name, and the topics left to answer as topics. */
export function findAreas(
  survey: Survey,
  topics: readonly MissionTopic[],
): { areas: Area[]; otherTopics: MissionTopic[] } {
  const areas: Area[] = [];
  const otherTopics: MissionTopic[] = [];
  const packageFolders = survey.packages.list.map((p) => p.path);
  for (const topic of topics) {
    const path = topic.paths.length === 1 && topic.terms.length === 0 ? topic.paths[0]! : undefined;
    // "Explain how `src/db/` caches" asks how something works there, as a question would.
    const statement = !/\?\s*$/.test(topic.source.trim()) && !topics.some((t) => t.source === topic.source && t.flow);
    const inside = path === undefined ? [] : survey.files.filter((f) => isUnder(f.path, path));
    // A folder of assets or data is an area all the same: its name is no word to search for.
    if (path === undefined || !statement || inside.length === 0 || survey.files.some((f) => f.path === path)) {
      otherTopics.push(topic);
      continue;
    }
    const pkg = survey.packages.list.find((p) => p.path === path) ?? null;
    // Files of a package nested inside this folder belong to that package's own area.
    const nested = packageFolders.filter((dir) => dir !== path && isUnder(dir, path));
    const files = inside.filter((f) => !nested.some((dir) => isUnder(f.path, dir)));
    areas.push({
      path,
      name: pkg?.name ?? posix.basename(path),
      package: pkg,
      manifest: survey.manifests.find((m) => posix.dirname(m.path) === path) ?? null,
      files,
      topic,
    });
  }
  return { areas, otherTopics };
}

/**
 * What another file of the codebase belongs to, seen from an area: the repository package holding it,
 * else its folder at the area's depth (`src/core/x.ts` seen from `src/cli` is `src/core`), else the file itself.
 */
export function neighbourOf(path: string, area: Area, survey: Survey): string {
  const pkg = ownerFolder(
    path,
    survey.packages.list.map((p) => p.path),
  );
  if (pkg !== undefined && pkg !== '.') return pkg;
  const depth = area.path.split('/').length;
  const parts = path.split('/');
  // A file shallower than the area (`src/index.ts` seen from `src/engine`) stands for itself.
  return parts.length > depth ? parts.slice(0, depth).join('/') : path;
}
