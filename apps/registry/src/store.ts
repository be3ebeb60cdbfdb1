import { parseArgs } from 'node:util';
import { createFileRegistryStore, type RegistryStore } from '@a2aplane/a2a-registry';
import { createPostgresRegistryStore } from '@a2aplane/a2a-registry/postgres';

/** Where the registry keeps its agents: memory (default), a JSON file, or PostgreSQL (replicas). */
export type StoreChoice = { kind: 'memory' } | { kind: 'file'; path: string } | { kind: 'postgres'; connectionString: string };

/** `--data FILE` (or `REGISTRY_DATA_FILE`) for the file store; `REGISTRY_DATABASE_URL` for PostgreSQL; not both. */
export function storeChoice(env: Record<string, string | undefined>, argv: readonly string[]): StoreChoice {
  const { values } = parseArgs({ args: [...argv], options: { data: { type: 'string' } }, strict: true, allowPositionals: false });
  const path = values.data ?? env.REGISTRY_DATA_FILE;
  const databaseUrl = env.REGISTRY_DATABASE_URL;
  if (path !== undefined && databaseUrl) throw new RangeError('give --data (a file) or REGISTRY_DATABASE_URL (PostgreSQL), not both');
  if (path === '') throw new RangeError('--data expects a file');
  if (path !== undefined) return { kind: 'file', path };
  return databaseUrl ? { kind: 'postgres', connectionString: databaseUrl } : { kind: 'memory' };
}

export async function openStore(choice: StoreChoice): Promise<RegistryStore | undefined> {
  if (choice.kind === 'file') return createFileRegistryStore({ path: choice.path });
  if (choice.kind === 'postgres') return createPostgresRegistryStore({ connectionString: choice.connectionString });
  return undefined;
}
