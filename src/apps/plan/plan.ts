import { outsideProduct } from '../../engine/survey/folder-roles.js';
import { surveyCodebase, type Survey } from '../../engine/survey/survey.js';
import { loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import { lifecycleFor } from '../../engine/archetypes/catalog.js';
import { deliverableArchetype } from '../../engine/archetypes/deliverable/index.js';
import { InvalidInputError, RefusedError } from '../../core/errors.js';
import { findTeam, statusOf } from '../../core/find-team.js';
import { onboardTeam } from '../../engine/registry/onboard.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { META } from '../../core/schema/common.js';
import type { Registry, RegistryEntry } from '../../core/schema/registry.js';
import { sendSignal } from '../../engine/messaging/send-signal.js';
import type { Federation } from '../../engine/context.js';
import { federationPaths } from '../../core/layout.js';
import { toJsonText } from '../../core/json-text.js';
import type { AppliedPlan } from '../../core/schema/federation-plan.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { withLock } from '../../infra/fs/lock.js';

/**
 * `fed plan`: split a codebase into areas, one deliverable team per area, each with a mission directive
 * naming its area. The areas come from the codebase's layout: the packages of a monorepo (from its
 * manifests), else its top-level product folders (tests, docs, examples, build output left out), where a
 * folder holding most of the code (`src/`) is split into its own sub-folders. With more areas than teams,
 * the smaller areas are shared out so every team gets about the same amount of code.
 */
export interface PlanArea {
  /** Folder relative to the codebase, with `/`; `.` for a root package. */
  path: string;
  /** The package name for a package, else the folder name. */
  name: string;
  files: number;
  lines: number;
}

export interface PlannedTeam {
  team: string;
  areas: PlanArea[];
  files: number;
  lines: number;
  mission: { subject: string; body: string };
}

export interface FederationPlan {
  codebase: string;
  project: string;
  /** Where the areas come from. */
  basis: 'packages' | 'folders';
  teams: PlannedTeam[];
}

export const DEFAULT_PLAN_TEAMS = 5;
/** A folder holding at least this share of the product's lines is split into its sub-folders. */
const DOMINANT_SHARE = 0.6;
/** Folders that are build output, vendored code or repository settings: never an area of their own. */
const NOT_AN_AREA = new Set([
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  'vendor',
  'third_party',
  '.github',
  '.vscode',
  '.idea',
]);

export interface PlanOptions {
  /** How many teams at most (default 5). */
  teams?: number;
}

export function proposePlan(fed: Federation, options: PlanOptions = {}): FederationPlan {
  const { root } = fed;
  const wanted = options.teams ?? DEFAULT_PLAN_TEAMS;
  if (!Number.isInteger(wanted) || wanted < 1)
    throw new InvalidInputError(`--teams: expected a whole number of teams ≥ 1, got ${String(options.teams)}`);
  const survey = surveyCodebase(root);
  // Lock files, generated and vendored code are no one's work to document: they size no area.
  const product = survey.files.filter(
    (f) =>
      !f.test &&
      !f.machineWritten &&
      !outsideProduct(f.path) &&
      f.path.includes('/') &&
      !NOT_AN_AREA.has(f.path.split('/')[0]!),
  );
  const fromPackages = survey.packages.list.length >= 2;
  const areas = fromPackages ? packageAreas(survey, product) : folderAreas(product, wanted);
  if (areas.length === 0) {
    throw new InvalidInputError(
      `${root} has no source folders to split into areas (only top-level files, tests, docs or build output); onboard a team for the whole codebase instead: fed team onboard <domain>`,
    );
  }
  return {
    codebase: survey.codebase,
    project: survey.name,
    basis: fromPackages ? 'packages' : 'folders',
    teams: uniqueNames(groupAreas(areas, wanted).map((group) => plannedTeam(group, survey.name))),
  };
}

type ProductFile = Survey['files'][number];

function tally(files: readonly ProductFile[], path: string, name: string): PlanArea {
  const inside = files.filter((f) => path === '.' || f.path.startsWith(`${path}/`));
  return { path, name, files: inside.length, lines: inside.reduce((n, f) => n + f.lines, 0) };
}

/** One area per package; a file belongs to the deepest package folder that holds it. */
function packageAreas(survey: Survey, product: readonly ProductFile[]): PlanArea[] {
  const folders = survey.packages.list.map((p) => p.path);
  const owner = (file: string) =>
    folders.filter((dir) => dir === '.' || file.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length)[0];
  return survey.packages.list
    .map((p) =>
      tally(
        product.filter((f) => owner(f.path) === p.path),
        p.path,
        p.name.split('/').pop()!,
      ),
    )
    .filter((a) => a.files > 0);
}

/** The top-level folders; while there are fewer than wanted, a folder with most of the code is split into its sub-folders. */
function folderAreas(product: readonly ProductFile[], wanted: number): PlanArea[] {
  const childrenOf = (path: string): PlanArea[] => {
    const depth = path === '' ? 0 : path.split('/').length;
    const names = new Set(
      product
        .filter((f) => path === '' || f.path.startsWith(`${path}/`))
        .map((f) => f.path.split('/'))
        .filter((parts) => parts.length > depth + 1)
        .map((parts) => parts[depth]!),
    );
    return [...names].map((name) => tally(product, path === '' ? name : `${path}/${name}`, name));
  };
  let areas = childrenOf('');
  for (let depth = 0; depth < 2 && areas.length < wanted; depth++) {
    const total = areas.reduce((n, a) => n + a.lines, 0);
    const biggest = [...areas].sort((a, b) => b.lines - a.lines)[0];
    if (!biggest || biggest.lines < total * DOMINANT_SHARE) break;
    const children = childrenOf(biggest.path);
    if (children.length < 2) break;
    areas = [...areas.filter((a) => a !== biggest), ...children];
  }
  return areas.filter((a) => a.files > 0);
}

/**
 * At most `wanted` groups of about equal size: biggest areas first, each to the lightest group so far.
 * Deterministic (ties by path), so planning the same codebase twice gives the same teams.
 */
function groupAreas(areas: readonly PlanArea[], wanted: number): PlanArea[][] {
  const sorted = [...areas].sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path));
  const groups: PlanArea[][] = [];
  for (const area of sorted) {
    if (groups.length < wanted) {
      groups.push([area]);
      continue;
    }
    const lightest = groups.reduce((best, g) => (size(g) < size(best) ? g : best));
    lightest.push(area);
  }
  return groups.sort((a, b) => a[0]!.path.localeCompare(b[0]!.path));
}

