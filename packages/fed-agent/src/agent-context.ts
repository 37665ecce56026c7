import { isAbsolute, relative } from 'node:path';
import {
  type BoundedRead,
  InvalidInputError,
  type LaunchContext,
  launchContextSchema,
  parseJsonText,
  readFileBounded,
  zodProblemText,
} from 'fed/agent';

/**
 * What `fed launch` hands the built-in agent: `FED_LAUNCH_CONTEXT` names the launch context file (the
 * prompt beside it is for LLM agents). The agent writes only inside its workspace, so a context whose
 * output paths lie elsewhere is refused before anything is read or written.
 */
const HOW_TO_RUN =
  'fed-agent is started by `fed launch --team <team>`, which writes <workspace>/.fed/launch/context.json and points FED_LAUNCH_CONTEXT at it';

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

export function readLaunchContext(env: NodeJS.ProcessEnv): LaunchContext {
  const file = env.FED_LAUNCH_CONTEXT;
  if (!file) throw new InvalidInputError(`FED_LAUNCH_CONTEXT is not set; ${HOW_TO_RUN}`);
  let read: BoundedRead;
  try {
    read = readFileBounded(file, { maxBytes: 1024 * 1024 });
  } catch {
    read = { ok: false, problem: 'ENOENT' };
  }
  if (!read.ok)
    throw new InvalidInputError(
      `cannot read the launch context ${file} (FED_LAUNCH_CONTEXT): ${read.problem}; ${HOW_TO_RUN}`,
    );
  const text = read.bytes.toString('utf8');
  const json = parseJsonText(text);
  if (!json.ok)
    throw new InvalidInputError(
      `launch context ${file} is not JSON (line ${json.line}, column ${json.column}: ${json.message})`,
    );
  const parsed = launchContextSchema.safeParse(json.value, { reportInput: true });
  if (!parsed.success) {
    throw new InvalidInputError(
      `launch context ${file} is invalid:\n  - ${zodProblemText(parsed.error, { separator: '\n  - ' })}`,
    );
  }
  const context = parsed.data;
  if (env.FED_TEAM && env.FED_TEAM !== context.team) {
    throw new InvalidInputError(
      `FED_TEAM is "${env.FED_TEAM}" but the launch context ${file} is for team "${context.team}"; relaunch with fed launch`,
    );
  }
  for (const [field, path] of [
    ['deliverablePath', context.deliverablePath],
    ['learningLogPath', context.learningLogPath],
  ] as const) {
    if (!isInside(context.workspace, path)) {
      throw new InvalidInputError(
        `launch context ${file}: ${field} ${path} is outside the team workspace ${context.workspace}; fed-agent writes only inside its workspace`,
      );
    }
  }
  return context;
}
