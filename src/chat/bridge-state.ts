import { writeFileAtomic, type WriteOptions } from '../fs/atomic-write.js';
import { toJsonText } from '../fs/json-text.js';
import { readJsonFile } from '../fs/read-json-file.js';
import { bridgeStateSchema, type BridgeState } from '../schema/chat.js';

/** The bridge's state file, or undefined before its first run. A broken file is reported, never reset. */
export function readBridgeState(file: string): BridgeState | undefined {
  return readJsonFile(file, bridgeStateSchema);
}

export function writeBridgeState(file: string, state: BridgeState, options: WriteOptions = {}): void {
  writeFileAtomic(file, toJsonText(state), options);
}