/** Two areas of the same name (`apps/web`, `packages/web`): the later team is named after its whole path. */
function uniqueNames(teams: PlannedTeam[]): PlannedTeam[] {
  const seen = new Set<string>();
  return teams.map((t) => {
    const team = seen.has(t.team) ? `${slug(t.areas[0]!.path)}-docs` : t.team;
    seen.add(team);
    return { ...t, team };
  });
}

const size = (group: readonly PlanArea[]) => group.reduce((n, a) => n + a.lines, 0);

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
}

/** A team named after its biggest area (`packages/api` → `api-docs`). */
function plannedTeam(group: PlanArea[], project: string): PlannedTeam {
  const lead = group[0]!;
  const base = slug(lead.path === '.' ? project : lead.name) || 'area';
  const team = `${base}-docs`;
  return {
    team,
    areas: group,
    files: group.reduce((n, a) => n + a.files, 0),
    lines: size(group),
    mission: areaMission(
      group.map((a) => a.path),
      project,
    ),
  };
}

/**
 * The mission to document some areas of the codebase (folders relative to it, `.` for a root package):
 * a plan's, and the dashboard's for a team onboarded with an area.
 */
export function areaMission(paths: readonly string[], project: string): { subject: string; body: string } {
  const folders = paths.map((path) => (path === '.' ? 'the root package' : `${path.replace(/\/+$/, '')}/`));
  const list = folders.length === 1 ? folders[0]! : `${folders.slice(0, -1).join(', ')} and ${folders.at(-1)}`;
  // A Go module path (`example.com/acme/shop`) would read as a folder to find; the project is its last part.
  const projectName = project.split('/').pop()!;
  return {
    subject: `Document ${list}`,
    // Words the built-in agent reads as "the general overview", so its document is an overview of the area.
    body: `Write the deliverable about ${list} of ${projectName}: its architecture, layout, main modules and dependencies, entry points, and how it is built and tested.`,
  };
}

