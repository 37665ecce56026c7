import type { Command } from 'commander';
import ms from 'ms';
import { listHosts, type HostView } from '../../apps/hosts/list-hosts.js';
import { renderTable } from '../../core/table.js';
import { federationContext, printJson, type CliIo } from '../io.js';

export function registerHosts(program: Command, io: CliIo): void {
  program
    .command('hosts')
    .description(
      'the machines serving the federation (JetStream): alive, stopped or lost, their last heartbeat, capacity, running agents and teams',
    )
    .option('--json', 'print as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const view = await listHosts(ctx.fed);
      if (options.json) return printJson(io, view);
      if (!view.shared) {
        io.stdout(
          `one host: this federation keeps its teams in files, so every team works on this machine (${view.host}); the JetStream backend serves a federation from several (docs/jetstream.md)\n`,
        );
        return;
      }
      if (view.hosts.length === 0) io.stdout('no host has served this federation yet; start one: fed serve\n');
      else
        io.stdout(
          renderTable(
            ['HOST', 'STATE', 'LAST HEARD', 'RUNNING', 'TEAMS', 'VERSION', 'ROOT'],
            view.hosts.map((host) => [
              host.name,
              host.state === 'lost' ? 'LOST' : host.state,
              `${ms(host.ageMs)} ago`,
              `${host.running.length}/${host.capacity}`,
              host.teams.join(', ') || '-',
              host.version,
              host.root,
            ]),
          ),
        );
      for (const { team, host } of view.unserved)
        io.stdout(`${team}: placed on ${host ?? 'no recorded host'}, where no fed serve has run yet\n`);
      const lost = view.hosts.filter((host: HostView) => host.state === 'lost' && host.teams.length);
      if (lost.length)
        io.stdout(
          `${lost.map((host) => host.teams.join(', ')).join(', ')}: host lost; move each to an alive host: fed team move <team> --to <host>\n`,
        );
    });
}
