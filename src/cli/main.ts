#!/usr/bin/env node
import { runCli } from './program.js';

// The only place that sets the process exit code; the library and commands return or throw.
process.exitCode = await runCli(process.argv.slice(2));
