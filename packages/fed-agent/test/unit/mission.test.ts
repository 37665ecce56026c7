import { describe, expect, it } from 'vitest';
import { planMission, stem } from '../../src/mission-plan.js';
import { searchMission } from '../../src/mission-search.js';
import { surveyCodebase } from 'fed/survey';
import { frameworkProject, pythonTokensProject, writeTree } from '../../../../test/helpers/fixture-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

describe('planning the document from the mission', () => {
  it('a mission asking only for the overview has no topics and keeps the overview', () => {
    const demo = {
      subject: 'Document this codebase',
      body: 'Write an architecture overview for a newcomer: what it is, how it is laid out, how to build, run and test it.',
    };
    expect(planMission(demo, 'fed')).toEqual({ kind: 'architecture', topics: [], overview: true, packageGraph: false });
    expect(planMission({ subject: 'Document the architecture', body: 'For newcomers to tiny-ts.' }, 'tiny-ts')).toEqual(
      { kind: 'architecture', topics: [], overview: true, packageGraph: false },
    );
    expect(planMission({ subject: 'Document the project', body: 'Write deliverable.md' }, 'x')).toEqual({
      kind: 'overview',
      topics: [],
      overview: true,
      packageGraph: false,
    });
    expect(planMission({ subject: 'Explain router.ts', body: '' }, 'x').topics.map((t) => t.terms)).toEqual([['rout']]);
  });

  it.each([
    ['Survey the codebase', 'Read-only study.', 'overview'],
    ['Survey the codebase', '', 'overview'],
    ['Doc', '', 'overview'],
    ['Document this codebase', '', 'overview'],
    ['Please study this repo', '', 'overview'],
    ['Study the code base', 'Produce documentation. Do not change anything.', 'overview'],
    ['Architecture', '', 'architecture'],
    ['Write a short overview for new contributors', '', 'onboarding'],
    ['Give me an onboarding guide', '', 'onboarding'],
    ['Describe what this code does and how to get started', '', 'onboarding'],
    ['Audit', 'A short review, please.', 'audit'],
    ['API reference', '', 'reference'],
    ["I'd like an overview of the project's code", '', 'overview'],
    ['Give an introduction to the code for new hires', 'Explain its purpose and main features.', 'overview'],
    ["Don't modify anything; just summarise what's here", '', 'overview'],
    ['How is the code organized?', '', 'architecture'],
    ['How do I run the tests?', '', 'onboarding'],
    ['How do I contribute?', '', 'onboarding'],
  ] as const)('%j %j asks for the general %s document, with no topics', (subject, body, kind) => {
    expect(planMission({ subject, body }, 'x')).toEqual({ kind, topics: [], overview: true, packageGraph: false });
  });

  it('the kind comes from the subject first, then a how-does-X-work question, then the body', () => {
    const kind = (subject: string, body = '') => planMission({ subject, body }, 'x').kind;
    expect(kind('Audit error handling', 'Look at the architecture too.')).toBe('audit');
    expect(kind('How does a request get routed?', 'Cover the architecture.')).toBe('flow');
    expect(kind('Request handling', 'How does a request get routed?')).toBe('flow');
    expect(kind('Request handling', 'Cover the architecture.')).toBe('architecture');
    expect(kind('Document the payment gateway')).toBe('overview');
    // A how-question inside an instruction asks for a flow explanation too; "how to build it" does not.
    expect(kind('Explain how the router works')).toBe('flow');
    expect(planMission({ subject: 'Document how a request gets handled', body: '' }, 'x').topics).toMatchObject([
      { terms: ['request', 'handl'], flow: true },
    ]);
    expect(kind('Describe how to build it')).toBe('onboarding');
    // Paths name places, not kinds of document.
    expect(kind('Document src/api.ts')).toBe('overview');
    expect(kind('Document packages/audit/')).toBe('overview');
    expect(kind('Document `packages/audit/`', 'An architecture overview.')).toBe('architecture');
  });

  it('"read-only" and constraints on how to work neither restrict the document nor become topics', () => {
    expect(planMission({ subject: 'Explain the router', body: 'Read-only study.' }, 'x')).toMatchObject({
      topics: [{ terms: ['rout'] }],
      overview: true,
    });
    expect(planMission({ subject: 'Explain the router only', body: '' }, 'x').overview).toBe(false);
    // A question keeps its words: "without" says what it asks about there.
    expect(
      planMission({ subject: 'How does the cache work without redis?', body: '' }, 'x').topics.map((t) => t.terms),
    ).toEqual([['cach', 'redi']]);
  });

  it('questions become topics; "how does X flow" questions are flow topics; the project name is not a topic', () => {
    const plan = planMission(
      { subject: 'Request flow', body: 'How does a request flow through minifw?\nWhere are database queries made?' },
      'minifw',
    );
    expect(plan.topics).toEqual([
      {
        title: 'How does a request flow through minifw?',
        source: 'How does a request flow through minifw?',
        terms: ['request'],
        words: ['request'],
        paths: [],
        flow: true,
        exact: false,
      },
      {
        title: 'Where are database queries made?',
        source: 'Where are database queries made?',
        terms: ['databas', 'quer'],
        words: ['database', 'queries'],
        paths: [],
        flow: false,
        exact: false,
        // A question that no document verb or flow asks: its words stand where the codebase names them.
        tentative: ['databas', 'quer'],
      },
    ]);
    expect(plan.overview).toBe(true);
  });

  it('open phrasing is tentative; what a document verb, a flow question or code asks about is not', () => {
    const tentative = (subject: string) =>
      planMission({ subject, body: '' }, 'x').topics.map((t) => [t.terms, t.tentative ?? []]);
    expect(tentative('Give me the lay of the land.')).toEqual([
      [
        ['lay', 'land'],
        ['lay', 'land'],
      ],
    ]);
    expect(tentative('What are its moving parts?')).toEqual([[['moving'], ['moving']]]);
    expect(tentative('How do I get up and running locally?')).toEqual([[['locally'], ['locally']]]);
    expect(tentative('Document the payment gateway')).toEqual([[['payment', 'gateway'], []]]);
    expect(tentative('Can you describe the payment gateway?')).toEqual([[['payment', 'gateway'], []]]);
    expect(tentative('How does a blockchain ledger get reconciled?')).toEqual([
      [['blockchain', 'ledg', 'reconcil'], []],
    ]);
    expect(tentative('Stay high level around parseArgs')).toEqual([
      [
        ['stay', 'around', 'parsearg'],
        ['stay', 'around'],
      ],
    ]);
  });

  it('quoted names and paths become topics; "only" leaves the overview out', () => {
    const plan = planMission(
      { subject: 'Only document the "payment gateway"', body: '- what lives in `src/billing/`?' },
      'shop',
    );
    expect(plan.topics.map((t) => [t.title, t.terms, t.paths])).toEqual([
      ['payment gateway', ['payment', 'gateway'], []],
      ['src/billing', [], ['src/billing']],
      ['what lives in `src/billing/`?', ['live'], []],
    ]);
    expect(plan.overview).toBe(false);
  });

  it('stems join the forms of a word', () => {
    expect(['requests', 'routing', 'handled', 'handlers', 'queries', 'gateway', 'user'].map(stem)).toEqual([
      'request',
      'rout',
      'handl',
      'handl',
      'quer',
      'gateway',
      'user',
    ]);
  });
});

