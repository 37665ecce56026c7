import { ConfigValidationError, FedError, type ValidationProblem } from '../../core/errors.js';
import { parseJsonText, withoutByteOrderMark } from '../../core/json-text.js';
import { readTextFile } from '../fs/read-json-file.js';
import { federationPaths } from '../../core/layout.js';
import { configSchema, type FederationConfig } from '../../core/schema/config.js';
import { zodProblems } from '../../core/schema/problems.js';
import { findUnknownKeys } from '../../core/schema/unknown-keys.js';
import { applyEnvOverrides, type EnvOverride } from './env-overrides.js';

export interface LoadedConfig {
  config: FederationConfig;
  /** Non-fatal findings, e.g. unknown keys with the closest known one. */
  warnings: string[];
  file: string;
  /** False when the file is absent and every value is a default. */
  exists: boolean;
}

/**
 * Validate a parsed `federate.config.json` value: defaults applied, every problem collected (not just
 * the first) into one ConfigValidationError, unknown keys turned into warnings with a suggestion.
 */
export function validateConfig(raw: unknown, file: string): { config: FederationConfig; warnings: string[] } {
  const parsed = configSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) throw new ConfigValidationError(file, zodProblems(parsed.error));
  const warnings = findUnknownKeys(configSchema, raw).map(
    ({ path, suggestion }) =>
      `${file}: unknown key "${path}" is ignored${suggestion ? ` — did you mean "${suggestion}"?` : ''}`,
  );
  return { config: parsed.data, warnings: [...warnings, ...unenforcedPolicies(parsed.data, file)] };
}

/**
 * The network policies the config sets that no sandbox will enforce (`agent.sandbox` false): the launch of
 * a team that studies the codebase refuses them (NETWORK_POLICY_UNAVAILABLE), said here already.
 */
function unenforcedPolicies(config: FederationConfig, file: string): string[] {
  if (config.agent.sandbox) return [];
  const set: [string, unknown][] = [
    ['agent.network', config.agent.network],
    ...Object.entries(config.agent.teams).map(([id, team]): [string, unknown] => [
      `agent.teams.${id}.network`,
      team.network,
    ]),
  ];
  return set
    .filter(([, policy]) => policy !== undefined && policy !== 'open')
    .map(
      ([field]) =>
        `${file}: ${field} is not enforced while agent.sandbox is false: a launch of a team that studies the codebase is refused; turn the sandbox on, or set ${field} to "open"`,
    );
}

/**
 * The last config text validated, and the result: one command loads the config several times (the CLI,
 * the backend, the lifecycle), and validating it is most of the cost. The file is still read every time,
 * so a changed config is validated again.
 */
let lastValidated: { file: string; text: string | undefined; result: ReturnType<typeof validateConfig> } | undefined;

/**
 * Load the federation config: file (or defaults when absent) → validation → environment overrides, the
 * backends' among them (`backendOverrides`: the adapter registry's, src/adapters/index.ts `loadFederationConfig`).
 */
export function loadConfig(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  backendOverrides: readonly EnvOverride[] = [],
): LoadedConfig {
  const file = federationPaths(root).config;
  const text = readConfigText(file);
  if (lastValidated?.file !== file || lastValidated.text !== text)
    lastValidated = { file, text, result: validateConfig(parseConfigText(text, file), file) };
  const { config, warnings } = lastValidated.result;
  return {
    config: applyEnvOverrides(config, env, backendOverrides),
    warnings: [...warnings],
    file,
    exists: text !== undefined,
  };
}

function readConfigText(file: string): string | undefined {
  // A config is a few hundred bytes; 1 MiB is generous, and a FIFO or directory there is reported.
  return readTextFile(file, 'federate.config.json must be a JSON file; replace it with one (see fed config show)', {
    maxBytes: 1024 * 1024,
  });
}

/**
 * The config file's JSON as far as it can be read, unvalidated — for a config that does not load (`fed
 * doctor` looks for the backend it names): `{}` when it is absent, undefined when it is not JSON or cannot be read.
 */
export function readConfigJson(root: string): unknown {
  const file = federationPaths(root).config;
  try {
    return parseConfigText(readConfigText(file), file);
  } catch (error) {
    if (error instanceof FedError) return undefined;
    throw error;
  }
}

/**
 * The config file's JSON (`{}` when it is absent); invalid JSON is a ConfigValidationError naming the line
 * and column. A leading byte-order mark is accepted: Windows editors save the file with one.
 */
export function parseConfigText(text: string | undefined, file: string): unknown {
  let raw: unknown = {};
  if (text !== undefined) {
    const json = parseJsonText(withoutByteOrderMark(text));
    if (!json.ok) {
      const problem: ValidationProblem = {
        path: `line ${json.line}, column ${json.column}`,
        message: `not valid JSON (${json.message})`,
      };
      throw new ConfigValidationError(file, [problem]);
    }
    raw = json.value;
  }
  return raw;
}
