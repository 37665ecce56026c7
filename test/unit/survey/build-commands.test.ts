import { describe, expect, it } from 'vitest';
import { makeTargets } from '../../../src/engine/survey/build-commands.js';
import { surveyCodebase } from 'fed/testing';
import { writeTree } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp-dir.js';

const commandsOf = (files: Record<string, string>) =>
  surveyCodebase(writeTree(tempDir(), files)).commands.commands.map((c) => `${c.step}: ${c.command} (${c.from})`);

describe('how to build, test and run a project, from what it declares', () => {
  it('npm scripts run with the package manager of the lock file; bun runs scripts with `run`', () => {
    const pkg = JSON.stringify({ name: 'x', scripts: { test: 'vitest', start: 'node .', lint: 'eslint .' } });
    expect(commandsOf({ 'package.json': pkg, 'yarn.lock': '' })).toEqual([
      'install: yarn install (package.json)',
      'test: yarn test (package.json script "test")',
      'run: yarn start (package.json script "start")',
      'check: yarn run lint (package.json script "lint")',
    ]);
    expect(commandsOf({ 'package.json': pkg, 'bun.lock': '' }).slice(1, 3)).toEqual([
      'test: bun run test (package.json script "test")',
      'run: bun run start (package.json script "start")',
    ]);
    expect(commandsOf({ 'package.json': pkg, 'package-lock.json': '{}' })[0]).toBe('install: npm ci (package.json)');
  });

  it('Cargo and pyproject in a subfolder are run from there', () => {
    expect(
      commandsOf({
        'engine/Cargo.toml': '[package]\nname = "engine"\n',
        'engine/src/main.rs': 'fn main() {}\n',
        'tools/pyproject.toml': '[project]\nname = "tools"\n\n[tool.pytest.ini_options]\n',
      }),
    ).toEqual([
      'install: cd tools && pip install -e . (tools/pyproject.toml)',
      'build: cd engine && cargo build (engine/Cargo.toml)',
      'test: cd tools && pytest (tools/pyproject.toml)',
      'test: cd engine && cargo test (engine/Cargo.toml)',
      'run: cd engine && cargo run (engine/Cargo.toml)',
    ]);
  });

  it('nothing declared, nothing claimed', () => {
    expect(commandsOf({ 'src/a.py': 'print(1)\n' })).toEqual([]);
  });

  it('Makefile targets: rules, not variables, special targets or patterns', () => {
    expect(
      makeTargets('.PHONY: all\nCC := gcc\nX = 1\nall: build\nbuild test: deps\n\t$(CC) x\n%.o: %.c\nsrc/x.o:\n'),
    ).toEqual(['all', 'build', 'test']);
  });
});
