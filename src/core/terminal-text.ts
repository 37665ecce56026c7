/**
 * Text fed shows but did not write — a signal's fields, a registry entry, an agent's output, a file's
 * reason for being invalid — may carry control characters meant for the reader's terminal: ESC starts an
 * escape sequence (OSC 52 writes the operator's clipboard, others retitle the window, clear or rewrite
 * what was printed before), BEL rings, a lone CR returns to overwrite a line, C1 controls are escapes on
 * terminals that honour them, and bidirectional overrides reorder what is read. Each is shown as its
 * `\uXXXX` escape instead: readable, and the same escape JSON uses, so JSON output stays valid JSON that
 * parses to the same value. Newlines, tabs and CR LF line ends are kept.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const CONTROLS = new RegExp(`\\r(?!\\n)|(?!\\r)${CONTROL.source}`, 'g');

export function escapeControls(text: string): string {
  // Tested once without the global flag: almost all output has none, and then it is returned as it is.
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
