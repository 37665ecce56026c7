import { z } from 'zod';
import releaseScheduleJson from 'node-releases/data/release-schedule/release-schedule.json' with { type: 'json' };

/**
 * Node's release schedule, as the node-releases package (browserslist's) keeps it: each line's start, LTS,
 * maintenance and end-of-life dates, keyed `v20`, `v22`… Only the dates fed reads are checked; a line whose
 * entry does not parse is one fed knows nothing about.
 */
const scheduleSchema = z.record(
  z.string(),
  z.object({ end: z.iso.date(), lts: z.iso.date().optional(), codename: z.string().optional() }).loose(),
);
type Schedule = z.infer<typeof scheduleSchema>;

/** The Node lines fed's CI runs its tests on (.ci/run: the machine's 20, and 22, 24 and 26 from the registry). */
export const TESTED_NODE_LINES = [20, 22, 24, 26] as const;

/**
 * What `fed doctor` warns about the Node running fed (`version`, as `process.version`), on `today`: a line
 * past its end of life gets no security fixes. Nothing for a line still supported, nor for one the
 * schedule does not know yet (newer than the installed node-releases).
 */
export function nodeSupportWarnings(version: string, today: Date, schedule: Schedule = releaseSchedule()): string[] {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  const line = schedule[`v${major}`];
  if (line === undefined || Date.parse(line.end) > today.getTime()) return [];
  const supported = Object.entries(schedule)
    .map(([name, entry]) => ({ major: Number(name.slice(1)), ...entry }))
    .filter((entry) => entry.lts !== undefined && Date.parse(entry.lts) <= today.getTime())
    .filter((entry) => Date.parse(entry.end) > today.getTime())
    .sort((a, b) => b.major - a.major)
    .map((entry) => String(entry.major));
  return [
    `Node ${version.replace(/^v/, '')} is past its end of life (${line.end}): it gets no more security fixes. ` +
      `fed is tested on Node ${TESTED_NODE_LINES.join(', ')}; ` +
      (supported.length > 0
        ? `move to a supported LTS line (${supported.join(', ')})`
        : 'move to a supported LTS line'),
  ];
}

function releaseSchedule(): Schedule {
  const parsed = scheduleSchema.safeParse(releaseScheduleJson);
  return parsed.success ? parsed.data : {};
}
