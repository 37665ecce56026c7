import { MAX_HEAD_BYTES } from './request-head.js';

/** `head`: the heads up to the final one, rewritten; `rest`: what follows, untouched (not copied). */
export type AnswerReading = 'incomplete' | 'malformed' | { head: Buffer; rest: Buffer };

/**
 * The start of a server's answer as the client gets it through the proxy: the same bytes, save that the
 * final head says `Connection: close` (its own Connection and Keep-Alive dropped), since the proxy closes
 * after one answer and a client told nothing would send its next request into a closing connection.
 * Interim answers (`100 Continue`) pass untouched; the body after the head, raw. 'incomplete' until the
 * final head is whole; 'malformed' when the server does not speak HTTP/1.
 */
export function closingAnswer(bytes: Buffer): AnswerReading {
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) return bytes.length - at > MAX_HEAD_BYTES ? 'malformed' : 'incomplete';
    const lines = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]!);
    if (!status) return 'malformed';
    const code = Number(status[1]);
    if (code >= 100 && code < 200 && code !== 101) {
      at = end + 4;
      continue;
    }
    const kept = lines.filter((line, i) => i === 0 || !/^(connection|keep-alive)[ \t]*:/i.test(line));
    return {
      head: Buffer.concat([
        bytes.subarray(0, at),
        Buffer.from(`${[...kept, 'Connection: close'].join('\r\n')}\r\n\r\n`, 'latin1'),
      ]),
      rest: bytes.subarray(end + 4),
    };
  }
}
