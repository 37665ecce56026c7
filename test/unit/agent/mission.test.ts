import { describe, expect, it } from 'vitest';
import { planMission, stem } from '../../../src/agent/mission-plan.js';
import { searchMission } from '../../../src/agent/mission-search.js';
import { surveyCodebase } from '../../../src/agent/survey.js';
import { frameworkProject } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('planning the document from the mission', () => {
  it('a mission asking only for the overview has no topics and keeps the overview', () => {
    const demo = { subject: 'Document this codebase', body: 'Write an architecture overview for a newcomer: what it is, how it is laid out, how to build, run and test it.' };
    expect(planMission(demo, 'fed')).toEqual({ topics: [], overview: true });
    expect(planMission({ subject: 'Document the architecture', body: 'For newcomers to tiny-ts.' }, 'tiny-ts')).toEqual({ topics: [], overview: true });
    expect(planMission({ subject: 'Document the project', body: 'Write deliverable.md' }, 'x')).toEqual({ topics: [], overview: true });
    expect(planMission({ subject: 'Explain router.ts', body: '' }, 'x').topics.map((t) => t.terms)).toEqual([['rout']]);
  });

  it('questions become topics; "how does X flow" questions are flow topics; the project name is not a topic', () => {
    const plan = planMission({ subject: 'Request flow', body: 'How does a request flow through minifw?\nWhere are database queries made?' }, 'minifw');
    expect(plan.topics).toEqual([
      { title: 'How does a request flow through minifw?', source: 'How does a request flow through minifw?', terms: ['request'], paths: [], flow: true },
      { title: 'Where are database queries made?', source: 'Where are database queries made?', terms: ['databas', 'quer'], paths: [], flow: false },
    ]);
    expect(plan.overview).toBe(true);
  });

  it('quoted names and paths become topics; "only" leaves the overview out', () => {
    const plan = planMission({ subject: 'Only document the "payment gateway"', body: '- what lives in `src/billing/`?' }, 'shop');
    expect(plan.topics.map((t) => [t.title, t.terms, t.paths])).toEqual([
      ['payment gateway', ['payment', 'gateway'], []],
      ['src/billing', [], ['src/billing']],
      ['what lives in `src/billing/`?', ['live'], []],
    ]);
    expect(plan.overview).toBe(false);
  });

  it('stems join the forms of a word', () => {
    expect(['requests', 'routing', 'handled', 'handlers', 'queries', 'gateway', 'user'].map(stem)).toEqual(['request', 'rout', 'handl', 'handl', 'quer', 'gateway', 'user']);
  });
});

describe('answering the mission from a framework-like codebase', () => {
  const framework = () => surveyCodebase(frameworkProject(tempDir()));

  it('a flow question gets the chain of imports and calls from the entry point through the modules the request passes', () => {
    const survey = framework();
    const plan = planMission({ subject: 'How does a request flow through the framework?', body: '' }, survey.name);
    const [answer] = searchMission(survey, plan.topics).answers;
    expect(answer?.missing).toEqual([]);
    expect(answer?.chain?.files).toEqual(['src/index.js', 'src/server.js', 'src/router.js', 'src/middleware/chain.js', 'src/handlers/request-handler.js']);
    expect(answer?.chain?.steps.map((s) => [s.from, s.importLine?.line, s.callLine?.name, s.callLine?.line])).toEqual([
      ['src/index.js', 1, undefined, undefined],
      ['src/server.js', 2, 'dispatchRequest', 5],
      ['src/router.js', 2, 'runMiddleware', 7],
      ['src/middleware/chain.js', 1, 'handleRequest', 5],
    ]);
    // Ranked: the file named after the request first; the example, docs and tests rank below the product's code.
    expect(answer?.files[0]).toMatchObject({ path: 'src/handlers/request-handler.js', matchedBy: ['path', 'identifier', 'text'], terms: ['request'] });
    expect(answer?.files.map((f) => f.path)).not.toContain('examples/hello/app.js');
    expect(answer?.files[0]?.excerpts[0]).toEqual({ line: 2, text: "\nexport async function handleRequest(route, req, res) {\n  const rows = await query(route.sql);" });
  });

  it('a topic the codebase does not mention is unanswered, with the terms that were missing', () => {
    const survey = framework();
    const plan = planMission({ subject: 'Document the payment gateway', body: '' }, survey.name);
    const search = searchMission(survey, plan.topics);
    expect(search.answers.map((a) => [a.topic.title, a.missing, a.files])).toEqual([['Document the payment gateway', ['payment', 'gateway'], []]]);
    expect(search.searched).toBe(10);
  });

  it('a named path is answered by the files under it, and a missing one is not', () => {
    const survey = framework();
    const plan = planMission({ subject: 'Explain `src/db/`', body: 'And `src/cache/`.' }, survey.name);
    const search = searchMission(survey, plan.topics);
    expect(search.answers.map((a) => [a.topic.title, a.missing, a.files.map((f) => f.path)])).toEqual([
      ['src/db', [], ['src/db/pool.js']],
      ['src/cache', ['src/cache'], []],
    ]);
  });
});
