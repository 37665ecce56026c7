import { h, type ComponentChildren } from 'preact';
import type { Definition, Nodes, Parents, RootContent, TableCell } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * Markdown (a deliverable, the federation report, a signal's body) as preact elements, built from the
 * Markdown syntax tree node by node: text is always text, never markup. Raw HTML in the source shows as
 * the text it is; images are not loaded (the page requests nothing it did not bring), their alt text is
 * shown; links keep only http(s) and mailto addresses and open in a new tab.
 */
export function renderMarkdown(source: string) {
  const tree = fromMarkdown(source, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const definitions = new Map<string, Definition>();
  for (const node of tree.children) if (node.type === 'definition') definitions.set(node.identifier, node);
  return h('div', { class: 'markdown' }, children(tree, definitions));
}

/** The addresses a link may keep: anything else (javascript:, data:, a path of the team's workspace) is text. */
export function safeHref(url: string): string | null {
  return /^(https?:\/\/|mailto:)/i.test(url.trim()) ? url.trim() : null;
}

type Definitions = ReadonlyMap<string, Definition>;

function children(parent: Parents, definitions: Definitions): ComponentChildren[] {
  return parent.children.map((child, index) => renderNode(child as RootContent, definitions, index));
}

function link(url: string | null, title: string | null | undefined, content: ComponentChildren, key: number) {
  const href = url === null ? null : safeHref(url);
  if (!href) return h('span', { key, class: 'link-text', title: url ?? undefined }, content);
  return h('a', { key, href, title: title ?? undefined, target: '_blank', rel: 'noopener noreferrer' }, content);
}

function cell(
  node: TableCell,
  header: boolean,
  align: string | null | undefined,
  key: number,
  definitions: Definitions,
) {
  // The alignment goes through a class: the strict CSP forbids style attributes.
  return h(header ? 'th' : 'td', { key, class: align ? `align-${align}` : undefined }, children(node, definitions));
}

function renderNode(node: Nodes, definitions: Definitions, key: number): ComponentChildren {
  switch (node.type) {
    case 'text':
      return node.value;
    case 'paragraph':
      return h('p', { key }, children(node, definitions));
    case 'heading':
      return h(`h${Math.min(node.depth + 1, 6)}`, { key }, children(node, definitions));
    case 'emphasis':
      return h('em', { key }, children(node, definitions));
    case 'strong':
      return h('strong', { key }, children(node, definitions));
    case 'delete':
      return h('del', { key }, children(node, definitions));
    case 'inlineCode':
      return h('code', { key }, node.value);
    case 'code':
      return h('pre', { key }, h('code', { class: node.lang ? `language-${node.lang}` : undefined }, node.value));
    case 'blockquote':
      return h('blockquote', { key }, children(node, definitions));
    case 'list':
      return node.ordered
        ? h('ol', { key, start: node.start ?? undefined }, children(node, definitions))
        : h('ul', { key }, children(node, definitions));
    case 'listItem':
      return h(
        'li',
        { key, class: typeof node.checked === 'boolean' ? 'task' : undefined },
        typeof node.checked === 'boolean'
          ? [h('input', { type: 'checkbox', checked: node.checked, disabled: true, key: 'check' }), ' ']
          : null,
        // A tight list's paragraphs are its lines, not blocks.
        node.spread
          ? children(node, definitions)
          : node.children.map((child, index) =>
              child.type === 'paragraph' ? children(child, definitions) : renderNode(child, definitions, index),
            ),
      );
    case 'thematicBreak':
      return h('hr', { key });
    case 'break':
      return h('br', { key });
    case 'link':
      return link(node.url, node.title, children(node, definitions), key);
    case 'linkReference': {
      const definition = definitions.get(node.identifier);
      return link(definition?.url ?? null, definition?.title, children(node, definitions), key);
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
          r.children.map((c, i) => cell(c, header, align[i], i, definitions)),
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
      return h('div', { key, class: 'footnote' }, [
        `[${node.label ?? node.identifier}] `,
        ...children(node, definitions),
      ]);
    case 'definition':
      return null;
    default:
      // Anything else the parser may produce (front matter, …) carries no prose worth showing.
      return 'children' in node ? h('div', { key }, children(node, definitions)) : null;
  }
}
