import { relative, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { machineCatalog } from '../../engine/archetypes/catalog.js';
import {
  EXPORT_FORMATS,
  exportFiles,
  exportText,
  writeExportFiles,
  type ExportFormat,
} from '../../apps/machines-export/export-machines.js';
import { refuseFileForFolder } from '../../infra/fs/folder-option.js';
import type { CliIo } from '../io.js';
import { nonEmptyPath } from '../option-parsers.js';

/** `fed machines export`: the lifecycle machines as diagrams or data. Needs no federation. */
export function registerMachines(program: Command, io: CliIo): void {
  const machines = program.command('machines').description('the xstate machines behind team lifecycles');
  const ids = machineCatalog.map((entry) => entry.id);

  machines
    .command('export')
    .description('print (or write, one file per machine) the machines as Mermaid stateDiagram-v2, Graphviz DOT or JSON')
    .addOption(new Option('--format <format>', 'output format').choices(EXPORT_FORMATS).default('mermaid'))
    .addOption(new Option('--machine <id>', 'only this machine (default: all)').choices(ids))
    .option(
      '--out <dir>',
      'write <machine-id>.<ext> files into this directory (Mermaid also gets a <machine-id>.md page GitHub renders)',
      nonEmptyPath('a folder'),
    )
    .action((options: { format: ExportFormat; machine?: string; out?: string }) => {
      // --machine is checked against the catalog by commander, so the filter never comes back empty.
      const entries = machineCatalog.filter((entry) => !options.machine || entry.id === options.machine);
      if (options.out === undefined) return io.stdout(exportText(entries, options.format));
      const out = resolve(io.cwd, options.out);
      refuseFileForFolder(out, '--out', 'give a folder to write the files into');
      const written = writeExportFiles(out, exportFiles(entries, options.format));
      for (const path of written) io.stdout(`wrote ${relative(io.cwd, path) || path}\n`);
    });
}
