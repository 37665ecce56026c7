/**
 * What stays read-only inside a coding team's writable worktree (issue 80 item 2): files that git, an editor
 * or an agent CLI later obeys or runs when *you* open the worktree or merge its branch — never the agent's
 * to change in its sandbox. A change it needs there is refused (EROFS; where the file did not exist, fed
 * holds its place with an empty read-only folder, so writing it fails with EISDIR) and reaches you only as
 * something its report asks for, which you review. Its git folders are protected apart (coding-worktree.ts:
 * the repository's config, hooks, info/, other branches' refs, packed-refs, submodules' git folders).
 *
 * Relative to the worktree's top; `folder` entries are read-only whole (a file inside one could be renamed
 * away with its folder, and a new one made). One entry per path, with what obeys it.
 */
export const WORKTREE_DENY_LIST: readonly { path: string; kind: 'file' | 'folder'; obeyedBy: string }[] = [
  {
    path: '.git',
    kind: 'file',
    obeyedBy:
      "every git run in the worktree (fed's and yours): pointed elsewhere, it would read another repository's config and hooks",
  },
  {
    path: '.claude',
    kind: 'folder',
    obeyedBy: 'Claude Code run here: its settings (hooks, permissions, MCP servers) and commands',
  },
  { path: '.mcp.json', kind: 'file', obeyedBy: 'Claude Code and other MCP clients: the servers they start here' },
  { path: '.codex', kind: 'folder', obeyedBy: 'Codex run here: its project config' },
  {
    path: '.gemini',
    kind: 'folder',
    obeyedBy: 'Gemini CLI run here: its settings (MCP servers, tool discovery commands)',
  },
  {
    path: '.vscode',
    kind: 'folder',
    obeyedBy: 'VS Code opening the folder: tasks.json (run on open), settings.json and launch.json name programs',
  },
  {
    path: '.idea',
    kind: 'folder',
    obeyedBy: "JetBrains IDEs opening the folder: run configurations, the project's tools",
  },
  {
    path: '.devcontainer',
    kind: 'folder',
    obeyedBy: 'an editor opening the folder in a container: the commands it runs',
  },
  { path: '.envrc', kind: 'file', obeyedBy: 'direnv, when your shell enters the folder' },
];
