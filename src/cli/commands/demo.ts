import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { makeDemoFolder, writeDemoCodebase } from '../../apps/demo/demo-codebase.js';
import { demoSteps } from '../../apps/demo/demo-steps.js';
import { DEFAULT_FEDERATION_REPORT } from '../../core/schema/config.js';
import { quote } from 'shell-quote';
import { CliExit, type CliIo } from '../io.js';
import { nonEmptyPath } from '../option-parsers.js';

/**
 * `fed demo` (`npm run demo`): a whole federation end to end on the built-in defaults — a sample monorepo
 * as the codebase, a plan of three deliverable teams (one per package) with their missions from meta, a
 * parallel run with the built-in agent, a monitoring cycle, and the federation report with its check —
 * each step printed as the command a user would type, followed by its output. The steps are real CLI
 * invocations, run by `runCli` (handed in by program.ts, which loads this module: importing it back would
 * make a cycle).
 */
export function registerDemo(
  program: Command,
  io: CliIo,
  runCli: (argv: readonly string[], io: CliIo) => Promise<number>,
): void {
  program
    .command('demo')
    .description('run a whole federation end to end in a temp directory, printing each command and its output')
    .option(
      '--dir <dir>',
      'a new or empty directory to create the federation in (default: a new temp directory)',
      nonEmptyPath('a folder'),
    )
    .option('--keep', 'keep the temp directory afterwards (a --dir is always kept)')
    .action(async (options: { dir?: string; keep?: boolean }) => {
      const started = Date.now();
      const dir = options.dir ? resolve(io.cwd, options.dir) : mkdtempSync(join(tmpdir(), 'fed-demo-'));
      if (options.dir) makeDemoFolder(dir);
      // A failed demo always keeps its federation, so what went wrong can be looked at.
      let keep = Boolean(options.dir || options.keep);
      // No collector runs for a demo: it exports telemetry only when asked to (FED_TELEMETRY_ENABLED=true).
      const env: NodeJS.ProcessEnv = { FED_TELEMETRY_ENABLED: 'false', ...io.env };
      io.stdout(
        `# fed demo in ${dir}\n\n# the codebase to study: a sample monorepo of three packages (${writeDemoCodebase(dir).join(', ')}) taken from fed's own sources\n`,
      );
      try {
        for (const step of demoSteps(DEFAULT_FEDERATION_REPORT)) {
          io.stdout(`\n# ${step.comment}\n`);
          if ('showFile' in step) {
            const text = readFileSync(join(dir, step.showFile), 'utf8').split('\n');
            io.stdout(`$ head -n ${step.lines} ${step.showFile}\n${text.slice(0, step.lines).join('\n')}\n`);
            continue;
          }
          io.stdout(`$ fed ${quote(step.args)}\n`);
          const code = await runCli(['--root', dir, ...step.args], { ...io, env, cwd: dir });
          if (code !== 0) {
            io.stderr(`fed demo: step "fed ${quote(step.args)}" exited ${code}; the federation is kept in ${dir}\n`);
            throw new CliExit(code);
          }
        }
      } catch (error) {
        keep = true;
        throw error;
      } finally {
        if (!keep) rmSync(dir, { recursive: true, force: true });
      }
      const where = keep ? `the federation is in ${dir}` : `${dir} was removed (use --keep to look around)`;
      io.stdout(`\n# done in ${((Date.now() - started) / 1000).toFixed(1)} s; ${where}\n`);
    });
}
