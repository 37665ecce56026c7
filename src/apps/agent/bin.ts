#!/usr/bin/env node
/**
 * The `fed-agent` executable (bundled as dist/bin/agent/main.js): V8's tiering (v8-tiering.ts) and zod's
 * settings first, then the agent (main.ts). zod reads its settings as each schema is built, and in the
 * bundle the code main.ts shares with other parts sits in chunks that would run — and build their
 * schemas — before any line of main.ts; what is reached through import() runs only when it is imported.
 */
import './v8-tiering.js';
import '../../core/schema/zod-jitless.js';

await import('./main.js');
