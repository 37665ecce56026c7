import { lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import type { HiddenMounts, SandboxMount } from './sandbox.js';

/**
 * The user's credential stores: what no sandboxed agent reads (issue 80 item 3). The sandbox shows the whole
 * machine read-only, the user's home included — and a home holds the keys to everything the user reaches.
 * Each is hidden in every sandbox: a folder seen empty, a file that cannot be opened. Relative to the
 * user's home; what a preset needs to authenticate comes into the agent's own home instead (agent-home.ts),
 * from the user's file, which stays hidden where it is. One entry per store, with what it opens.
 */
export const CREDENTIAL_STORES: readonly { path: string; opens: string }[] = [
  { path: '.ssh', opens: 'SSH keys: every server and forge they log in to' },
  { path: '.gnupg', opens: 'GPG keys: signing as you, decrypting what is sent to you' },
  { path: '.aws', opens: 'AWS accounts' },
  { path: '.config/gcloud', opens: 'Google Cloud accounts' },
  { path: '.azure', opens: 'Azure accounts' },
  { path: '.kube', opens: 'Kubernetes clusters' },
  { path: '.docker/config.json', opens: 'container registries' },
  { path: '.config/containers/auth.json', opens: 'container registries (podman)' },
  { path: '.config/gh', opens: "GitHub, as the GitHub CLI's token" },
  { path: '.config/hub', opens: 'GitHub, as hub' },
  { path: '.git-credentials', opens: "the git hosts git's store helper saved passwords for" },
  { path: '.netrc', opens: 'the hosts curl and git log in to with it' },
  { path: '.npmrc', opens: 'npm registries (tokens)' },
  { path: '.yarnrc.yml', opens: 'npm registries, as yarn (tokens)' },
  { path: '.pypirc', opens: 'Python package indexes' },
  { path: '.cargo/credentials.toml', opens: 'crates.io' },
  { path: '.cargo/credentials', opens: 'crates.io (older cargo)' },
  { path: '.gem/credentials', opens: 'RubyGems' },
  { path: '.terraform.d/credentials.tfrc.json', opens: 'Terraform Cloud' },
  { path: '.vault-token', opens: 'HashiCorp Vault' },
  { path: '.pgpass', opens: 'PostgreSQL databases' },
  { path: '.my.cnf', opens: 'MySQL databases' },
  { path: '.password-store', opens: 'every password pass keeps' },
  { path: '.local/share/keyrings', opens: "the desktop's keyring" },
  // Agent CLIs' logins: a sandboxed agent gets its own CLI's in its home, never another's.
  { path: '.claude/.credentials.json', opens: 'Claude Code, as you' },
  { path: '.claude.json', opens: "Claude Code's account (and an API key it may keep)" },
  { path: '.codex/auth.json', opens: 'Codex, as you' },
  { path: '.gemini/oauth_creds.json', opens: 'Gemini CLI, as you' },
  { path: '.config/github-copilot', opens: 'GitHub Copilot, as you' },
  { path: '.copilot/config.json', opens: 'Copilot CLI, as you' },
  { path: '.local/share/opencode/auth.json', opens: 'OpenCode, as you' },
  { path: '.config/goose/secrets.yaml', opens: "Goose's provider keys" },
];

/**
 * The variables that move a store out of the home: each names a store itself (a folder, a file, or with
 * `list` several files joined by `:`), or with `inside` the folder holding the store's files.
 */
export const STORES_NAMED_BY: readonly {
  variable: string;
  inside?: readonly string[];
  list?: boolean;
  opens: string;
}[] = [
  { variable: 'GNUPGHOME', opens: 'GPG keys' },
  { variable: 'AWS_SHARED_CREDENTIALS_FILE', opens: 'AWS accounts' },
  { variable: 'AWS_CONFIG_FILE', opens: 'AWS accounts (their profiles, and keys it may hold)' },
  { variable: 'CLOUDSDK_CONFIG', opens: 'Google Cloud accounts' },
  { variable: 'GOOGLE_APPLICATION_CREDENTIALS', opens: 'a Google Cloud service account' },
  { variable: 'AZURE_CONFIG_DIR', opens: 'Azure accounts' },
  { variable: 'KUBECONFIG', list: true, opens: 'Kubernetes clusters' },
  { variable: 'DOCKER_CONFIG', inside: ['config.json'], opens: 'container registries' },
  { variable: 'REGISTRY_AUTH_FILE', opens: 'container registries (podman)' },
  { variable: 'GH_CONFIG_DIR', opens: "GitHub, as the GitHub CLI's token" },
  { variable: 'NETRC', opens: 'the hosts curl and git log in to with it' },
  { variable: 'NPM_CONFIG_USERCONFIG', opens: 'npm registries (tokens)' },
  { variable: 'CARGO_HOME', inside: ['credentials.toml', 'credentials'], opens: 'crates.io' },
  { variable: 'PGPASSFILE', opens: 'PostgreSQL databases' },
  { variable: 'PASSWORD_STORE_DIR', opens: 'every password pass keeps' },
  { variable: 'CLAUDE_CONFIG_DIR', inside: ['.credentials.json', '.claude.json'], opens: 'Claude Code, as you' },
  { variable: 'CODEX_HOME', inside: ['auth.json'], opens: 'Codex, as you' },
];

/** Where the XDG variables move a store that lies in `.config` or `.local/share` of the home. */
const MOVED_BY: readonly [prefix: string, variable: string][] = [
  ['.config/', 'XDG_CONFIG_HOME'],
  ['.local/share/', 'XDG_DATA_HOME'],
];

/**
 * The mounts that hide the user's credential stores — in the home, and where the environment moved them —
 * and the config's `agent.denyRead` entries (`~/…` in
 * the user's home, an absolute path, or one relative to the federation root: a codebase's `.env`) from a
 * sandboxed agent: each that exists, its links resolved (a store linked elsewhere is hidden where it is),
 * a folder as an empty one, anything else as a file no one can open. None when the user has no home.
 */
export function hideMounts(root: string, userEnv: NodeJS.ProcessEnv, denyRead: readonly string[]): HiddenMounts {
  const home = userEnv.HOME && userEnv.HOME !== '/' ? userEnv.HOME : undefined;
  const stores = home
    ? CREDENTIAL_STORES.flatMap(({ path }) => [
        join(home, path),
        ...MOVED_BY.flatMap(([prefix, variable]) => {
          const moved = userEnv[variable];
          return path.startsWith(prefix) && moved && isAbsolute(moved) ? [join(moved, path.slice(prefix.length))] : [];
        }),
      ])
    : [];
  const named = STORES_NAMED_BY.flatMap(({ variable, inside, list }) => {
    const value = userEnv[variable];
    if (!value) return [];
    const paths = (list ? value.split(':') : [value]).filter((path) => isAbsolute(path));
    return inside ? paths.flatMap((folder) => inside.map((file) => join(folder, file))) : paths;
  });
  const denied = denyRead.flatMap((entry) => {
    if (entry === '~' || entry.startsWith('~/')) return home ? [join(home, entry.slice(1))] : [];
    return [resolve(root, entry)];
  });
  const mounts = new Map<string, SandboxMount>();
  for (const path of [...stores, ...named, ...denied]) {
    const found = existing(path);
    if (found) mounts.set(found.path, { kind: found.folder ? 'empty' : 'unreadable', path: found.path });
  }
  const top = existing(root)?.path ?? root;
  const inRoot = (mount: SandboxMount) => mount.path === top || mount.path.startsWith(`${top}${sep}`);
  return {
    outsideRoot: [...mounts.values()].filter((mount) => !inRoot(mount)),
    inRoot: [...mounts.values()].filter(inRoot),
  };
}

/** `path` with its links resolved, and whether it is a folder; undefined when it is not there. */
function existing(path: string): { path: string; folder: boolean } | undefined {
  try {
    lstatSync(path);
    const real = realpathSync(path);
    return { path: real, folder: statSync(real).isDirectory() };
  } catch {
    return undefined;
  }
}
