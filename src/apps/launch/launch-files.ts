import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';
import { toJsonText } from '../../core/json-text.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';
import { workspacePaths } from '../../core/layout.js';
import { codebaseBaselineSchema, type CodebaseBaseline, type LaunchContext } from '../../core/schema/launch-context.js';
import { renderLaunchPrompt, type PromptArchetype } from './launch-prompt.js';

/** Write what a launched agent reads: the context file and the prompt (both replaced atomically). */
export function writeLaunchFiles(context: LaunchContext, archetype: PromptArchetype): { contextPath: string; promptPath: string; prompt: string } {
  const paths = workspacePaths(context.workspace);
  ensureDirectory(paths.launch);
  const prompt = renderLaunchPrompt(context, archetype);
  writeFileAtomic(paths.launchContext, toJsonText(context));
  writeFileAtomic(paths.launchPrompt, prompt);
  return { contextPath: paths.launchContext, promptPath: paths.launchPrompt, prompt };
}

export function writeBaseline(workspace: string, baseline: CodebaseBaseline): void {
  const paths = workspacePaths(workspace);
  ensureDirectory(paths.launch);
  writeFileAtomic(paths.launchBaseline, toJsonText(baseline));
}

/** The baseline of the running launch, or undefined when there is none (or it cannot be read). */
export function readBaseline(workspace: string): CodebaseBaseline | undefined {
  try {
    return readJsonFile(workspacePaths(workspace).launchBaseline, codebaseBaselineSchema);
  } catch {
    // A broken baseline cannot prove a modification; the check after the agent exits still runs.
    return undefined;
  }
}
