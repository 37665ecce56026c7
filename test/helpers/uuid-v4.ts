import { validate, version } from 'uuid';

/** Whether `id` is a version 4 UUID (RFC 9562's variant), in lower case as fed writes ids. */
export function isUuidV4(id: string): boolean {
  return validate(id) && version(id) === 4 && id === id.toLowerCase();
}
