import type { Command } from 'commander';
import {
  addedMessage,
  addSchedule,
  describeNext,
  describeTrigger,
  removedMessage,
  listSchedules,
  removeSchedule,
} from '../../apps/schedule/schedules.js';
import { renderTable } from '../../core/table.js';
import { InvalidInputError } from '../../core/errors.js';
import { federationContext, printJson, type CliIo } from '../io.js';

export function registerSchedule(program: Command, io: CliIo): void {
  const schedule = program
    .command('schedule')
    .description('directives fed serve sends by itself: on a cron expression, or when a git ref moves');
  registerAdd(schedule, io);
  registerList(schedule, io);
  registerRemove(schedule, io);
}

interface AddOptions {
  to: string;
  subject: string;
  body?: string;
  cron?: string;
  tz?: string;
  onRef?: string;
  id?: string;
  json?: boolean;
}

function registerAdd(schedule: Command, io: CliIo): void {
  schedule
    .command('add')
    .description('add a schedule to federate.config.json (a running fed serve follows it)')
    .requiredOption('--to <team>', 'the team the directive goes to')
    .requiredOption('--subject <text>', "the directive's subject (one line)")
    .option('--body <text>', "the directive's body (default: its subject)")
    .option('--cron <expression>', 'fire on this cron expression: minute hour day month weekday, like "0 3 * * 1-5"')
    .option('--tz <zone>', "read --cron in this IANA time zone, like Europe/Paris (default: the server machine's)")
    .option('--on-ref <ref>', 'fire whenever this git ref of the codebase moves, like main')
    .option('--id <id>', 'its name (default: a slug of the subject)')
    .option('--json', 'print the schedule as JSON')
    .action(async (options: AddOptions, command: Command) => {
      if ((options.cron === undefined) === (options.onRef === undefined))
        throw new InvalidInputError('give exactly one trigger: --cron "<expression>" or --on-ref <ref>');
      if (options.tz !== undefined && options.cron === undefined)
        throw new InvalidInputError('--tz applies to --cron only');
      const ctx = federationContext(command, io);
      const added = await addSchedule(
        ctx.fed,
        {
          to: options.to,
          subject: options.subject,
          ...(options.body !== undefined ? { body: options.body } : {}),
          ...(options.cron !== undefined ? { cron: options.cron } : {}),
          ...(options.tz !== undefined ? { timezone: options.tz } : {}),
          ...(options.onRef !== undefined ? { onRef: options.onRef } : {}),
          ...(options.id !== undefined ? { id: options.id } : {}),
        },
        ADD_OPTIONS,
      );
      if (options.json) return printJson(io, added);
      io.stdout(`${addedMessage(added)}\n`);
    });
}

/** The option that gives each field of a schedule, for the refusal of a bad one. */
const ADD_OPTIONS = {
  to: '--to',
  subject: '--subject',
  body: '--body',
  cron: '--cron',
  timezone: '--tz',
  onRef: '--on-ref',
  id: '--id',
};

function registerList(schedule: Command, io: CliIo): void {
  schedule
    .command('list')
    .description('every schedule: its team, trigger, next firing and last firing')
    .option('--json', 'print as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const views = await listSchedules(ctx.fed);
      if (options.json) return printJson(io, views);
      if (views.length === 0) {
        io.stdout('no schedules; add one: fed schedule add --to <team> --subject "<directive>" --cron "0 3 * * *"\n');
        return;
      }
      io.stdout(
        renderTable(
          ['ID', 'TO', 'TRIGGER', 'NEXT', 'LAST FIRED', 'SUBJECT'],
          views.map((view) => [
            view.schedule.id,
            view.schedule.to,
            describeTrigger(view.schedule),
            describeNext(view),
            view.lastFired?.at ?? 'never',
            view.schedule.subject,
          ]),
        ),
      );
    });
}

function registerRemove(schedule: Command, io: CliIo): void {
  schedule
    .command('remove')
    .description('remove a schedule from federate.config.json (its firings stay in fed log)')
    .argument('<id>', 'the schedule to remove (fed schedule list names them)')
    .action(async (id: string, _options: object, command: Command) => {
      const ctx = federationContext(command, io);
      const removed = await removeSchedule(ctx.fed, id);
      io.stdout(`${removedMessage(removed)}\n`);
    });
}
