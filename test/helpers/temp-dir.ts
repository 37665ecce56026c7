import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A fresh real directory for one test (in `parent`, the system's temporary directory unless named), removed when the test finishes. */
export function tempDir(prefix = 'fed-test-', parent = tmpdir()): string {
  const dir = realpathSync(mkdtempSync(join(parent, prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A fresh directory for one test outside the system's temp dirs, which fed's sandbox makes private to the
 * agent (so nothing in them is ever in its view): where a test puts what the sandbox must hide or keep
 * read-only on its own — a user's home with canary credentials, a remote repository. Searchable by other
 * users (the unprivileged rounds run fed as one), in /var/lib as root, else in the user's cache folder.
 */
export function tempDirOutsideTemp(prefix = 'fed-test-'): string {
  const parent = process.getuid?.() === 0 ? '/var/lib/fed-tests' : join(homedir(), '.cache', 'fed-tests');
  mkdirSync(parent, { recursive: true });
  chmodSync(parent, 0o755);
  const dir = tempDir(prefix, parent);
  chmodSync(dir, 0o755);
  return dir;
}
