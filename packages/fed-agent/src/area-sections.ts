import type { AreaFacts } from './area-facts.js';
import type { Area } from './area-scope.js';
import { agree, bulletList, code, count, escapeText, fenced, folderRef, label, plural } from './markdown-text.js';
import type { Survey } from 'fed/survey';

/**
 * The sections of a document about one area (area-render.ts assembles them): what it is for, its public
 * API file by file, what is inside it, what it depends on and what depends on it (with a Mermaid
 * flowchart), where it starts, how it is tested and how it is built. Headings name the area, so two
 * areas' documents do not repeat each other's lines.
 */
const MAX_API_FILES = 15;
const MAX_API_ROWS = 60;
const MAX_LINKED = 8;

/** What the headings call the area: the last part of its package name (`@acme/api` → `api`), else its folder's name. */
export const shortName = (area: Area) =>
  area.package ? area.package.name.split('/').pop()! : area.path.split('/').pop()!;
export const folderOf = (area: Area) => (area.path === '.' ? './' : `${area.path}/`);
const heading = (level: number, title: string, body: string) => `${'#'.repeat(level)} ${title}\n\n${body}`;

function purpose(facts: AreaFacts): string {
  const { description, readme, entryDoc } = facts.purpose;
  const parts: string[] = [];
  if (description)
    parts.push(
      `Its manifest, ${code(facts.area.manifest?.path ?? '')}, describes it as: “${escapeText(description.replace(/\.$/, ''))}”.`,
    );
  if (readme) parts.push(`Its README (${code(readme.path)}) begins:\n\n> ${escapeText(readme.text)}`);
  const entry = facts.entryPoints[0];
  if (entryDoc && entry)
    parts.push(`Its entry file ${code(entry.path)} says of itself: “${escapeText(entryDoc.replace(/\.$/, ''))}”.`);
  const documented = facts.structure.filter((s) => !s.folder && s.role).slice(0, 4);
  if (parts.length === 0 && documented.length)
    parts.push(
      `It has no description or README; its files' own doc comments say what it does:\n\n${bulletList(documented.map((s) => `${code(s.path)}: ${escapeText(s.role!)}`))}`,
    );
  if (parts.length === 0)
    parts.push(
      `Neither a manifest description, a README nor a doc comment says what ${folderRef(facts.area.path)} is for; its public API below is the best account of it.`,
    );
  return parts.join('\n\n');
}

function publicApi(facts: AreaFacts, level: number): string {
  const total = facts.api.reduce((n, f) => n + f.entries.length, 0);
  if (total === 0)
    return `No file of ${folderRef(facts.area.path)} exports anything the survey reads (TypeScript/JavaScript \`export\`, Python top-level \`def\`/\`class\`, Go capitalised names).`;
  const parts = [
    `What its ${plural(facts.api.length, 'module')} ${agree(facts.api.length, 'exports', 'export')}, ${plural(total, 'name')} in all: entry files first, then the files other areas import most. A signature is the declaration's head as written.`,
  ];
  let rows = 0;
  const files = facts.api.slice(0, MAX_API_FILES);
  for (const file of files) {
    if (rows >= MAX_API_ROWS) break;
    const entries = file.entries.slice(0, MAX_API_ROWS - rows);
    rows += entries.length;
    const used = file.importedFromOutside
      ? `Imported ${plural(file.importedFromOutside, 'time')} from outside ${folderRef(facts.area.path)}.`
      : '';
    const more =
      entries.length < file.entries.length ? ` Showing ${count(entries.length)} of ${count(file.entries.length)}.` : '';
    const items = entries.map(
      (e) => `${code(e.name)} (line ${e.line}): ${code(e.signature)}${e.doc ? ` — ${escapeText(e.doc)}` : ''}`,
    );
    parts.push(
      heading(
        level,
        code(file.path),
        `${[used, more].filter(Boolean).join(' ')}${used || more ? '\n\n' : ''}${bulletList(items)}`,
      ),
    );
  }
  const left = facts.api.slice(files.length);
  if (left.length)
    parts.push(
      `${plural(left.length, 'more module')} with exports: ${left
        .slice(0, 20)
        .map((f) => `${code(f.path)} (${count(f.entries.length)})`)
        .join(', ')}${left.length > 20 ? ', …' : ''}.`,
    );
  return parts.join('\n\n');
}

