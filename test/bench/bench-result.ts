/** The JSON file `npm run bench` writes: one run's rows, with the machine and its load. */
import { z } from 'zod';

export const benchRowSchema = z.object({
  bench: z.string(),
  name: z.string(),
  value: z.number(),
  min: z.number(),
  max: z.number(),
  rounds: z.number().int().positive(),
  unit: z.string(),
  ceiling: z.object({ name: z.string(), value: z.number() }).optional(),
  goal: z.string().optional(),
  met: z.boolean().optional(),
  load: z.number(),
  /** The Node the figure was measured on (absent in files from before it was recorded). */
  node: z.string().optional(),
});

export const benchResultSchema = z.object({
  startedAt: z.string(),
  finishedAt: z.string(),
  node: z.string(),
  cpus: z.number().int(),
  load: z.object({ before: z.number(), after: z.number() }),
  benches: z.array(z.string()),
  rows: z.array(benchRowSchema),
});

export type BenchResult = z.infer<typeof benchResultSchema>;
