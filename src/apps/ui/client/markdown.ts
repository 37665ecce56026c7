import GithubSlugger from 'github-slugger';
import { h, type ComponentChildren } from 'preact';
import type { Definition, Nodes, Parents, RootContent, TableCell } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * Markdown (a deliverable, the federation report, a signal's body) as preact elements, built from the
 * Markdown syntax tree node by node: text is always text, never markup. Raw HTML in the source shows as
 * the text it is; images are not loaded (the page requests nothing it did not bring), their alt text is
 * shown; links keep only http(s) and mailto addresses (opened in a new tab) and links to the document's
 * own headings, which get GitHub's ids (a report's table of contents works).
 */
export function renderMarkdown(source: string) {
  const tree = fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const definitions = new Map<string, Definition>();
  for (const node of tree.children) if (node.type === 'definition') definitions.set(node.identifier, node);
  const context: Context = { definitions, slugger: new GithubSlugger() };
  return h('div', { class: 'markdown' }, children(tree, context));
}

/**
 * The addresses a link may keep: http(s), mailto and a heading of the same document (`#…`); anything else
 * (javascript:, data:, a path of the team's workspace) is text.
 */
export function safeHref(url: string): string | null {
  const trimmed = url.trim();
  return /^(https?:\/\/|mailto:)/i.test(trimmed) || /^#[^\s]+$/.test(trimmed) ? trimmed : null;
}

interface Context {
  definitions: ReadonlyMap<string, Definition>;
  slugger: GithubSlugger;
}

/** A node's text, as GitHub slugs a heading from it. */
function textOf(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  return 'children' in node ? node.children.map((child) => textOf(child as Nodes)).join('') : '';
}

function children(parent: Parents, context: Context): ComponentChildren[] {
  return parent.children.map((child, index) => renderNode(child as RootContent, context, index));
}

function link(url: string | null, title: string | null | undefined, content: ComponentChildren, key: number) {
  const href = url === null ? null : safeHref(url);
  if (!href) return h('span', { key, class: 'link-text', title: url ?? undefined }, content);
  if (href.startsWith('#')) return h('a', { key, href, title: title ?? undefined }, content);
  return h('a', { key, href, title: title ?? undefined, target: '_blank', rel: 'noopener noreferrer' }, content);
}

function cell(node: TableCell, header: boolean, align: string | null | undefined, key: number, context: Context) {
  // The alignment goes through a class: the strict CSP forbids style attributes.
  return h(header ? 'th' : 'td', { key, class: align ? `align-${align}` : undefined }, children(node, context));
}

function renderNode(node: Nodes, context: Context, key: number): ComponentChildren {
  switch (node.type) {
    case 'text':
      return node.value;
    case 'paragraph':
      return h('p', { key }, children(node, context));
    case 'heading':
      return h(
        `h${Math.min(node.depth + 1, 6)}`,
        { key, id: context.slugger.slug(textOf(node)) },
        children(node, context),
      );
    case 'emphasis':
      return h('em', { key }, children(node, context));
    case 'strong':
      return h('strong', { key }, children(node, context));
    case 'delete':
      return h('del', { key }, children(node, context));
    case 'inlineCode':
      return h('code', { key }, node.value);
    case 'code':
      return h('pre', { key }, h('code', { class: node.lang ? `language-${node.lang}` : undefined }, node.value));
    case 'blockquote':
      return h('blockquote', { key }, children(node, context));
    case 'list':
      return node.ordered
        ? h('ol', { key, start: node.start ?? undefined }, children(node, context))
        : h('ul', { key }, children(node, context));
    case 'listItem':
      return h(
        'li',
        { key, class: typeof node.checked === 'boolean' ? 'task' : undefined },
        typeof node.checked === 'boolean'
          ? [h('input', { type: 'checkbox', checked: node.checked, disabled: true, key: 'check' }), ' ']
          : null,
        // A tight list's paragraphs are its lines, not blocks.
        node.spread
          ? children(node, context)
          : node.children.map((child, index) =>
              child.type === 'paragraph' ? children(child, context) : renderNode(child, context, index),
            ),
      );
    case 'thematicBreak':
      return h('hr', { key });
    case 'break':
      return h('br', { key });
    case 'link':
      return link(node.url, node.title, children(node, context), key);
    case 'linkReference': {
      const definition = context.definitions.get(node.identifier);
      return link(definition?.url ?? null, definition?.title, children(node, context), key);
    }
    case 'image':
    case 'imageReference':
      return h('span', { key, class: 'image-alt', title: 'image not loaded' }, `[image: ${node.alt ?? ''}]`);
    case 'table': {
      const [head, ...rows] = node.children;
      const align = node.align ?? [];
      const row = (r: typeof head, header: boolean, index: number) =>
        r &&
        h(
          'tr',
          { key: index },
          r.children.map((c, i) => cell(c, header, align[i], i, context)),
        );
      return h(
        'table',
        { key },
        h('thead', null, row(head, true, 0)),
        h(
          'tbody',
          null,
          rows.map((r, index) => row(r, false, index)),
        ),
      );
    }
    case 'html':
      // Raw HTML is shown as what it is, text.
      return h('code', { key, class: 'raw-html' }, node.value);
    case 'footnoteReference':
      return h('sup', { key }, `[${node.label ?? node.identifier}]`);
    case 'footnoteDefinition':
      return h('div', { key, class: 'footnote' }, [`[${node.label ?? node.identifier}] `, ...children(node, context)]);
    case 'definition':
      return null;
    default:
      // Anything else the parser may produce (front matter, …) carries no prose worth showing.
      return 'children' in node ? h('div', { key }, children(node, context)) : null;
  }
}
