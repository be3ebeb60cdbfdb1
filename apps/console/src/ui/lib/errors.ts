/** What the console shows of a failed call: the error's name, code, message and any refusal reason. */
export interface ShownError {
  name: string;
  message: string;
  code?: number;
  reason?: string;
  details?: unknown;
}

export function describeError(error: unknown): ShownError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const e = error as Error & { code?: unknown; reason?: unknown; details?: unknown; data?: unknown };
  const shown: ShownError = { name: e.name, message: e.message };
  if (typeof e.code === 'number') shown.code = e.code;
  const details =
    Array.isArray(e.details) && e.details.length > 0 ? e.details : Array.isArray(e.data) && e.data.length > 0 ? e.data : undefined;
  const fromDetails = details
    ?.map((d) => (typeof d === 'object' && d !== null ? (d as { reason?: unknown }).reason : undefined))
    .find((r) => typeof r === 'string');
  const reason = typeof fromDetails === 'string' ? fromDetails : typeof e.reason === 'string' && e.reason !== '' ? e.reason : undefined;
  if (reason) shown.reason = reason;
  if (details) shown.details = details;
  return shown;
}