describe('answering the mission from a framework-like codebase', () => {
  const framework = () => surveyCodebase(frameworkProject(tempDir()));

  it('a flow question gets the chain of imports and calls through the modules the request passes', () => {
    const survey = framework();
    const plan = planMission({ subject: 'How does a request flow through the framework?', body: '' }, survey.name);
    const [answer] = searchMission(survey, plan.topics).answers;
    expect(answer?.missing).toEqual([]);
    expect(answer?.chain?.files).toEqual([
      'src/server.js',
      'src/router.js',
      'src/middleware/chain.js',
      'src/handlers/request-handler.js',
    ]);
    expect(answer?.chain?.steps.map((s) => [s.from, s.importLine?.line, s.callLine?.name, s.callLine?.line])).toEqual([
      ['src/server.js', 2, 'dispatchRequest', 5],
      ['src/router.js', 2, 'runMiddleware', 7],
      ['src/middleware/chain.js', 1, 'handleRequest', 5],
    ]);
    // Ranked: the file named after the request first; the example, docs and tests rank below the product's code.
    expect(answer?.files[0]).toMatchObject({
      path: 'src/handlers/request-handler.js',
      matchedBy: ['path', 'identifier', 'text'],
      terms: ['request'],
    });
    // "database" is found as `db`, the usual abbreviation in code.
    const [queries] = searchMission(
      survey,
      planMission({ subject: 'Where are database queries made?', body: '' }, survey.name).topics,
    ).answers;
    expect(queries?.missing).toEqual([]);
    expect(queries?.files[0]).toMatchObject({
      path: 'src/db/pool.js',
      matchedBy: ['path', 'identifier', 'text'],
      terms: ['database', 'queries'],
    });
    expect(answer?.files.map((f) => f.path)).not.toContain('examples/hello/app.js');
    expect(answer?.files[0]?.excerpts[0]).toEqual({
      line: 3,
      text: 'export async function handleRequest(route, req, res) {\n  const rows = await query(route.sql);',
    });
  });

  it('a topic the codebase does not mention is unanswered, with the terms that were missing', () => {
    const survey = framework();
    const plan = planMission({ subject: 'Document the payment gateway', body: '' }, survey.name);
    const search = searchMission(survey, plan.topics);
    expect(search.answers.map((a) => [a.topic.title, a.missing, a.files])).toEqual([
      ['Document the payment gateway', ['payment', 'gateway'], []],
    ]);
    expect(search.searched).toBe(10);
  });

  it('a question is answered when one file matches most of its words; a quoted name needs every word', () => {
    const survey = framework();
    const ask = (subject: string) =>
      searchMission(survey, planMission({ subject, body: '' }, survey.name).topics).answers[0]!;
    // "talks" appears nowhere, but the router matches "router" and "middleware": the question is answered.
    expect(ask('How does the router talk to the middleware?')).toMatchObject({ answered: true, missing: ['talk'] });
    // A quoted name is one thing: "request cache" is not in a codebase that has requests but no cache.
    expect(ask('Document the "request cache"')).toMatchObject({ answered: false, missing: ['cache'] });
  });

  it('British and American spellings find each other', () => {
    const survey = surveyCodebase(
      writeTree(tempDir(), {
        'src/auth.ts': 'export function authorizeUser(user: string) {\n  return user !== "";\n}\n',
      }),
    );
    const [answer] = searchMission(
      survey,
      planMission({ subject: 'Where are users authorised?', body: '' }, survey.name).topics,
    ).answers;
    expect(answer).toMatchObject({ answered: true, missing: [] });
    expect(answer?.files[0]).toMatchObject({
      path: 'src/auth.ts',
      matchedBy: ['identifier', 'text'],
      terms: ['users', 'authorised'],
    });
  });

  it('a named path is answered by the files under it, and a missing one is not', () => {
    const survey = surveyCodebase(writeTree(frameworkProject(tempDir()), { 'config/routes.yaml': 'routes: []\n' }));
    const plan = planMission(
      { subject: 'Explain `src/db/`', body: 'And `src/cache/`. What is in `config/`?' },
      survey.name,
    );
    const search = searchMission(survey, plan.topics);
    expect(search.answers.map((a) => [a.topic.title, a.answered, a.missing, a.files.map((f) => f.path)])).toEqual([
      ['src/db', true, [], ['src/db/pool.js']],
      ['src/cache', false, ['src/cache'], []],
      // A folder of data files is not searched for words, but it is there.
      ['config', true, [], ['config/routes.yaml']],
    ]);
  });
});

