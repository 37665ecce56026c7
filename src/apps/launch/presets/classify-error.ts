import type { RunOutcome } from '../../../core/schema/launch-run.js';
import type { StreamVerdict } from './agent-preset.js';

/**
 * What kind of failure an error message from an agent CLI or its provider describes. CLIs word these
 * differently (and several exit 0 on them), so the launcher reads the words: a rate limit or quota is
 * transient, a missing or rejected credential is `auth`, a spent budget is `budget`; anything else is a
 * crash.
 */
const PATTERNS: [RunOutcome, RegExp][] = [
  ['rate-limited', /rate[ _-]?limit|too many requests|\b429\b|quota|overloaded|resource[ _]exhausted|usage limit/i],
  [
    'auth',
    /auth(entication|orization)?[ _]?(error|failed|required)|unauthori[sz]ed|\b401\b|\b403\b|invalid[ _]api[ _]key|api[ _]key|not logged in|log ?in required|credentials?|no authentication|set an auth method/i,
  ],
  ['budget', /budget|spending limit|cost limit|insufficient (credit|balance|funds)/i],
  ['max-turns', /max(imum)?[ _-]?turns|turn limit/i],
];

export function classifyError(message: string | null): StreamVerdict {
  const text = message ?? '';
  const hit = PATTERNS.find(([, pattern]) => pattern.test(text));
  return { outcome: hit ? hit[0] : 'crashed', message };
}
