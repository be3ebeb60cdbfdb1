/** Header names whose values never reach the log. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);

/** Headers as a plain object, values of secret ones (and of `extra` names) replaced by `•••`. */
export function redactHeaders(headers: Headers, extra: ReadonlySet<string> = new Set()): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = SECRET_HEADERS.has(name) || extra.has(name) ? '•••' : value;
  });
  return out;
}

/** The URL with the values of `secretParams` (an API key in the query) replaced by `•••`. */
export function redactUrl(url: string, secretParams: ReadonlySet<string>): string {
  if (secretParams.size === 0) return url;
  const parsed = new URL(url);
  for (const name of secretParams) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '•••');
  return parsed.toString();
}
