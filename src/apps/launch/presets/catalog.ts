import { basename } from 'node:path';
import type { AgentPresetName } from '../../../core/schema/config.js';
import type { AgentPreset } from './agent-preset.js';
import { aiderPreset } from './aider.js';
import { claudePreset } from './claude.js';
import { codexPreset } from './codex.js';
import { copilotPreset } from './copilot.js';
import { customPreset } from './custom.js';
import { fedAgentPreset } from './fed-agent.js';
import { geminiPreset } from './gemini.js';
import { goosePreset } from './goose.js';
import { opencodePreset } from './opencode.js';

/** Every agent CLI preset by name. */
export const AGENT_PRESET_CATALOG: Record<AgentPresetName, AgentPreset> = {
  claude: claudePreset,
  codex: codexPreset,
  gemini: geminiPreset,
  copilot: copilotPreset,
  opencode: opencodePreset,
  goose: goosePreset,
  aider: aiderPreset,
  'fed-agent': fedAgentPreset,
  custom: customPreset,
};

/** The preset set in config, else the one whose program name the command starts with, else `custom`. */
export function choosePreset(program: string, configured: AgentPresetName | undefined): AgentPreset {
  if (configured) return AGENT_PRESET_CATALOG[configured];
  const name = basename(program);
  return Object.values(AGENT_PRESET_CATALOG).find((preset) => preset.programs.includes(name)) ?? customPreset;
}
