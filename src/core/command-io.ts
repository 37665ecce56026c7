/**
 * Where a fed command writes and what it reads from its surroundings: the CLI's process (cli/cli-io.ts),
 * a test's own, or the launcher's broker running an agent's command in process (apps/launch/supervise/agent-broker.ts).
 */
export interface CommandIo {
  /** A command's output. Through runCommand, control characters are escaped (escapeControls). */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /**
   * Standard output as it is, for fed's own terminal sequences (a redraw in place, colours) around text
   * already escaped: never for text fed did not write.
   */
  terminal: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stdout is an interactive terminal (colours, redraws). */
  isTTY: boolean;
}
