import { InvalidInputError } from './errors.js';

/**
 * Split a configured command (`agentCommand`, `--agent`) into an argument array the way a POSIX shell
 * would split words — spaces separate, single quotes keep everything, double quotes keep spaces and
 * allow `\"` and `\\`, a backslash escapes the next character — without ever running a shell, so nothing
 * in the string can expand, redirect or chain commands.
 */
export function splitCommand(command: string, what = 'agentCommand'): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const char = command[i]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && (command[i + 1] === '"' || command[i + 1] === '\\')) word += command[++i];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new InvalidInputError(`${what} has an unclosed ${quote} quote: ${command}`);
  if (inWord) words.push(word);
  if (words.length === 0)
    throw new InvalidInputError(`${what} is empty; set it in federate.config.json or pass --agent <command>`);
  return words;
}
