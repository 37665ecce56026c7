/**
 * The codebase survey (`import … from 'fed/survey'`): what a codebase holds — its files, languages,
 * manifests, packages, imports, entry points and build commands — read once and read-only
 * (src/engine/survey/). `fed plan` splits a federation's teams by it; the built-in agent
 * (packages/fed-agent) writes its documents and answers its questions from it.
 */
export { surveyCodebase, projectNames, type Survey } from './engine/survey/survey.js';
export { topLevelSources } from './engine/survey/walk-codebase.js';
export { readAnalysedText, type FileRecord } from './engine/survey/inventory.js';
export { folderRole, outsideProduct } from './engine/survey/folder-roles.js';
export type { Manifest } from './engine/survey/manifests.js';
export type { CodePackage, DependencyKind, PackageEdge } from './engine/survey/packages.js';
export { OTHER_GROUP, resolveRelative } from './engine/survey/import-graph.js';
export { folderCommands, type ProjectCommand } from './engine/survey/build-commands.js';
