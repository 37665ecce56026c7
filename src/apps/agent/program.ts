/**
 * The fed-agent program, bundled as dist/bin/agent/agent.cjs and run by the executable (bin.ts): zod's
 * settings first — zod reads them as each schema is built — then the agent (main.ts).
 */
import '../../core/schema/zod-jitless.js';
export { finished } from './main.js';
