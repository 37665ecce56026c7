import { nodeSupportWarnings } from 'fed/testing';

/**
 * What `fed doctor` warns about the Node running the tests (past its end of life: Node 20 today), which
 * the CLI the tests start runs on too: its report's warnings, and the lines it prints for them.
 */
export const NODE_SUPPORT_WARNINGS = nodeSupportWarnings(process.version, new Date());
export const NODE_SUPPORT_OUTPUT = NODE_SUPPORT_WARNINGS.map((warning) => `warning: ${warning}\n`).join('');
