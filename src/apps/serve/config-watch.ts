import { readFileSync, watch } from 'node:fs';
import { basename } from 'node:path';
import { federationPaths } from '../../core/layout.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { loadConfig } from '../../infra/config/load-config.js';
import type { ServeEvent } from './serve-events.js';

/**
 * The config as it changes while serving (`fed schedule add`, an edit): schedules follow it. A config
 * that does not load is said, and the server goes on with what it had.
 */
export function watchConfig(
  root: string,
  env: NodeJS.ProcessEnv | undefined,
  onConfig: (config: FederationConfig) => void,
  emit: (event: ServeEvent) => void,
): () => void {
  const file = federationPaths(root).config;
  let timer: NodeJS.Timeout | undefined;
  let last = readFileQuietly(file);
  const reload = () => {
    const text = readFileQuietly(file);
    if (text === last) return;
    last = text;
    try {
      onConfig(loadConfig(root, env).config);
    } catch (error) {
      emit({
        kind: 'warning',
        at: new Date().toISOString(),
        text: `${(error as Error).message}\nthe server goes on with the schedules it had; fix the file to change them`,
      });
    }
  };
  // The folder, not the file: a config written atomically is a new file under the same name.
  const watcher = watch(root, { persistent: false }, (_event, name) => {
    if (name !== basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(reload, 100);
  }).on('error', () => undefined);
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

function readFileQuietly(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
