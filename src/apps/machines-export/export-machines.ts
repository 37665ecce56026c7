import { ensureDirectory } from '../../infra/fs/ensure-directory.js';
import { join } from 'node:path';
import type { MachineEntry } from '../../../machines/catalog.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { toJsonText } from '../../core/json-text.js';
import { describeMachine, type MachineDescription } from './describe-machine.js';
import { renderDot } from './render-dot.js';
import { renderMarkdown } from './render-markdown.js';
import { renderMermaid } from './render-mermaid.js';

/**
 * `fed machines export` and `npm run diagrams`: machine definitions → Mermaid, DOT or JSON, as text or
 * as one file per machine. `diagrams/` in the repository is the Mermaid export; a test regenerates it in
 * memory and fails when the committed files differ.
 */
export const EXPORT_FORMATS = ['mermaid', 'dot', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const renderers: Record<ExportFormat, { extension: string; render: (machine: MachineDescription) => string }> = {
  mermaid: { extension: 'mmd', render: renderMermaid },
  dot: { extension: 'dot', render: renderDot },
  json: { extension: 'json', render: toJsonText },
};

/** All machines in one text: diagrams one after another, or one JSON array. */
export function exportText(entries: readonly MachineEntry[], format: ExportFormat): string {
  const machines = entries.map(describeMachine);
  if (format === 'json') return toJsonText(machines);
  return machines.map(renderers[format].render).join('\n');
}

/**
 * One file per machine, by file name. Mermaid also gets a Markdown page with the diagram in a fence,
 * which is what GitHub renders (it shows a bare `.mmd` as text).
 */
export function exportFiles(entries: readonly MachineEntry[], format: ExportFormat): Map<string, string> {
  const files = new Map<string, string>();
  for (const machine of entries.map(describeMachine)) {
    files.set(`${machine.id}.${renderers[format].extension}`, renderers[format].render(machine));
    if (format === 'mermaid') files.set(`${machine.id}.md`, renderMarkdown(machine));
  }
  return files;
}

/**
 * Write the files into `dir` (created if missing), each atomically; returns the paths written. A file
 * where `dir` or a folder above it belongs is refused as such (ENOTDIR), naming the path.
 */
export function writeExportFiles(dir: string, files: ReadonlyMap<string, string>): string[] {
  ensureDirectory(dir);
  return [...files].map(([name, content]) => {
    const path = join(dir, name);
    writeFileAtomic(path, content);
    return path;
  });
}