function structure(facts: AreaFacts): string {
  const items = facts.structure.map((s) => {
    const size = s.folder ? `${plural(s.files, 'file')}, ${plural(s.lines, 'line')}` : plural(s.lines, 'line');
    const role = s.role ? `: ${escapeText(s.role)}` : s.folder ? '' : ' (no doc comment)';
    return `${code(s.folder ? `${s.path}/` : s.path)} (${size})${role}`;
  });
  const listing = facts.structure.every((s) => !s.folder)
    ? `The source files of ${folderRef(facts.area.path)}`
    : `The folders of ${folderRef(facts.area.path)} and the files beside them`;
  return `${listing}, with what each says it is: the first sentence of its doc comment, or for a folder a guess from its name.\n\n${bulletList(items)}`;
}

function dependencies(facts: AreaFacts): string {
  const { links, area } = facts;
  // Node ids carry the area's name: a reader comparing two areas' diagrams sees which is which.
  const a = shortName(area).replace(/[^A-Za-z0-9]+/g, '_');
  const node = (id: string, text: string) => `  ${id}[${label(text)}]`;
  const lines = ['flowchart LR', node(a, folderOf(area))];
  links.in
    .slice(0, MAX_LINKED)
    .forEach((l, i) => lines.push(node(`${a}_in${i}`, l.file ? l.area : `${l.area}/`), `  ${a}_in${i} --> ${a}`));
  links.out
    .slice(0, MAX_LINKED)
    .forEach((l, i) => lines.push(node(`${a}_out${i}`, l.file ? l.area : `${l.area}/`), `  ${a} --> ${a}_out${i}`));
  links.external
    .slice(0, MAX_LINKED)
    .forEach((e, i) => lines.push(node(`${a}_pkg${i}`, e.name), `  ${a} -.-> ${a}_pkg${i}`));
  if (links.unresolved.length)
    lines.push(
      node(`${a}_outside`, `outside the codebase (${plural(links.unresolved.length, 'module')})`),
      `  ${a} -.-> ${a}_outside`,
    );
  const parts = [
    `An arrow reads "imports from"; a dotted one leads from ${folderRef(area.path)} to an external package. ${links.out.length || links.in.length ? '' : `No other area of the repository imports ${folderRef(area.path)} or is imported by it. `}`.trim(),
    fenced('mermaid', lines.join('\n')),
  ];
  const linked = (list: AreaFacts['links']['out'], verb: string) =>
    bulletList(
      list.map((l) =>
        l.file
          ? `${code(l.area)}: ${plural(l.imports, 'import')}`
          : `${folderRef(l.area)}: ${plural(l.imports, 'import')} ${verb} ${l.files
              .slice(0, 3)
              .map(code)
              .join(', ')}${l.files.length > 3 ? ', …' : ''}`,
      ),
    );
  if (links.out.length)
    parts.push(`What ${folderRef(area.path)} imports from the rest of the repository:`, linked(links.out, 'of'));
  if (links.in.length) parts.push(`Who imports ${folderRef(area.path)}:`, linked(links.in, 'from'));
  if (links.external.length)
    parts.push(
      `External packages its files import: ${links.external
        .slice(0, 12)
        .map((e) => `${code(e.name)} (${plural(e.files, 'file')})`)
        .join(', ')}.`,
    );
  if (links.unresolved.length)
    parts.push(
      `${plural(links.unresolved.length, 'relative import')} ${agree(links.unresolved.length, 'names', 'name')} no file of the codebase (code taken from a larger project, or files generated at build time): ${links.unresolved
        .slice(0, 8)
        .map((u) => code(u.specifier))
        .join(', ')}${links.unresolved.length > 8 ? ', …' : ''}.`,
    );
  return parts.join('\n\n');
}

