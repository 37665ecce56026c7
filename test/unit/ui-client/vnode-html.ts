import type { ComponentChildren, VNode } from 'preact';

/**
 * A preact element tree as HTML-like text, for assertions in node (no DOM): elements and their props as
 * they would reach the DOM, text escaped the way the DOM would show it.
 */
export function vnodeHtml(node: ComponentChildren): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'bigint') return escape(String(node));
  if (Array.isArray(node)) return node.map(vnodeHtml).join('');
  const vnode = node as VNode<Record<string, unknown>>;
  if (typeof vnode.type !== 'string') throw new Error('vnodeHtml renders elements only, not components');
  const { children, ...props } = vnode.props;
  const attributes = Object.entries(props)
    .filter(([, value]) => value !== undefined && value !== null && value !== false)
    .map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${escape(String(value))}"`))
    .join('');
  return `<${vnode.type}${attributes}>${vnodeHtml(children as ComponentChildren)}</${vnode.type}>`;
}

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
