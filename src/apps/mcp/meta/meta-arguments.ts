import { z } from 'zod';

/** The team a meta tool acts on, as the CLI's `<team>` argument names it. */
export const TEAM_ARGUMENT = z.string().min(1).describe('team id or domain (fed_status lists them)');
