import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

/** A tiny page in place of the bundle wt-ui-client builds into dist/ui/. */
export function tinyAssets(): string {
  const dir = tempDir('fed-ui-assets-');
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>fed</title><script src="/assets/app.js"></script>');
  mkdirSync(join(dir, 'diagrams'));
  writeFileSync(join(dir, 'app.js'), 'console.log("fed")');
  writeFileSync(join(dir, 'diagrams', 'coding.json'), '{}');
  return dir;
}

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** Reads an event stream until `until` says it has what it waits for. */
export async function readEvents(response: Response, until: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let text = '';
  while (!until(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const fields = Object.fromEntries(
        block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      );
      if (fields.event) events.push({ id: fields.id, event: fields.event, data: fields.data ?? '' });
    }
  }
  await reader.cancel();
  return events;
}

/** Where a started dashboard answers, and the session cookie its page would hold (named by its port). */
export function uiSession(server: { url: string; token: string }): { origin: string; cookie: string } {
  const url = new URL(server.url);
  return { origin: url.origin, cookie: `fed_ui_${url.port}=${server.token}` };
}
