import { describe, expect, it } from 'vitest';
import { renderMarkdown, safeHref } from '../../../src/apps/ui/client/markdown.js';
import { vnodeHtml } from './vnode-html.js';

const render = (source: string) => vnodeHtml(renderMarkdown(source));

describe('the dashboard renders Markdown safely', () => {
  it('renders CommonMark and GFM: headings, emphasis, lists, code, tables, task lists', () => {
    const html = render(
      '# Title\n\nSome *em* and **strong** and `code`.\n\n- one\n- two\n\n```ts\nconst x = 1;\n```\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] open\n',
    );
    expect(html).toContain('<h2 id="title">Title</h2>');
    expect(html).toContain('<em>em</em>');
    expect(html).toContain('<strong>strong</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(html).toContain('<pre><code class="language-ts">const x = 1;</code></pre>');
    expect(html).toContain('<th class="align-left">a</th><th class="align-right">b</th>');
    expect(html).toContain('<td class="align-left">1</td>');
    expect(html).toContain('<input type="checkbox" checked disabled>');
  });

  it('shows raw HTML as text: no element of the source reaches the page', () => {
    const html = render(
      'Hello <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n<div style="color:red">x</div>',
    );
    expect(html).not.toMatch(/<script|<img|<div style/);
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('keeps only http(s) and mailto links, opening in a new tab; others become text', () => {
    const html = render(
      '[ok](https://example.com/a) [mail](mailto:a@b.c) [js](javascript:alert(1)) [rel](./notes.md) [data](data:text/html,x)',
    );
    expect(html).toContain('<a href="https://example.com/a" target="_blank" rel="noopener noreferrer">ok</a>');
    expect(html).toContain('<a href="mailto:a@b.c"');
    expect(html).not.toMatch(/href="(javascript|data|\.\/)/);
    expect(html).toContain('<span class="link-text" title="javascript:alert(1)">js</span>');
    expect(safeHref(' JAVASCRIPT:x')).toBeNull();
  });

  it('never loads an image: its alt text stands in', () => {
    const html = render('![a chart](https://example.com/chart.png)\n\n![ref][c]\n\n[c]: https://example.com/c.png');
    expect(html).not.toContain('<img');
    expect(html).toContain('[image: a chart]');
    expect(html).toContain('[image: ref]');
  });

  it("gives headings GitHub's ids, so a document's links to its own headings work", () => {
    const html = render('- [Team a-docs](#team-a-docs)\n\n## Team `a-docs`\n\n## Team `a-docs`\n');
    expect(html).toContain('<a href="#team-a-docs">Team a-docs</a>');
    expect(html).toContain('<h3 id="team-a-docs">Team <code>a-docs</code></h3><h3 id="team-a-docs-1">');
    expect(safeHref('#x onclick=y')).toBeNull();
  });

  it('resolves reference links through their definitions', () => {
    expect(render('[docs][d]\n\n[d]: https://example.com/docs "Docs"')).toContain(
      '<a href="https://example.com/docs" title="Docs" target="_blank" rel="noopener noreferrer">docs</a>',
    );
  });
});
