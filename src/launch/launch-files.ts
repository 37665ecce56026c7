import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { ensureDirectory } from '../fs/ensure-directory.js';
import { parseJsonText, toJsonText } from '../fs/json-text.js';
import { workspacePaths } from '../layout.js';
import { codebaseBaselineSchema, type CodebaseBaseline, type LaunchContext } from '../schema/launch-context.js';
import { renderLaunchPrompt } from './launch-prompt.js';

/** Write what a launched agent reads: the context file and the prompt (both replaced atomically). */
export function writeLaunchFiles(context: LaunchContext): { contextPath: string; promptPath: string } {
  const paths = workspacePaths(context.workspace);
  ensureDirectory(paths.launch);
  writeFileAtomic(paths.launchContext, toJsonText(context));
  writeFileAtomic(paths.launchPrompt, renderLaunchPrompt(context));
  return { contextPath: paths.launchContext, promptPath: paths.launchPrompt };
}

export function writeBaseline(workspace: string, baseline: CodebaseBaseline): void {
  const paths = workspacePaths(workspace);
  ensureDirectory(paths.launch);
  writeFileAtomic(paths.launchBaseline, toJsonText(baseline));
}

/** The baseline of the running launch, or undefined when there is none (or it cannot be read). */
export function readBaseline(workspace: string): CodebaseBaseline | undefined {
  let text: string;
  try {
    text = readFileSync(workspacePaths(workspace).launchBaseline, 'utf8');
  } catch {
    return undefined;
  }
  const json = parseJsonText(text);
  if (!json.ok) return undefined;
  const parsed = codebaseBaselineSchema.safeParse(json.value);
  return parsed.success ? parsed.data : undefined;
}
