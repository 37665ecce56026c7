import { writeFileAtomic, type WriteOptions } from '../../infra/fs/atomic-write.js';
import { toJsonText } from '../../core/json-text.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';
import { bridgeStateSchema, type BridgeState } from '../../core/schema/chat.js';

/** The bridge's state file, or undefined before its first run. A broken file is reported, never reset. */
export function readBridgeState(file: string): BridgeState | undefined {
  return readJsonFile(file, bridgeStateSchema);
}

export function writeBridgeState(file: string, state: BridgeState, options: WriteOptions = {}): void {
  writeFileAtomic(file, toJsonText(state), options);
}
