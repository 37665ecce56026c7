import { FedError, UnreadableFileError } from '../../core/errors.js';
import { readPermissionFix } from '../../infra/fs/fs-errors.js';

/**
 * The fix of a finding about a file that could not be read: the check's own `fix` mends the file's
 * content (restore it, move it aside), which a file fed may not read (EACCES) does not need — its
 * permissions do, and moving it aside would lose it.
 */
export function unreadableFix(error: FedError, fix: string): string {
  return (error instanceof UnreadableFileError && readPermissionFix(error.errno)) || fix;
}
