/**
 * The dashboard's lifecycle diagrams, laid out at build time (elkjs stays a build-time dependency): each
 * machine of the catalog, read off its definition by the same code as `fed machines export`, becomes
 * `<outDir>/<machineId>.json` (DiagramLayout in src/apps/ui/api-types.ts), which the page draws as SVG.
 * Runs after tsc: it reads the compiled catalog and src/apps/machines-export/diagram-layout.ts in dist/src.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ELK from 'elkjs/lib/elk.bundled.js';

/** Lay out every machine of the compiled catalog under `distDir`, one JSON file each in `outDir`. */
export async function writeDiagrams(distDir, outDir) {
  const importDist = (path) => import(pathToFileURL(resolve(distDir, path)).href);
  const { machineCatalog } = await importDist('src/engine/archetypes/catalog.js');
  const { describeMachine } = await importDist('src/apps/machines-export/describe-machine.js');
  const { commonTransitions, layoutGraph, diagramLayout } = await importDist(
    'src/apps/machines-export/diagram-layout.js',
  );
  const elk = new ELK();
  mkdirSync(outDir, { recursive: true });
  const written = [];
  for (const entry of machineCatalog) {
    const machine = describeMachine(entry);
    const { hidden, notes } = commonTransitions(machine);
    const laidOut = await elk.layout(layoutGraph(machine, hidden));
    const file = join(outDir, `${machine.id}.json`);
    writeFileSync(file, `${JSON.stringify(diagramLayout(machine, laidOut, notes))}\n`);
    written.push(file);
  }
  return written;
}
