import { describe, expect, it } from 'vitest';
import { planMission } from '../../src/mission-plan.js';
import { agentContext, runBuiltInAgent, writeAgentDocument } from '../helpers/agent-document.js';
import { writeTree } from '../../../../test/helpers/fixture-repo.js';
import { goSessionRepo } from '../../../../test/helpers/go-session-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

async function outcomeOf(codebase: string, subject: string, body = '') {
  return runBuiltInAgent(agentContext(codebase, { mission: { subject, body } }));
}

/** A TypeScript cache with `refresh` and tokens (a lexer's), and nothing about logging in. */
const cacheLibrary = (root: string) =>
  writeTree(root, {
    'package.json': JSON.stringify({ name: 'quick-cache', main: 'src/index.ts' }),
    'src/index.ts': "export { Cache } from './cache.js';\nexport { tokenize } from './tokens.js';\n",
    'src/cache.ts':
      'const entries = new Map<string, string>();\n/** Reload an entry before it goes stale: a miss is redirected to the loader, keyed by its token. */\nexport function refreshEntry(key: string, load: () => string): void {\n  entries.set(key, load());\n}\nexport function redirectMiss(token: string): string | undefined {\n  return entries.get(token);\n}\n',
    'src/tokens.ts': "export function tokenize(text: string): string[] {\n  return text.split(' ');\n}\n",
  });

/** A shop that does take payments with Stripe: the same missions are answered there. */
const stripeShop = (root: string) =>
  writeTree(root, {
    'package.json': JSON.stringify({ name: 'shop', main: 'src/server.ts', dependencies: { stripe: '^17' } }),
    'src/server.ts':
      "import { createCheckout } from './payments/checkout.js';\nimport { handleWebhook } from './payments/webhook.js';\nexport const routes = { createCheckout, handleWebhook };\n",
    'src/payments/stripe-gateway.ts':
      "import Stripe from 'stripe';\n/** The payment gateway: every call to Stripe goes through here. */\nexport const stripe = new Stripe(process.env.STRIPE_KEY ?? '');\nexport const paymentGateway = { stripe };\n",
    'src/payments/checkout.ts':
      "import { stripe } from './stripe-gateway.js';\n/** Start a Stripe checkout session for the cart: the payment gateway takes over. */\nexport async function createCheckout(cart: string[]) {\n  return stripe.checkout.sessions.create({ line_items: cart.map((price) => ({ price, quantity: 1 })), mode: 'payment' });\n}\n",
    'src/payments/webhook.ts':
      "import { stripe } from './stripe-gateway.js';\n/** Stripe webhook: the payment gateway reports a finished checkout. */\nexport function handleWebhook(body: string, signature: string) {\n  return stripe.webhooks.constructEvent(body, signature, process.env.STRIPE_WEBHOOK_SECRET ?? '');\n}\n",
  });

const STRIPE =
  'Document how this codebase integrates with the Stripe payment gateway: the checkout flow and webhook handling';
const OKTA = 'OAuth login with Okta — the redirect and token refresh';

describe('a mission whose main subject the codebase does not have', () => {
  it('names its main subject apart from its parts; names stay names ("Stripe" is not "strip")', () => {
    const [stripe] = planMission({ subject: STRIPE, body: '' }, 'squad').topics;
    expect(stripe!.terms).toEqual(['integrat', 'stripe', 'payment', 'gateway', 'checkout', 'webhook']);
    expect(stripe!.main).toEqual(['integrat', 'stripe', 'payment', 'gateway']);
    expect(stripe!.tentative).toBeUndefined();
    const [okta] = planMission({ subject: OKTA, body: '' }, 'x').topics;
    expect(okta!.main).toEqual(['oauth', 'login', 'okta']);
    // Names are asked about whatever the phrasing; the other words stand where the codebase names them.
    expect(okta!.tentative).toEqual(['login', 'redirect', 'token', 'refresh']);
  });

  it('Stripe on a Go codebase with `git checkout`: fails, naming what was searched and the other sense it found', async () => {
    const outcome = await outcomeOf(goSessionRepo(tempDir()), STRIPE);
    expect(outcome.status).toBe('failed');
    const reason = outcome.status === 'failed' ? outcome.reason : '';
    expect(reason).toContain('required information cannot be found');
    expect(reason).toContain(
      'its main subject is absent: no file mentions most of "integrates", "stripe", "payment", "gateway" ("integrates", "stripe", "payment", "gateway" appear nowhere)',
    );
    expect(reason).toMatch(/found instead: "checkout" appears only as "git checkout" in [\w/., ]*app\/help\.go/);
  });

  it('OAuth with Okta on a codebase with `refresh` and tokens but no auth: the parts do not rescue it', async () => {
    const outcome = await outcomeOf(cacheLibrary(tempDir()), OKTA);
    expect(outcome.status).toBe('failed');
    const reason = outcome.status === 'failed' ? outcome.reason : '';
    expect(reason).toContain('its main subject is absent: no file mentions most of "oauth", "login", "okta"');
    expect(reason).toMatch(/found instead: [^]*"refresh" appears in src\/cache\.ts/);
    // One file has most of the words — every one of the parts — and still none of the main subject.
    const parts = await outcomeOf(cacheLibrary(tempDir()), 'OAuth with Okta — the redirect and token refresh');
    expect(parts.status).toBe('failed');
  });

  it('the same missions complete where the subject is there', async () => {
    const markdown = await writeAgentDocument(stripeShop(tempDir()), 'shop-docs', { subject: STRIPE, body: '' });
    expect(markdown).toContain('`src/payments/checkout.ts`');
    expect(markdown).toContain('`src/payments/webhook.ts`');
  });
});
