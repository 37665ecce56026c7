import { readFileSync, watch } from 'node:fs';
import { basename } from 'node:path';
import { federationPaths } from '../../core/layout.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { loadConfig } from '../../infra/config/load-config.js';
import type { ServeEvent } from './serve-events.js';

/** The config of a running server as the file is now. */
export interface ConfigWatch {
  /**
   * The config as the file is at this moment: read again when its text changed, since a change is seen
   * by the watch only a moment later — a team onboarded with its own agent is launched with it even when
   * its mission arrives right behind the config's edit.
   */
  current(): FederationConfig;
  stop(): void;
}

/**
 * The config as it changes while serving (`fed schedule add`, a team onboarded with its agent, an edit):
 * schedules follow it, and each launch reads `current()`. A config that does not load is said, and the
 * server goes on with what it had.
 */
export function watchConfig(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  initial: FederationConfig,
  onConfig: (config: FederationConfig) => void,
  emit: (event: ServeEvent) => void,
): ConfigWatch {
  const file = federationPaths(root).config;
  let timer: NodeJS.Timeout | undefined;
  let last = readFileQuietly(file);
  let config = initial;
  const reload = () => {
    const text = readFileQuietly(file);
    if (text === last) return;
    last = text;
    try {
      config = loadConfig(root, env).config;
    } catch (error) {
      emit({
        kind: 'warning',
        at: new Date().toISOString(),
        text: `${(error as Error).message}\nthe server goes on with the schedules it had and the teams' agents as they were; fix the file to change them`,
      });
      return;
    }
    onConfig(config);
  };
  // The folder, not the file: a config written atomically is a new file under the same name.
  const watcher = watch(root, { persistent: false }, (_event, name) => {
    if (name !== basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(reload, 100);
  }).on('error', () => undefined);
  return {
    current: () => {
      reload();
      return config;
    },
    stop: () => {
      clearTimeout(timer);
      watcher.close();
    },
  };
}

function readFileQuietly(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
