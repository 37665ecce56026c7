import { resolve } from 'node:path';
import { isLockHeld } from '../../../infra/fs/lock.js';
import { codebaseChanges, describeCodebaseChanges, recaptureCodebase } from '../../deliverable/codebase-guard.js';
import { readBaseline } from '../../deliverable/codebase-baseline.js';
import { federationPaths, workspacePaths } from '../../../core/layout.js';
import type { LaunchContext } from '../../../core/schema/launch-context.js';
import type { DeliverableMachine } from '../../../../machines/deliverable.machine.js';
import type { CompletionPolicy, JudgeInput, Refusal } from '../archetype.js';

/** The spec's failure reason (§3.1) for a deliverable that does not follow the standards. */
export const STRUCTURE_FAILURE = 'document structure cannot be determined';

/**
 * A deliverable team is done when its document is written and passes the standards: `complete` is final,
 * so DOCUMENT_WRITTEN is judged before it is applied —
 * - while a launch runs (it holds the launch lease and left a baseline), the codebase must be as it was
 *   at launch (read-only study);
 * - the document must pass `fed deliverable check` (and `deliverableSchema`, when configured).
 */
export const deliverableCompletion: CompletionPolicy<DeliverableMachine> = {
  settled: (snapshot) => (snapshot.value === 'complete' ? { outcome: 'complete' } : undefined),
  judge: { events: ['DOCUMENT_WRITTEN'], check: judgeDocument },
  completionReport: async (context) => ({
    subject: `deliverable ready: ${context.deliverable}`,
    body: await deliverableSummary(context),
  }),
};

async function judgeDocument({ root, team, event, config }: JudgeInput): Promise<Refusal | undefined> {
  const paths = workspacePaths(team.location);
  const baseline = readBaseline(team.location);
  if (baseline && isLockHeld(paths.launchLease, { staleMs: Number.POSITIVE_INFINITY })) {
    const changes = codebaseChanges(baseline, await recaptureCodebase(baseline));
    // A broken rule, not a slip in the document: the team fails at once.
    if (changes.length) return { reason: describeCodebaseChanges(changes), violations: [], fixable: false };
  }
  // Loaded on demand: the Markdown parser is the heaviest import, and only completions need it.
  const { checkDeliverable } = await import('../../deliverable/check-deliverable.js');
  const { configuredSchema } = await import('../../deliverable/federation-deliverable.js');
  const file = resolve(team.location, typeof event.path === 'string' ? event.path : config.deliverable);
  let check;
  try {
    check = checkDeliverable(file, configuredSchema(root, config, federationPaths(root).config));
  } catch (error) {
    const problem = (error as Error).message;
    return { reason: `${STRUCTURE_FAILURE}: ${problem}`, violations: [problem], fixable: true };
  }
  if (check.ok) {
    const { recordDeliverableMetrics } = await import('../../../infra/telemetry/deliverable-metrics.js');
    recordDeliverableMetrics(team.domainId, check.summary);
    return undefined;
  }
  const violations = check.violations.map((v) => `line ${v.line}: ${v.message}`);
  return {
    reason: `${STRUCTURE_FAILURE}: ${check.violations.length} violation(s) in ${file}: ${violations.slice(0, 10).join('; ')}`,
    violations,
    fixable: true,
  };
}

/** The completion report's body: what the deliverable is, from its structural summary. */
async function deliverableSummary(context: LaunchContext): Promise<string> {
  const { checkDeliverable } = await import('../../deliverable/check-deliverable.js');
  const { summary } = checkDeliverable(context.deliverablePath);
  const sections = summary.sections.filter((s) => s.level === 2).map((s) => s.title);
  return [
    `Team ${context.team} finished "${context.mission.subject}".`,
    `Deliverable: ${context.deliverablePath}${summary.title ? ` — "${summary.title}"` : ''}`,
    `${summary.size_bytes} bytes, ${summary.word_count} words, ${summary.sections.length} sections, ${summary.code_blocks.length} code blocks, ${summary.diagrams.length} diagrams.`,
    sections.length ? `Sections: ${sections.join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join('\n');
}
