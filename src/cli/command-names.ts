/**
 * fed's top-level commands, in help order, and which one an argument list asks for. A module of its own,
 * free of imports, because two places need it before anything else loads: the program (to load only the
 * command that runs) and the `fed` bin (to pick that command's code cache).
 */
export const COMMAND_NAMES = [
  'init',
  'team',
  'signal',
  'schema',
  'event',
  'actors',
  'plan',
  'run',
  'serve',
  'schedule',
  'hosts',
  'launch',
  'runs',
  'monitor',
  'chat',
  'config',
  'machines',
  'deliverable',
  'demo',
  'doctor',
  'log',
  'migrate',
  'mcp',
  'ui',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

/**
 * The commands with a bundle of their own, dist/bin/cli/<command>.cjs (scripts/bundle.mjs): the CLI with
 * only what that command reaches, so its start-up reads about half as much text and deserialises a code
 * cache a sixth smaller. `fed event` is what every agent runs at every step, `fed signal` and `fed team`
 * what agents and coordinators run most besides, `fed monitor` what a cron job runs every few minutes
 * (its own bundle: 4 % of a cycle over 100 teams); the others share dist/bin/cli/main.cjs.
 */
export const OWN_BUNDLE_COMMANDS: readonly CommandName[] = ['event', 'signal', 'team', 'monitor'];

/**
 * The commands that launch agents and apply their events — the launcher — which run with fed's V8 tiering
 * (src/infra/v8/tiering.ts), set by the `fed` bin before it compiles the bundle: their work comes in short
 * bursts, and with V8's defaults about a fifth of a `fed run`'s CPU went to optimising code that had run
 * its last.
 */
export const TUNED_TIERING_COMMANDS: readonly CommandName[] = ['run', 'launch', 'demo'];

/**
 * The commands that run with a small young generation (src/infra/v8/young-generation.ts): `fed ui`, a
 * server that stays up, whose first board over a large federation would otherwise keep 32 MiB of young
 * space resident for the rest of its life.
 */
export const SMALL_YOUNG_GENERATION_COMMANDS: readonly CommandName[] = ['ui'];

/** The bundle, a file beside the `fed` bin, that runs what `argv` asks for (requestedCommand). */
export function bundleFileFor(requested: ReturnType<typeof requestedCommand>): string {
  return OWN_BUNDLE_COMMANDS.some((command) => command === requested) ? `${requested}.cjs` : 'main.cjs';
}

/**
 * What `argv` (without node and script) asks for: the command it names, `--version` for a bare version
 * request, or undefined when it names none (help, an unknown command).
 */
export function requestedCommand(argv: readonly string[]): CommandName | '--version' | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--root') i++;
    else if (arg.startsWith('--root=')) continue;
    else if (arg === '-V' || arg === '--version') return '--version';
    else if ((COMMAND_NAMES as readonly string[]).includes(arg)) return arg as CommandName;
    else break;
  }
  return undefined;
}
