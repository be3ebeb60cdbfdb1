import { z } from 'zod';
import { RegistryError } from '../core/errors.js';
import type { AgentRecord } from '../core/types.js';

/** The file store's file cannot be used: unreadable, not JSON, not a registry file, or past its size bound. It is left as it is. */
export class RegistryFileError extends RegistryError {
  static override readonly errorName: string = 'RegistryFileError';
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('BAD_FILE', `registry file ${path}: ${message}; it was left as it is`, options);
    this.path = path;
  }
  static override isInstance(value: unknown): value is RegistryFileError {
    return value instanceof Error && value.name === 'RegistryFileError' && typeof (value as { path?: unknown }).path === 'string';
  }
}

const FILE_FORMAT = 'a2aplane-registry';
const FILE_VERSION = 1;

const text = z.string().min(1);
const jwk = z.object({ kty: z.string(), crv: z.string(), x: z.string(), kid: z.string() }).loose();
const health = z
  .object({ status: z.enum(['unknown', 'up', 'degraded', 'down', 'non-conformant']), consecutiveFailures: z.number().int().min(0) })
  .loose();
// The record's shape as the stores rely on it (ids, indexes, revision); the card itself was verified at enrollment.
const RecordSchema = z
  .object({
    id: text,
    agentId: text,
    cardUrl: text,
    origin: text,
    cardText: text,
    card: z.object({ name: z.string() }).loose(),
    keys: z.array(jwk),
    keySince: z.string(),
    tier: z.string(),
    owner: z.string(),
    skills: z.array(z.string()),
    tags: z.array(z.string()),
    status: z.enum(['active', 'disabled', 'revoked']),
    enrolledAt: z.string(),
    updatedAt: z.string(),
    keyHistory: z.array(z.object({ agentId: text, keys: z.array(jwk) }).loose()),
    health,
    revision: z.number().int().min(1),
  })
  .loose();
const FileSchema = z.object({ format: z.literal(FILE_FORMAT), version: z.literal(FILE_VERSION), agents: z.array(RecordSchema) });

/** The records of a registry file's text, or a `RegistryFileError` that says what is wrong. */
export function parseRegistryFile(path: string, content: string): AgentRecord[] {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    throw new RegistryFileError(path, `is not JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = FileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the top level';
    throw new RegistryFileError(
      path,
      `is not a registry file of format ${FILE_FORMAT} version ${FILE_VERSION} (${where}: ${issue?.message ?? 'invalid'})`,
    );
  }
  return parsed.data.agents as unknown as AgentRecord[];
}

/** The file's text around its records' JSON texts (one record a line, so a diff of two snapshots reads). */
export const FILE_HEAD = `{"format":"${FILE_FORMAT}","version":${FILE_VERSION},"agents":[\n`;
export const FILE_TAIL = '\n]}\n';
export const FILE_SEPARATOR = ',\n';