function entryPoints(facts: AreaFacts): string {
  const declared = facts.area.manifest?.entryPoints ?? [];
  const items = [
    ...facts.entryPoints.map((e) => `${code(e.path)}: ${escapeText(e.reason)}`),
    ...declared
      .filter((d) => !facts.entryPoints.some((e) => e.path.endsWith(d.target.replace(/^\.\//, ''))))
      .map((d) => `${code(d.target)}: declared as ${code(d.field)}${d.name ? ` (${code(d.name)})` : ''}`),
  ];
  if (items.length === 0) {
    const api = facts.api.find((f) => f.importedFromOutside) ?? facts.api[0];
    return `No entry point is declared or named as one inside ${folderRef(facts.area.path)}.${api ? ` Other code reaches it through its exports; ${code(api.path)} is the module to start from.` : ''}`;
  }
  return bulletList(items);
}

function tests(facts: AreaFacts, survey: Survey): string {
  const { inside, outside } = facts.links.tests;
  if (inside.length === 0 && outside.length === 0)
    return `No test file lies in ${folderRef(facts.area.path)} or imports its files.`;
  const list = (files: readonly string[]) =>
    bulletList([
      ...files.slice(0, 10).map(code),
      ...(files.length > 10 ? [`and ${count(files.length - 10)} more`] : []),
    ]);
  const parts: string[] = [];
  const folder = folderRef(facts.area.path);
  if (inside.length) parts.push(`${plural(inside.length, 'test file')} inside ${folder}:`, list(inside));
  if (outside.length)
    parts.push(
      `${plural(outside.length, 'test file')} elsewhere ${agree(outside.length, 'imports', 'import')} ${folder}:`,
      list(outside),
    );
  const command = facts.build.commands.find((c) => /\btest\b/.test(c)) ?? survey.tests.command;
  if (command) parts.push(`Run the tests of ${folder} with:`, fenced('sh', command));
  return parts.join('\n\n');
}

function build(facts: AreaFacts): string {
  const { manifest, own, commands } = facts.build;
  if (!manifest) return `No manifest builds ${folderRef(facts.area.path)}; read its files directly.`;
  const parts = [
    own
      ? `It has its own manifest, ${code(manifest.path)}${manifest.name ? `, naming it ${code(manifest.name)}` : ''}.`
      : `${folderRef(facts.area.path)} has no manifest of its own: ${code(manifest.path)} builds it with the rest of ${folderRef(manifest.path.includes('/') ? manifest.path.slice(0, manifest.path.lastIndexOf('/')) : '.')}.`,
  ];
  const scripts = Object.entries(manifest.scripts);
  if (own && scripts.length) parts.push(fenced('json', JSON.stringify({ scripts: manifest.scripts }, null, 2)));
  if (own && manifest.kind === 'npm' && scripts.length === 0)
    parts.push(`${code(manifest.path)} declares no scripts: the repository's root scripts build and test it.`);
  const deps = [...manifest.dependencies];
  if (own && deps.length)
    parts.push(`It depends at run time on ${deps.slice(0, 10).map(code).join(', ')}${deps.length > 10 ? ', …' : ''}.`);
  if (commands.length)
    parts.push(`To build and test ${folderRef(facts.area.path)}:`, fenced('sh', commands.join('\n')));
  return parts.join('\n\n');
}

/** The sections about one area, at `level` (2 for a one-area document, 3 under the area's own heading). */
export function areaSections(facts: AreaFacts, survey: Survey, level: number): string[] {
  const name = code(shortName(facts.area));
  return [
    heading(level, `What ${name} is for`, purpose(facts)),
    heading(level, `The public API of ${name}`, publicApi(facts, level + 1)),
    heading(level, `Inside ${name}`, structure(facts)),
    heading(level, `What ${name} depends on, and what depends on it`, dependencies(facts)),
    heading(level, `Where ${name} starts`, entryPoints(facts)),
    heading(level, `How ${name} is tested`, tests(facts, survey)),
    heading(level, `How ${name} is built`, build(facts)),
  ];
}
