import { writeTree } from './fixture-repo.js';

/**
 * A Go tool that runs coding sessions, each in its own git worktree (the shape of a real terminal
 * multiplexer for agents): `session.Instance.Start` creates the worktree one of two ways — from a branch
 * the user picked (`git.NewGitWorktreeFromBranch` → `resolveWorktreePaths`), or by default a new one
 * (`git.NewGitWorktree`, then `GitWorktree.Setup` → `setupNewWorktree`, which runs `git worktree add`).
 * Git is run for `git checkout` too; there is nothing about payments, auth or webhooks. Its web/ folder
 * is a separate landing page with its own package.json.
 */
export function goSessionRepo(root: string): string {
  return writeTree(root, {
    'go.mod': 'module github.com/acme/squad\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\n',
    'README.md':
      '# squad\n\nRun several coding agents at once, each in its own \\[git worktree\\](https://git-scm.com/docs/git-worktree).\n\n## Install\n\n```sh\ngo install github.com/acme/squad@latest\n```\n',
    'main.go': 'package main\n\nimport (\n\t"github.com/acme/squad/app"\n)\n\nfunc main() {\n\tapp.Run()\n}\n',
    'app/app.go':
      'package app\n\nimport (\n\t"github.com/acme/squad/session"\n)\n\n// Run starts the terminal UI and opens the first session.\nfunc Run() {\n\tinstance := session.NewInstance("first", "")\n\tif err := instance.Start(true); err != nil {\n\t\tpanic(err)\n\t}\n}\n',
    'app/help.go':
      'package app\n\n// helpText explains the keys. Sessions live on their own branch: use git checkout to look at one.\nconst helpText = `n: new session\nc: commit and run git checkout on the branch\nq: quit`\n',
    'session/instance.go':
      'package session\n\nimport (\n\t"github.com/acme/squad/session/git"\n)\n\n// Instance is one running session.\ntype Instance struct {\n\tTitle       string\n\tBranch      string\n\tgitWorktree *git.GitWorktree\n}\n\n// NewInstance makes a session that is not started yet.\nfunc NewInstance(title, branch string) *Instance {\n\treturn &Instance{Title: title, Branch: branch}\n}\n\n// Start gives the session its own git worktree and starts the agent in it.\nfunc (i *Instance) Start(firstTimeSetup bool) error {\n\tif i.Branch != "" {\n\t\tworktree, err := git.NewGitWorktreeFromBranch(".", i.Branch, i.Title)\n\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t\ti.gitWorktree = worktree\n\t} else {\n\t\tworktree, branch, err := git.NewGitWorktree(".", i.Title)\n\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t\ti.gitWorktree = worktree\n\t\ti.Branch = branch\n\t}\n\treturn i.gitWorktree.Setup()\n}\n',
    'session/git/worktree.go':
      'package git\n\nimport "path/filepath"\n\n// GitWorktree is a session\'s own copy of the repository.\ntype GitWorktree struct {\n\trepoPath     string\n\tworktreePath string\n\tbranchName   string\n}\n\n// NewGitWorktree makes a worktree for a new branch named after the session.\nfunc NewGitWorktree(repoPath string, sessionName string) (*GitWorktree, string, error) {\n\tbranch := "session/" + sessionName\n\trepo, path, err := resolveWorktreePaths(repoPath, branch)\n\tif err != nil {\n\t\treturn nil, "", err\n\t}\n\treturn &GitWorktree{repoPath: repo, worktreePath: path, branchName: branch}, branch, nil\n}\n\n// NewGitWorktreeFromBranch makes a worktree for a branch that exists.\nfunc NewGitWorktreeFromBranch(repoPath string, branch string, sessionName string) (*GitWorktree, error) {\n\trepo, path, err := resolveWorktreePaths(repoPath, branch)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn &GitWorktree{repoPath: repo, worktreePath: path, branchName: branch}, nil\n}\n\nfunc resolveWorktreePaths(repoPath string, branch string) (string, string, error) {\n\tabs, err := filepath.Abs(repoPath)\n\treturn abs, filepath.Join(abs, ".worktrees", branch), err\n}\n',
    'session/git/worktree_ops.go':
      'package git\n\nimport "os/exec"\n\n// Setup creates the worktree on disk.\nfunc (g *GitWorktree) Setup() error {\n\treturn g.setupNewWorktree()\n}\n\n// setupNewWorktree runs git worktree add for the session\'s branch.\nfunc (g *GitWorktree) setupNewWorktree() error {\n\treturn exec.Command("git", "-C", g.repoPath, "worktree", "add", "-b", g.branchName, g.worktreePath).Run()\n}\n\n// SwitchBranch switches the main repository to the session\'s branch.\nfunc (g *GitWorktree) SwitchBranch() error {\n\treturn exec.Command("git", "checkout", g.branchName).Run()\n}\n',
    'session/git/worktree_test.go':
      'package git\n\nimport "testing"\n\nfunc TestNewGitWorktree(t *testing.T) {\n\tif _, _, err := NewGitWorktree(t.TempDir(), "s"); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n',
    'log/log.go':
      'package log\n\nimport "fmt"\n\n// logFileName is where the log goes.\nfunc logFileName() string {\n\treturn "squad.log"\n}\n\nfunc Printf(format string, args ...any) {\n\tfmt.Printf(format, args...)\n}\n',
    'assets/logo.txt': 'squad\n',
    'web/package.json': JSON.stringify(
      {
        name: 'squad-web',
        private: true,
        scripts: { dev: 'next dev', build: 'next build' },
        dependencies: { next: '^15' },
      },
      null,
      2,
    ),
    'web/package-lock.json': '{}\n',
    'web/README.md':
      'The landing page of squad, built with \\[Next.js\\](https://nextjs.org) and [Tailwind](https://tailwindcss.com).\n',
    'web/app/page.tsx': 'export default function Page() {\n  return <h1>squad</h1>;\n}\n',
  });
}