export interface AppliedTeam {
  team: string;
  /** False when a team of that name was already registered (re-running the plan). */
  onboarded: boolean;
  /** False when the team already has this mission (applied, or waiting in its inbox). */
  missionSent: boolean;
}

/** What applying did for one team, in words (`onboarded, mission sent`): `fed plan --apply` and the dashboard say it. */
export function describeApplied(applied: AppliedTeam): string {
  const parts = [
    applied.onboarded ? 'onboarded' : 'already registered',
    applied.missionSent ? 'mission sent' : 'has the mission',
  ];
  return parts.join(', ');
}

/**
 * `fed plan --apply`: onboard every planned team that is not registered yet and send each its mission
 * directive from meta, unless it already has that mission — so applying the same plan again onboards and
 * sends nothing. The plan is then recorded as the one the federation applied (`.fed/plan.json`), which
 * the dashboard's Federation page shows.
 */
export async function applyPlan(fed: Federation, plan: FederationPlan): Promise<AppliedTeam[]> {
  // One apply at a time, in this process and beside it: whether a team has its mission is checked, then the
  // mission sent, and two applies between those steps (a double click in the dashboard, two `fed plan
  // --apply`) would each send it. The next apply waits, then finds the mission there.
  return withLock(federationPaths(fed.root).planLock, () => applyPlanSteps(fed, plan), { timeoutMs: PLAN_WAIT_MS });
}

/** How long an apply waits for another one of the same federation before it gives up, naming it. */
const PLAN_WAIT_MS = 2 * 60_000;

async function applyPlanSteps(fed: Federation, plan: FederationPlan): Promise<AppliedTeam[]> {
  const applied: AppliedTeam[] = [];
  const { backend } = fed;
  refuseUnusableTeams(await backend.registry.read(), plan);
  for (const planned of plan.teams) {
    const existing = findTeam(await backend.registry.read(), planned.team);
    const entry = existing ?? (await onboardTeam(fed, { domain: planned.team, archetypeId: deliverableArchetype.id }));
    const missionSent = !(await hasMission(backend, entry, planned.mission.subject));
    if (missionSent)
      await sendSignal(fed, {
        from: META,
        to: entry.domainId,
        type: 'directive',
        subject: planned.mission.subject,
        body: planned.mission.body,
      });
    applied.push({ team: entry.domainId, onboarded: !existing, missionSent });
  }
  const record: AppliedPlan = { appliedAt: fed.now().toISOString(), ...plan };
  writeFileAtomic(federationPaths(fed.root).plan, toJsonText(record));
  return applied;
}

/**
 * A planned team's name already taken by a team the plan cannot use — archived (no signal reaches it), or
 * not a deliverable team (the mission would go to a consultant or a coding team) — refuses the whole plan
 * before anything is onboarded or sent: half a plan applied, re-run, failed the same way each time.
 */
function refuseUnusableTeams(registry: Registry, plan: FederationPlan): void {
  const problems = plan.teams.flatMap(({ team: name }) => {
    const team = findTeam(registry, name);
    if (!team) return [];
    if (statusOf(team) === 'archived') return [`team "${team.domainId}" is archived`];
    if (team.archetypeId !== deliverableArchetype.id)
      return [`team "${team.domainId}" is a ${team.archetypeId} team, where the plan makes deliverable teams`];
    return [];
  });
  if (problems.length)
    throw new RefusedError(
      'PLAN_TEAM_UNUSABLE',
      `the plan's teams cannot all be given their missions: ${problems.join('; ')}; nothing was applied — remove those teams (fed team archive, then fed team remove), then apply again`,
    );
}

/** The team's lifecycle has this mission, or a directive with this subject is in its inbox. */
async function hasMission(backend: FederationBackend, team: RegistryEntry, subject: string): Promise<boolean> {
  const context = lifecycleFor(team.archetypeId)
    ? (await loadTeamLifecycle(team, backend.lifecycles)).snapshot.context
    : undefined;
  if (context?.mission?.subject === subject) return true;
  const inbox = await backend.signals.inbox({ id: team.domainId, entry: team }).list();
  return inbox.signals.some((s) => s.message.type === 'directive' && s.message.subject === subject);
}
