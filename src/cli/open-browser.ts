import { spawn } from 'node:child_process';

/**
 * Ask the system to open `url` in the person's browser (`xdg-open`, macOS `open`, Windows `start`),
 * detached: the opener outlives nothing of ours and its output is not ours to show. Resolves with a
 * warning when there is no opener (a server without a desktop), never fails.
 */
export function openBrowser(url: string): Promise<string | undefined> {
  const [file, ...args] =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', url]
        : ['xdg-open', url];
  return new Promise((resolve) => {
    const child = spawn(file!, args, { detached: true, stdio: 'ignore' });
    child.once('error', (error) => resolve(`cannot open a browser (${file}: ${error.message}); open the URL yourself`));
    child.once('spawn', () => {
      child.unref();
      resolve(undefined);
    });
  });
}
