import type { Command } from 'commander';
import { runDoctorAt, type DoctorFinding, type DoctorReport } from '../../apps/doctor/doctor.js';
import { locateFederation } from '../../apps/init/locate.js';
import { CliExit, globalOptions, printJson, type CliIo } from '../io.js';

function renderFinding(finding: DoctorFinding): string {
  const outcome = finding.fixed ? '  fixed\n' : finding.fixError ? `  could not fix: ${finding.fixError}\n` : '';
  return `${finding.check}${finding.team ? ` (${finding.team})` : ''}: ${finding.problem}\n  fix: ${finding.fix}\n${outcome}`;
}

function renderSummary(report: DoctorReport, fix: boolean): string {
  const total = report.findings.length;
  if (total === 0) return `no problems found in ${report.root}\n`;
  const fixed = report.findings.filter((f) => f.fixed).length;
  const fixable = report.findings.filter((f) => f.fixable && !f.fixed).length;
  const hint = !fix && fixable > 0 ? `; ${fixable} can be fixed with: fed doctor --fix` : '';
  return `${total} problem${total === 1 ? '' : 's'}${fix ? `, ${fixed} fixed` : ''}${hint}\n`;
}

/** Whether the federation runs by itself: the `fed serve` processes that hold it, or none. */
function renderServers(report: DoctorReport): string {
  if (report.servers.length === 0)
    return 'fed serve: not running — teams are launched only by fed launch and fed run (start it: fed serve)\n';
  return report.servers
    .map(
      (s) =>
        `fed serve: running on ${s.host} (pid ${s.pid} since ${s.since}${s.checked ? '' : s.heardAt ? `; another host: heard from at ${s.heardAt}` : '; another host: its lease says so'})\n`,
    )
    .join('');
}

export function registerDoctor(program: Command, io: CliIo): void {
  program
    .command('doctor')
    .description('check the federation for what crashes, copies and hands leave behind; --fix repairs what fed can')
    .option('--fix', 'repair what can be repaired safely')
    .option('--json', 'print the report as JSON')
    .action(async (options: { fix?: boolean; json?: boolean }, command: Command) => {
      // Not through the command context, which refuses a config that does not load: the doctor reports it.
      const { root } = locateFederation({ root: globalOptions(command).root, env: io.env, cwd: io.cwd });
      const report = await runDoctorAt(root, { env: io.env, fix: options.fix });
      if (options.json) printJson(io, report);
      else
        io.stdout(
          report.findings.map(renderFinding).join('') +
            report.notes.map((note) => `note: ${note}\n`).join('') +
            report.warnings.map((warning) => `warning: ${warning}\n`).join('') +
            renderServers(report) +
            renderSummary(report, Boolean(options.fix)),
        );
      if (!report.healthy) throw new CliExit(1);
    });
}
