import { z } from 'zod';

/**
 * Loaded by `fed` before any command module and by `fed-agent` before the agent (first in src/agent.ts, its entry), so
 * before any schema is built (zod reads the setting when a schema is made): parse without generating code. zod compiles each object schema into a fast
 * parser with `new Function` on its first parse, about 1 ms per schema, and a V8 code cache cannot keep
 * that code. A `fed event` parses each of its schemas once or twice, so the compiling was a tenth of its
 * start-up (14 ms of parsing became 3.5 ms); a parse without it costs ~1 µs more, nothing beside the file
 * I/O of an apply, even in a long `fed actors run`.
 */
z.config({ jitless: true });
