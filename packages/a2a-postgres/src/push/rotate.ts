import type { Pool } from 'pg';
import { PushConfigCryptoError } from '../errors.js';
import { DEFAULT_SCHEMA, positive, quoteSchema, toUnavailable } from '../sql.js';
import { open, type PushConfigKeyring, pushConfigAad, seal } from './keyring.js';

export interface RotatePushConfigKeysOptions {
  schema?: string;
  /** The keyring: `currentKeyId` is the new key, and it still holds the old ones. */
  keys: PushConfigKeyring;
  /** Rows re-sealed per statement. Default 500. */
  batchSize?: number;
}

export interface RotatePushConfigKeysResult {
  /** Configs re-sealed under the current key. */
  resealed: number;
  /**
   * Configs left as they were because they cannot be opened: sealed under a key the keyring does
   * not hold, or not authenticating (changed in the table, or copied to another row).
   */
  unreadable: number;
}

/**
 * Re-seals every push config sealed under another key than `keys.currentKeyId`, in batches. Run it
 * after making a new key current (every replica already seals new configs with it); once it
 * reports no rows left under the old key, the old key can leave the keyring. Safe to run again,
 * and alongside live traffic: a row is rewritten only if it still holds what was read.
 */
export async function rotatePushConfigKeys(pool: Pool, options: RotatePushConfigKeysOptions): Promise<RotatePushConfigKeysResult> {
  const s = quoteSchema(options.schema ?? DEFAULT_SCHEMA);
  const batchSize = positive('batchSize', options.batchSize ?? 500);
  const { keys } = options;
  const current = keys.currentKeyId;
  let unreadable = 0;
  let resealed = 0;
  // One pass in key order (keyset pagination): rows that cannot be opened are passed over, once.
  let after: [string, string, string] = ['', '', ''];
  try {
    for (;;) {
      const { rows } = await pool.query<{ tenant: string; task_id: string; config_id: string; key_id: string; sealed: Buffer }>(
        `SELECT tenant, task_id, config_id, key_id, sealed FROM ${s}.push_configs
         WHERE key_id <> $1 AND (tenant, task_id, config_id) > ($2, $3, $4) ORDER BY tenant, task_id, config_id LIMIT $5`,
        [current, ...after, batchSize],
      );
      const last = rows.at(-1);
      if (last === undefined) break;
      after = [last.tenant, last.task_id, last.config_id];
      for (const row of rows) {
        const aad = pushConfigAad(row.tenant, row.task_id, row.config_id);
        let plaintext: string;
        try {
          plaintext = await open(keys, row.key_id, row.sealed, aad);
        } catch (error) {
          if (error instanceof PushConfigCryptoError) {
            unreadable += 1;
            continue;
          }
          throw error;
        }
        const next = await seal(keys, plaintext, aad);
        const updated = await pool.query(
          `UPDATE ${s}.push_configs SET key_id = $4, sealed = $5 WHERE tenant = $1 AND task_id = $2 AND config_id = $3 AND key_id = $6 AND sealed = $7`,
          [row.tenant, row.task_id, row.config_id, next.keyId, next.sealed, row.key_id, row.sealed],
        );
        resealed += updated.rowCount ?? 0;
      }
    }
  } catch (error) {
    throw toUnavailable(error);
  }
  return { resealed, unreadable };
}
