/** What a browser's failed chunk download throws; tests make a mocked chunk throw it. */
export const loadFailure = new Error('Failed to fetch dynamically imported module');

/** Whether `cause` is in `error`'s chain of causes (vitest wraps what a mock factory throws). */
export function causedBy(error: unknown, cause: Error = loadFailure): boolean {
  for (let e = error; e instanceof Error; e = e.cause) if (e === cause) return true;
  return false;
}
