/**
 * Conditional GET of a served document (RFC 9110 §13): its validators and whether a request's
 * preconditions make the answer 304. A served document (card, JWKS) never changes once made, so
 * its `Last-Modified` is that moment, to the second.
 */

/** An HTTP date (IMF-fixdate) of `ms`, to the whole second. */
export function httpDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString();
}

/**
 * Whether the request's preconditions say the client's copy is current: `If-None-Match` (any
 * listed tag, weak or strong, or `*`) when present; otherwise `If-Modified-Since` not before
 * `lastModified` (an unparsable date is ignored, §13.1.3).
 */
export function isNotModified(
  ifNoneMatch: string | undefined,
  ifModifiedSince: string | undefined,
  etag: string,
  lastModified: string,
): boolean {
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*');
  }
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Date.parse(lastModified) <= since;
}
