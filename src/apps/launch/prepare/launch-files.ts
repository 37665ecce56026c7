import { writeFileAtomic } from '../../../infra/fs/atomic-write.js';
import type { Federation } from '../../../engine/context.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { toJsonText } from '../../../core/json-text.js';
import { workspacePaths } from '../../../core/layout.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';
import { renderLaunchPrompt, type PromptArchetype } from './launch-prompt.js';

/**
 * Write what a launched agent reads: the context file and the prompt (both replaced atomically). Not
 * fsynced: they are made anew by every launch from the registry, config and lifecycle, and read only by
 * the agent they were written for, which a crash of the machine ends too — while the agent waits for
 * each fsync to start (docs/operations.md, dispatch latency).
 */
export function writeLaunchFiles(
  fed: Federation,
  team: RegistryEntry,
  context: LaunchContext,
  archetype: PromptArchetype,
): { contextPath: string; promptPath: string; prompt: string } {
  const paths = workspacePaths(context.workspace);
  fed.folderForWrite(paths.launch, team);
  const prompt = renderLaunchPrompt(context, archetype);
  writeFileAtomic(paths.launchContext, toJsonText(context), { durable: false });
  writeFileAtomic(paths.launchPrompt, prompt, { durable: false });
  return { contextPath: paths.launchContext, promptPath: paths.launchPrompt, prompt };
}
