/**
 * Every address a host name resolves to, through `node:dns` where the runtime has it (Node, Deno,
 * Bun and workerd do). The module is loaded on first use by a name the bundler does not follow, so
 * the core loads on runtimes without it; there, resolving rejects and a webhook check fails closed
 * (the URL is refused) unless the caller passes its own `resolve`.
 */
export async function resolveHost(hostname: string): Promise<string[]> {
  const specifier = 'node:dns/promises';
  const dns = (await import(/* @vite-ignore */ specifier)) as typeof import('node:dns/promises');
  const records = await dns.lookup(hostname, { all: true, verbatim: true });
  return records.map((record) => record.address);
}
