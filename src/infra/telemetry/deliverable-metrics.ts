import type { DeliverableSummary } from '../../core/schema/deliverable-summary.js';
import { lazyInstruments } from './meter.js';

/**
 * Deliverable metrics of docs/design/spec.md §6, through the OpenTelemetry API only (whoever runs fed registers an SDK).
 * Gauges: each record is the size of the team's latest deliverable, not something that adds up.
 */
const instruments = lazyInstruments((meter) => ({
  sizeBytes: meter.createGauge('deliverable.size_bytes', {
    description: 'Size of the deliverable document',
    unit: 'By',
  }),
  sections: meter.createGauge('deliverable.sections', {
    description: 'Headings below the title in the deliverable',
    unit: '{section}',
  }),
  codeExamples: meter.createGauge('deliverable.code_examples', {
    description: 'Code blocks in the deliverable, diagrams included',
    unit: '{code_block}',
  }),
}));

/** Record a team's deliverable (its structural summary) under the attribute `team`. */
export function recordDeliverableMetrics(team: string, summary: DeliverableSummary): void {
  const { sizeBytes, sections, codeExamples } = instruments();
  const attributes = { team };
  sizeBytes.record(summary.size_bytes, attributes);
  sections.record(summary.sections.length, attributes);
  codeExamples.record(summary.code_blocks.length, attributes);
}
