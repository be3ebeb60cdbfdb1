/**
 * Reads an HTTP `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an HTTP date) as milliseconds from `now`;
 * `undefined` when absent or unreadable. A date in the past reads as 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date always names a weekday and a month; `Date.parse` would also take "-5" or "2" as a year.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
