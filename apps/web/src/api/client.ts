// The one place that talks JSON to /api: sends the tab's session id (X-Ferry-Session, so
// session-only files and "this session" filters work), turns non-2xx answers into ApiRequestError
// carrying the v2.1 error envelope, so every caller shows the same friendly message.
import type { ErrorEnvelope, Session } from '@ferry/contract';

const SESSION_HEADER = 'X-Ferry-Session';
const SESSION_KEY = 'ferry.session';

export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';
  readonly status: number;
  readonly code: string;
  readonly suggestion: string | undefined;
  readonly envelope: ErrorEnvelope | undefined;

  constructor(status: number, message: string, envelope?: ErrorEnvelope) {
    super(message);
    this.status = status;
    this.envelope = envelope;
    this.code = envelope?.meta_data.error_code ?? `HTTP_${status}`;
    const suggestion = envelope?.meta_data.details?.suggestion;
    this.suggestion = typeof suggestion === 'string' ? suggestion : undefined;
  }
}

function sessionId(): string | null {
  try {
    return sessionStorage.getItem(SESSION_KEY);
  } catch {
    return null;
  }
}

export function rememberSession(headers: Headers | string | null): void {
  const id = typeof headers === 'string' || headers === null ? headers : headers.get(SESSION_HEADER);
  if (!id) return;
  try {
    sessionStorage.setItem(SESSION_KEY, id);
  } catch {
    // Private mode without storage: the session simply lasts as long as the page.
  }
}

export function sessionHeaders(): Record<string, string> {
  const id = sessionId();
  return id ? { [SESSION_HEADER]: id } : {};
}

/** Reads an error answer: the envelope when it is one, else the status text. */
export async function errorFromResponse(response: Response): Promise<ApiRequestError> {
  const text = await response.text().catch(() => '');
  return errorFromText(response.status, text, response.statusText);
}

export function errorFromText(status: number, text: string, fallback = ''): ApiRequestError {
  try {
    const body = JSON.parse(text) as Partial<ErrorEnvelope>;
    if (body?.meta_data?.is_error) {
      const message = typeof body.results?.error === 'string' ? body.results.error : fallback;
      return new ApiRequestError(status, message || `HTTP ${status}`, body as ErrorEnvelope);
    }
  } catch {
    // not JSON
  }
  return new ApiRequestError(status, fallback || text.slice(0, 200) || `HTTP ${status}`);
}

export async function api<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, headers, ...rest } = init;
  const response = await fetch(path, {
    ...rest,
    headers: {
      accept: 'application/json',
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...sessionHeaders(),
      ...(headers as Record<string, string> | undefined),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  rememberSession(response.headers);
  if (!response.ok) throw await errorFromResponse(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export function contentUrl(fileId: string, options: { download?: boolean } = {}): string {
  return `/api/files/${encodeURIComponent(fileId)}/content${options.download ? '?download=true' : ''}`;
}

export async function openSession(): Promise<void> {
  const session = await api<Session>('/api/sessions', { method: 'POST' });
  rememberSession(session.id);
}
