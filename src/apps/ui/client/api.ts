import type {
  ActionRefusal,
  ActionRequest,
  ActionResult,
  BoardView,
  DiagramLayout,
  FederationView,
  NeedsYouView,
  PlanProposalView,
  SignalsView,
  SteeringView,
  SignalThreadView,
  TeamPageView,
  TranscriptChunk,
} from '../api-types.js';

/**
 * The page's only way to the server: the JSON routes of api-types.ts, same-origin (the session cookie
 * and Origin go along), nothing else. A failed read throws an ApiError the view shows in place.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  if (!response.ok) throw new ApiError(response.status, await failureMessage(response));
  return (await response.json()) as T;
}

async function failureMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // Not JSON: the text itself, or the status line, says what went wrong.
  }
  return text.trim() || `${response.status} ${response.statusText}`;
}

const segment = encodeURIComponent;

export const api = {
  board: () => getJson<BoardView>('/api/board'),
  needsYou: () => getJson<NeedsYouView>('/api/needs-you'),
  team: (id: string) => getJson<TeamPageView>(`/api/teams/${segment(id)}`),
  transcript: (id: string, from: number) =>
    getJson<TranscriptChunk>(`/api/teams/${segment(id)}/transcript?from=${from}`),
  signals: (query: { before?: string | null; limit?: number; team?: string }) => {
    const params = new URLSearchParams();
    if (query.before) params.set('before', query.before);
    if (query.limit) params.set('limit', String(query.limit));
    if (query.team) params.set('team', query.team);
    const search = params.toString();
    return getJson<SignalsView>(`/api/signals${search ? `?${search}` : ''}`);
  },
  signal: (id: string) => getJson<SignalThreadView>(`/api/signals/${segment(id)}`),
  federation: () => getJson<FederationView>('/api/federation'),
  steering: () => getJson<SteeringView>('/api/steering'),
  plan: (teams?: number) => getJson<PlanProposalView>(`/api/plan${teams ? `?teams=${teams}` : ''}`),
  diagram: (machineId: string) => getJson<DiagramLayout>(`/assets/diagrams/${segment(machineId)}.json`),
};

/** POST /api/actions: a button's action. */
export function postAction(request: ActionRequest): Promise<ActionResult | ActionRefusal> {
  return postJson('/api/actions', request);
}

/** The POST routes of api-types.ts: the buttons' actions and the steering forms. */
export type PostRoute =
  '/api/actions' | '/api/teams' | '/api/directives' | '/api/plan/apply' | '/api/schedules' | '/api/schedules/remove';

/**
 * POST a request to one of the routes. A refusal (fed's code and message) is returned, not thrown: the
 * page shows it next to the button or form. Anything else that fails (a lost session, a server error)
 * becomes a refusal too.
 */
export async function postJson(path: PostRoute, request: object): Promise<ActionResult | ActionRefusal> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request),
    });
  } catch (error) {
    return { ok: false, code: 'NETWORK', message: `The server cannot be reached: ${String(error)}` };
  }
  const text = await response.text();
  try {
    const body = JSON.parse(text) as ActionResult | ActionRefusal;
    if (typeof body === 'object' && body !== null && typeof body.ok === 'boolean') return body;
  } catch {
    // Not the contract's JSON: fall through to the status.
  }
  return {
    ok: false,
    code: `HTTP_${response.status}`,
    message: text.trim() || `${response.status} ${response.statusText}`,
  };
}
