import { ERROR_INFO_TYPE } from '../constants.js';

/** `google.rpc.ErrorInfo` as a ProtoJSON `Any`. Metadata values are strings, as in the proto. */
export interface ErrorInfoDetail {
  '@type': typeof ERROR_INFO_TYPE;
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

/** A detail object of an error response: any ProtoJSON `Any` (it always has `@type`). */
export type ErrorDetail = { '@type': string } & Record<string, unknown>;

export function findErrorInfo(details: unknown): ErrorInfoDetail | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (
      typeof detail === 'object' &&
      detail !== null &&
      (detail as Record<string, unknown>)['@type'] === ERROR_INFO_TYPE &&
      typeof (detail as Record<string, unknown>).reason === 'string'
    ) {
      const info = detail as Record<string, unknown>;
      const metadata = stringMap(info.metadata);
      return {
        '@type': ERROR_INFO_TYPE,
        reason: info.reason as string,
        domain: typeof info.domain === 'string' ? info.domain : '',
        ...(metadata ? { metadata } : {}),
      };
    }
  }
  return undefined;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === 'string') out[key] = entry;
  }
  return out;
}
