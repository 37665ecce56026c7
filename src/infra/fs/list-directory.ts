import { readdirSync } from 'node:fs';

/** The names in `dir`; a folder that does not exist (yet) is empty — boxes and quarantines are made on first use. */
export function listDirectory(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
