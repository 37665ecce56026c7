import { existsSync } from 'node:fs';
import { toJsonText } from '../../core/json-text.js';
import { federationPaths } from './file-layout.js';
import { emptyRegistry } from '../../core/schema/registry.js';
import { createFileExclusive } from '../../infra/fs/atomic-write.js';
import { readRegistry } from './registry-file.js';

/** `fed init`, before anything is written: a registry file already there must be a valid one. */
export function checkRegistryFile(root: string): void {
  if (existsSync(federationPaths(root).registry)) readRegistry(root);
}

/** `fed init`: an empty registry (`lockVersion` 0) unless one is there; the path when it was created. */
export function createRegistryFile(root: string): string[] {
  const file = federationPaths(root).registry;
  return createFileExclusive(file, toJsonText(emptyRegistry())) ? [file] : [];
}
