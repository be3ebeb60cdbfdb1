/**
 * The extension URIs of `A2A-Extensions` values (spec §3.2.6: a comma-separated list; gRPC
 * metadata may repeat the key): trimmed, empty entries and repeats dropped, in order. Requests
 * (the server) and responses (the client's view of what the agent activated) read it the same way.
 */
export function splitExtensionList(raw: string | readonly string[] | null | undefined): string[] {
  if (raw === undefined || raw === null) return [];
  const out: string[] = [];
  for (const value of typeof raw === 'string' ? [raw] : raw) {
    for (const entry of value.split(',')) {
      const uri = entry.trim();
      if (uri !== '' && !out.includes(uri)) out.push(uri);
    }
  }
  return out;
}
