/**
 * The fed-agent program, bundled as dist/agent.cjs and run by the executable (bin.ts): fed's
 * agent entry first — it sets zod as fed's programs have it, and zod reads the setting as each schema is
 * built — then the agent (main.ts).
 */
import 'fed/agent';
export { finished } from './main.js';
