import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { demoSteps } from '../../demo/demo-steps.js';
import type { CliIo } from '../io.js';
import { runCli } from '../program.js';

/**
 * `fed demo`: run a small federation end to end in a temp directory, showing each command as a user
 * would type it followed by its output. The steps are real CLI invocations.
 */
export function registerDemo(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('run a federation end to end in a temp directory, printing each command and its output')
    .option('--dir <dir>', 'directory to create the federation in (default: a new temp directory)')
    .action(async (options: { dir?: string }) => {
      const dir = options.dir ? resolve(io.cwd, options.dir) : mkdtempSync(join(tmpdir(), 'fed-demo-'));
      io.stdout(`# fed demo in ${dir}\n`);
      for (const step of demoSteps()) {
        io.stdout(`\n# ${step.comment}\n$ fed ${step.args.map(shellQuote).join(' ')}\n`);
        const code = await runCli(['--root', dir, ...step.args], { ...io, cwd: dir });
        if (code !== 0) throw new Error(`demo step "fed ${step.args.map(shellQuote).join(' ')}" exited ${code}`);
      }
      io.stdout(`\n# done: the federation is in ${dir}\n`);
    });
}

/** Quote an argument for display so the printed command can be pasted into a shell. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
