let lastMs = Number.NaN;
let lastIso = '';

/** `new Date().toISOString()`, made once per millisecond (status events come in bursts). */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}