describe('answering a flow question in Python and Go', () => {
  it('Python: module imports (`from . import m` then `m.f(`) and parenthesised import lists name the calls', () => {
    const root = pythonTokensProject(tempDir());
    const survey = surveyCodebase(root);
    const [answer] = searchMission(
      survey,
      planMission({ subject: 'How is a token verified?', body: '' }, survey.name).topics,
    ).answers;
    expect(answer?.chain?.files).toEqual(['tokens/cli.py', 'tokens/verify.py', 'tokens/signature.py']);
    expect(answer?.chain?.steps.map((s) => [s.importLine?.line, s.callLine?.name, s.callLine?.line])).toEqual([
      [2, 'verify.check_token', 6],
      [1, 'signature_of', 7],
    ]);
  });

  it('Go: `pkg.Func(` calls on imported packages of the module', () => {
    const root = writeTree(tempDir(), {
      'go.mod': 'module example.com/shop\n\ngo 1.22\n',
      'cmd/shop/main.go':
        'package main\n\nimport "example.com/shop/internal/orders"\n\nfunc main() {\n\torders.PlaceOrder("book")\n}\n',
      'internal/orders/orders.go':
        'package orders\n\nimport "example.com/shop/internal/stock"\n\nfunc PlaceOrder(item string) bool {\n\treturn stock.Reserve(item)\n}\n',
      'internal/stock/stock.go':
        'package stock\n\n// Reserve takes an item out of stock for an order.\nfunc Reserve(item string) bool { return item != "" }\n',
    });
    const survey = surveyCodebase(root);
    const [answer] = searchMission(
      survey,
      planMission({ subject: 'How does an order flow through the shop?', body: '' }, survey.name).topics,
    ).answers;
    expect(answer?.chain?.files).toEqual(['cmd/shop/main.go', 'internal/orders/orders.go', 'internal/stock/stock.go']);
    expect(answer?.chain?.steps.map((s) => [s.importLine?.line, s.callLine?.name, s.callLine?.line])).toEqual([
      [3, 'orders.PlaceOrder', 6],
      [3, 'stock.Reserve', 6],
    ]);
  });
});
