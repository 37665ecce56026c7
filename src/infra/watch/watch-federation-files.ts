import { basename, dirname, join } from 'node:path';
import { federationPaths } from '../../core/layout.js';
import type { SharedDirectoryWatchers } from './shared-directory-watchers.js';
import { watchFolder, type FolderListener } from './watch-folder.js';

/**
 * Watch the federation's own files, which are files at its root whatever the backend keeps elsewhere: the
 * plan (`.fed/plan.json`), the telemetry collector's state (`.fed/`) and the federation report
 * (`reportFile`, config `federationReport`, beside the config). Their folders are watched (fed replaces
 * files by rename), filtered to these names; `onChange(null)` for any of them. Returns the stop.
 */
export function watchFederationFiles(
  watchers: SharedDirectoryWatchers,
  root: string,
  reportFile: string,
  listener: FolderListener,
): () => void {
  const paths = federationPaths(root);
  const names = new Map<string, string[]>();
  for (const file of [paths.plan, paths.collectorState, join(root, reportFile)]) {
    const folder = dirname(file);
    names.set(folder, [...(names.get(folder) ?? []), basename(file)]);
  }
  const stops = [...names].map(([folder, files]) =>
    watchFolder(watchers, folder, {
      onChange: (name) => {
        if (name === null || files.includes(name)) listener.onChange(null);
      },
      onError: (error) => listener.onError(error),
    }),
  );
  return () => {
    for (const stop of stops) stop();
  };
}
