import { join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import { stateOf } from '../../engine/actors/state-of.js';
import { archetypeFor } from '../../engine/archetypes/catalog.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { markdownFacts } from '../../engine/deliverable/markdown-facts.js';
import { markdownLimitProblem } from '../../engine/deliverable/markdown-limits.js';
import { MAX_DELIVERABLE_BYTES } from '../../engine/deliverable/check-deliverable.js';
import { readTextFile } from '../../infra/fs/read-json-file.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { readRunHistory } from '../../engine/runs/run-history.js';
import { runMonitorCycle } from '../monitor/monitor-cycle.js';
import type { TeamReport } from '../monitor/monitor-report.js';
import { statusOf } from '../../core/find-team.js';
import { META } from '../../core/schema/common.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';

/**
 * The federation report meta writes when the deliverable teams are done (`fed run`): one section per team
 * with its deliverable's title and summary, a link to it, the team's health and how long it took, and a
 * Mermaid diagram of the teams and the signals between them. It follows the documentation standards, so
 * `fed deliverable check` passes it.
 */
export interface FederationReport {
  path: string;
  markdown: string;
  teams: string[];
}

interface TeamSection {
  team: RegistryEntry;
  state: string;
  title: string | null;
  summary: string | null;
  deliverable: string | null;
  health: TeamReport | undefined;
  lifecycleMs: number | null;
  runs: number;
  agentMs: number;
  failure: string | null;
}

/** The deliverable teams the report covers: every one not archived. */
export async function reportedTeams(fed: Federation): Promise<RegistryEntry[]> {
  return (await fed.backend.registry.read()).teams.filter(
    (t) => archetypeFor(t.archetypeId)?.producesDocument === true && statusOf(t) !== 'archived',
  );
}

export async function buildFederationReport(
  fed: Federation,
  config: FederationConfig,
  now = new Date(),
): Promise<FederationReport> {
  const { root } = fed;
  const { backend } = fed;
  const teams = await reportedTeams(fed);
  const monitor = await runMonitorCycle(fed, { config, now });
  const sections: TeamSection[] = [];
  for (const team of teams)
    sections.push(
      await teamSection(
        root,
        backend,
        team,
        config,
        monitor.teams.find((r) => r.team === team.domainId),
      ),
    );
  const diagram = await signalDiagram(root, backend, teams, sections);
  const name = config.federationName ?? config.description ?? 'this federation';
  const complete = sections.filter((s) => s.state === 'complete').length;
  const slugger = new GithubSlugger();
  const heading = (s: TeamSection) => `Team ${s.team.domainId}`;
  const contents = ['Overview', ...sections.map(heading), 'Next steps'].map(
    (title) => `- [${title}](#${slugger.slug(title)})`,
  );
  const lines = [
    `# Federation report: ${name}`,
    '',
    `This report gathers the work of the ${sections.length} deliverable team${sections.length === 1 ? '' : 's'} of ${name}, written by meta on ${now.toISOString()}. ` +
      `${complete} of ${sections.length} finished their deliverable. ` +
      "Each section links to a team's deliverable and says how healthy the team is and how long it took.",
    '',
    '## Contents',
    '',
    ...contents,
    '',
    '## Overview',
    '',
    'Teams and the signals between them (arrows are labelled with how many of each type were sent):',
    '',
    '```mermaid',
    ...diagram,
    '```',
    '',
    ...sections.flatMap((s) => renderSection(root, s, heading(s))),
    '## Next steps',
    '',
    ...nextSteps(sections),
    '',
  ];
  return { path: join(root, config.federationReport), markdown: lines.join('\n'), teams: teams.map((t) => t.domainId) };
}

/** Build the report and write it (atomically) at the root; returns it. */
export async function writeFederationReport(
  fed: Federation,
  config: FederationConfig,
  now = new Date(),
): Promise<FederationReport> {
  const report = await buildFederationReport(fed, config, now);
  writeFileAtomic(report.path, report.markdown);
  return report;
}

async function teamSection(
  root: string,
  backend: FederationBackend,
  team: RegistryEntry,
  config: FederationConfig,
  health: TeamReport | undefined,
): Promise<TeamSection> {
  try {
    return await readTeamSection(root, backend, team, config, health);
  } catch (error) {
    // A team whose files cannot be read still gets its section, saying so: the report never drops a team.
    return {
      team,
      state: 'unknown',
      title: null,
      summary: null,
      deliverable: null,
      health,
      lifecycleMs: null,
      runs: 0,
      agentMs: 0,
      failure: `its files cannot be read: ${(error as Error).message}`,
    };
  }
}

async function readTeamSection(
  root: string,
  backend: FederationBackend,
  team: RegistryEntry,
  config: FederationConfig,
  health: TeamReport | undefined,
): Promise<TeamSection> {
  const lifecycle = await loadTeamLifecycle(team, backend.lifecycles);
  const { context } = lifecycle.snapshot;
  const state = stateOf(lifecycle.snapshot);
  const path = join(team.location, config.deliverable);
  // Written by the team's agent: read bounded and never blocking (a FIFO there must not hang `fed run`).
  const text = readTextFile(path, 'a deliverable must be a regular file; replace it, then run fed run again', {
    maxBytes: MAX_DELIVERABLE_BYTES,
  });
  const document = text === undefined ? { title: null, summary: null } : describeDocument(text);
  const started = context.enteredAt?.preparing ?? team.onboardedAt;
  const ended = context.enteredAt?.[state];
  const runs = readRunHistory(team.location);
  return {
    team,
    state,
    ...document,
    deliverable: text === undefined ? null : relative(root, path),
    health,
    lifecycleMs: lifecycle.snapshot.status === 'done' && ended ? Date.parse(ended) - Date.parse(started) : null,
    runs: runs.length,
    agentMs: runs.reduce((ms, r) => ms + (Date.parse(r.endedAt) - Date.parse(r.startedAt)), 0),
    failure: context.failure?.reason ?? null,
  };
}

/**
 * The title and the summary paragraph (the paragraph right after the title) of a deliverable; none for
 * a document beyond the Markdown limits (one `DOCUMENT_WRITTEN` refuses), whose parse could take seconds
 * or overflow the stack — an agent wrote it.
 */
function describeDocument(text: string): { title: string | null; summary: string | null } {
  if (markdownLimitProblem(text) !== undefined) return { title: null, summary: null };
  const { title, lead } = markdownFacts(text);
  return { title, summary: lead };
}

function renderSection(root: string, s: TeamSection, heading: string): string[] {
  const health = s.health ? (s.health.healthy ? 'healthy' : `unhealthy — ${s.health.reasons.join('; ')}`) : 'unknown';
  const items = [
    `- State: ${s.state}${s.failure ? ` (${s.failure})` : ''}`,
    `- Deliverable: ${s.deliverable ? `[${s.title ?? s.deliverable}](${encodeURI(s.deliverable)})` : 'none written'}`,
    `- Health: ${health}`,
    `- Duration: ${s.lifecycleMs === null ? 'not finished' : `${formatDuration(s.lifecycleMs)} from the start of its lifecycle to ${s.state}`}, ` +
      `${s.runs} agent run${s.runs === 1 ? '' : 's'} taking ${formatDuration(s.agentMs)}`,
    `- Workspace: ${relative(root, s.team.location) || '.'}`,
  ];
  return [`## ${heading}`, '', ...(s.summary ? [quoteText(s.summary), ''] : []), ...items, ''];
}

/** A summary quoted from a deliverable, as a blockquote whose Markdown cannot break the report's structure. */
function quoteText(text: string): string {
  return `> ${text.replace(/([\\`*_[\]#<>|])/g, '\\$1')}`;
}

function nextSteps(sections: readonly TeamSection[]): string[] {
  const failed = sections.filter((s) => s.state === 'failed');
  const unfinished = sections.filter((s) => s.state !== 'complete' && s.state !== 'failed');
  return [
    ...failed.map(
      (s) => `- Retry team ${s.team.domainId} (it failed): \`fed team retry ${s.team.domainId}\`, then \`fed run\`.`,
    ),
    ...unfinished.map(
      (s) => `- Finish team ${s.team.domainId} (it is ${s.state}): \`fed run --team ${s.team.domainId}\`.`,
    ),
    '- Read each deliverable linked above, and check one with `fed deliverable check <file>`.',
    '- See everything that happened, in time order: `fed log`.',
  ];
}

/**
 * A Mermaid flowchart: meta and the teams as nodes, an arrow per sender and recipient labelled with how
 * many signals of each type went that way — read from every inbox (the recipient's copy is the one that
 * counts: an outbox copy may be all that is left of an undeliverable signal).
 */
async function signalDiagram(
  root: string,
  backend: FederationBackend,
  teams: readonly RegistryEntry[],
  sections: readonly TeamSection[],
): Promise<string[]> {
  const ids = new Map<string, string>([[META, 'meta']]);
  teams.forEach((t, i) => ids.set(t.domainId, `t${i + 1}`));
  const label = (text: string) => text.replace(/"/g, "'");
  const nodes = [
    'flowchart LR',
    '  meta(("meta"))',
    ...sections.map((s) => `  ${ids.get(s.team.domainId)}["${label(`${s.team.domainId}: ${s.state}`)}"]`),
  ];
  const edges = new Map<string, Map<string, number>>();
  for (const party of [{ id: META, entry: undefined }, ...teams.map((t) => ({ id: t.domainId, entry: t }))]) {
    const owner = party.id;
    const inbox = await backend.signals.inbox(party).list();
    for (const { message } of inbox.signals) {
      if (!ids.has(message.from)) continue;
      const key = `${ids.get(message.from)} -->|"%"| ${ids.get(owner)}`;
      const types = edges.get(key) ?? edges.set(key, new Map()).get(key)!;
      types.set(message.type, (types.get(message.type) ?? 0) + 1);
    }
  }
  const arrows = [...edges].map(
    ([key, types]) =>
      `  ${key.replace('%', [...types].map(([type, n]) => `${n} ${type}${n === 1 ? '' : 's'}`).join(', '))}`,
  );
  return [...nodes, ...arrows.sort()];
}

function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
