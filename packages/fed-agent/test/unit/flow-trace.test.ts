import { describe, expect, it } from 'vitest';
import { answerQuestion } from '../../src/consult.js';
import { functionsOf } from '../../src/flow-functions.js';
import { flowMarkdown } from '../../src/flow-render.js';
import { traceFlow } from '../../src/flow-trace.js';
import { planMission } from '../../src/mission-plan.js';
import { searchMission } from '../../src/mission-search.js';
import { surveyCodebase } from 'fed/survey';
import { writeAgentDocument } from '../helpers/agent-document.js';
import { frameworkProject, pythonTokensProject, writeTree } from '../../../../test/helpers/fixture-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

/** The flow traced for `question` on the codebase at `root`. */
function trace(root: string, question: string) {
  const survey = surveyCodebase(root);
  const [answer] = searchMission(survey, planMission({ subject: question, body: '' }, survey.name).topics).answers;
  return traceFlow(survey, answer!);
}

const names = (steps: ReturnType<typeof traceFlow>) => steps?.map((s) => s.function);

describe('a how-does-X-work question, traced call by call', () => {
  it('TypeScript/JavaScript: from the entry function through each call, with file:line and the line itself', () => {
    const steps = trace(frameworkProject(tempDir()), 'How does a request flow through the framework?');
    expect(names(steps)).toEqual(['createServer', 'dispatchRequest', 'runMiddleware', 'handleRequest']);
    expect(steps![1]).toEqual({
      function: 'dispatchRequest',
      file: 'src/router.js',
      line: 5,
      excerpt: 'export function dispatchRequest(routes, req, res) {',
      call: { line: 7, text: 'return runMiddleware(route, req, res);' },
    });
    const markdown = flowMarkdown(steps!);
    expect(markdown).toContain(
      '1. `createServer` at `src/server.js:4`: `export function createServer(routes) {`; calls `dispatchRequest` at line 5',
    );
    expect(markdown).toContain('```mermaid\nsequenceDiagram\n  participant p0 as src/server.js');
    expect(markdown).toContain('  p2->>p3: handleRequest()');
  });

  it('TypeScript: a script’s top level, a re-exporting index, a class method on this, arrow functions', () => {
    const root = writeTree(tempDir(), {
      'package.json': JSON.stringify({ name: 'billing', bin: { bill: 'src/cli.ts' } }),
      'src/cli.ts': "import { Invoicer } from './index.js';\n\nnew Invoicer().issueInvoice(process.argv[2] ?? '');\n",
      'src/index.ts': "export * from './invoice.js';\n",
      'src/invoice.ts': [
        "import { totalOf } from './tax/total.js';",
        '',
        'export class Invoicer {',
        '  issueInvoice(customer: string): string {',
        '    return this.renderInvoice(customer, totalOf([1, 2]));',
        '  }',
        '',
        '  renderInvoice(customer: string, total: number): string {',
        '    return `${customer}: ${total}`;',
        '  }',
        '}',
        '',
      ].join('\n'),
      'src/tax/total.ts':
        'export const totalOf = (amounts: number[]): number =>\n  amounts.reduce((a, b) => a + b, 0);\n',
    });
    const steps = trace(root, 'How is an invoice issued?');
    expect(names(steps)).toEqual(['cli.ts (top level)', 'Invoicer.issueInvoice', 'Invoicer.renderInvoice']);
    expect(steps![0]).toMatchObject({ file: 'src/cli.ts', line: 3 });
  });

  it('Python: module imports (`from . import m` then `m.f(`) and parenthesised import lists', () => {
    const root = pythonTokensProject(tempDir());
    const steps = trace(root, 'How is a token verified?');
    expect(names(steps)).toEqual(['main', 'check_token', 'signature_of']);
    expect(steps!.map((s) => `${s.file}:${s.line}`)).toEqual([
      'tokens/cli.py:5',
      'tokens/verify.py:6',
      'tokens/signature.py:4',
    ]);
  });

  it('Go: `pkg.Func(` calls across the packages of the module, and a function in another file of the package', () => {
    const root = writeTree(tempDir(), {
      'go.mod': 'module example.com/shop\n\ngo 1.22\n',
      'cmd/shop/main.go':
        'package main\n\nimport "example.com/shop/internal/orders"\n\nfunc main() {\n\torders.PlaceOrder("book")\n}\n',
      'internal/orders/orders.go':
        'package orders\n\nimport "example.com/shop/internal/stock"\n\nfunc PlaceOrder(item string) bool {\n\treturn stock.Reserve(item) && recordOrder(item)\n}\n',
      'internal/orders/record.go': 'package orders\n\nfunc recordOrder(item string) bool { return item != "" }\n',
      'internal/stock/stock.go':
        'package stock\n\n// Reserve takes an item out of stock for an order.\nfunc Reserve(item string) bool { return item != "" }\n',
    });
    const steps = trace(root, 'How does an order flow through the shop?');
    expect(names(steps)).toEqual(['main', 'PlaceOrder', 'recordOrder']);
    expect(steps![1]!.call).toEqual({ line: 6, text: 'return stock.Reserve(item) && recordOrder(item)' });
  });

  it('a flow mission document and a consultant’s answer give the numbered steps; the document passes fed’s checks', async () => {
    const root = frameworkProject(tempDir());
    const survey = surveyCodebase(root);
    const answer = answerQuestion(survey, survey.name, {
      subject: 'How does a request flow through the framework?',
      body: '',
    });
    expect(answer).toContain(
      'How it works, call by call:\n1. createServer at src/server.js:4: export function createServer(routes) {; calls dispatchRequest at line 5\n2. dispatchRequest at src/router.js:5',
    );
    expect(answer).toContain('4. handleRequest at src/handlers/request-handler.js:3');
    const document = await writeAgentDocument(root, 'flow-docs', {
      subject: 'Request handling',
      body: 'How does a request flow through the framework?',
    });
    const steps = ['createServer', 'dispatchRequest', 'runMiddleware', 'handleRequest'].map((name) =>
      document.indexOf(`. \`${name}\` at \``),
    );
    expect(steps.every((at, i) => at !== -1 && (i === 0 || at > steps[i - 1]!))).toBe(true);
    expect(document).toContain('```mermaid\nsequenceDiagram\n');
  });

  it('strings holding characters outside the BMP (an emoji is two UTF-16 units) blank only themselves', () => {
    const calls = (text: string) => functionsOf(text, 'TypeScript').map((d) => [d.name, d.calls.map((c) => c.name)]);
    // The reviewer's line: `main` is called at the top level (its head is not at a line start), and `run`.
    expect(calls('const a = "😀😀😀😀"; function main(){ // helper()\n run(); }\n')).toEqual([
      ['(top level)', ['main', 'run']],
    ]);
    expect(calls('const a = "😀😀😀😀";\nfunction main() { // helper()\n  run();\n}\n')).toEqual([['main', ['run']]]);
  });

  it('a function met deep in one chain still leads on when another chain meets it near its start', () => {
    // main → step1 → … → step11 → verifyToken reaches verifyToken at the depth limit; handleToken calls it
    // directly, and its chain goes on to checkTokenSignature, whichever root was searched first.
    const steps = Array.from(
      { length: 11 },
      (_, i) => `export function step${i + 1}(t) {\n  return ${i === 10 ? 'verifyToken' : `step${i + 2}`}(t);\n}\n`,
    );
    const root = writeTree(tempDir(), {
      'package.json': JSON.stringify({ name: 'tokens', main: 'src/index.js' }),
      'src/index.js': "import { step1 } from './steps.js';\n\nexport function main() {\n  return step1('t');\n}\n",
      'src/steps.js': `import { verifyToken } from './verify.js';\n\n${steps.join('\n')}`,
      'src/verify.js':
        'export function verifyToken(token) {\n  return checkTokenSignature(token);\n}\n\nfunction checkTokenSignature(token) {\n  return token !== "";\n}\n',
      'src/handler.js':
        "import { verifyToken } from './verify.js';\n\nexport function handleToken(token) {\n  return verifyToken(token);\n}\n",
    });
    expect(names(trace(root, 'How does a token get verified?'))).toEqual([
      'handleToken',
      'verifyToken',
      'checkTokenSignature',
    ]);
  });
});
