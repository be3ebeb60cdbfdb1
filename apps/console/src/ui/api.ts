/** The session token the backend wrote into the page; every `/api/*` call carries it. */
export function sessionToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="a2a-console-token"]')?.content ?? '';
}

/** `fetch` to the console's own backend (`/api/...`), with the session token. */
export function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('x-a2a-console-token', sessionToken());
  return fetch(path, { ...init, headers });
}

/** `apiFetch` answering the parsed JSON, or throwing the API's `{ error: { message } }`. */
export async function apiJson<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await apiFetch(path, init);
  const body = (await response.json().catch(() => ({}))) as T & { error?: { message?: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body;
}
