/** What a line splitter reports: a whole line, or that the line under way passed the limit. */
export interface LineEvents {
  line(text: string): void;
  /** The line under way is over `maxBytes`: it is dropped, up to its newline, without being kept in memory. */
  oversize(maxBytes: number): void;
}

/**
 * Cut a byte stream into newline-terminated lines (the MCP stdio framing), holding at most `maxBytes` of a
 * line: a longer line is reported once as it passes the limit and skipped to its end, so one huge line
 * neither fills the memory nor ends the connection. Returns what to call with each chunk read.
 */
export function lineSplitter(maxBytes: number, events: LineEvents): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let held = 0;
  let skipping = false;
  return (chunk) => {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const tail = chunk.subarray(start, end);
      start = end + 1;
      if (skipping || held + tail.length > maxBytes) {
        if (!skipping) events.oversize(maxBytes);
        skipping = false;
      } else {
        const line = Buffer.concat([...parts, tail]).toString('utf8');
        // A CRLF client's line, and an empty line (a keep-alive), are no messages of their own.
        const text = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (text.trim() !== '') events.line(text);
      }
      parts = [];
      held = 0;
    }
    const rest = chunk.subarray(start);
    if (skipping || rest.length === 0) return;
    if (held + rest.length > maxBytes) {
      events.oversize(maxBytes);
      skipping = true;
      parts = [];
      held = 0;
      return;
    }
    parts.push(rest);
    held += rest.length;
  };
}
