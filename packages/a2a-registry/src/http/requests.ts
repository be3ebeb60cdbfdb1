import { z } from 'zod';
import type { AgentQuery, HealthStatus } from '../core/types.js';

const HEALTH = ['unknown', 'up', 'degraded', 'down', 'non-conformant'] as const;
const shortText = z.string().max(256);

/** ARD `POST /search` (decision 0071): free text, filters, page size and token. Unknown members are refused. */
export const SearchRequestSchema = z
  .object({
    query: shortText.optional(),
    filters: z
      .object({
        skill: shortText.optional(),
        tag: shortText.optional(),
        type: z.string().max(128).optional(),
        health: z.array(z.enum(HEALTH)).max(5).optional(),
      })
      .strict()
      .optional(),
    pageSize: z.number().int().min(1).max(100).optional(),
    pageToken: z.string().max(512).optional(),
  })
  .strict();

export type SearchRequest = z.infer<typeof SearchRequestSchema>;

export const EnrollRequestSchema = z
  .object({
    card: z.string(),
    jwks: z.object({ keys: z.array(z.unknown()).max(16) }).optional(),
    cardUrl: z.string().max(2048).optional(),
    tier: z.string().optional(),
    owner: z.string().optional(),
  })
  .strict();

export const StatusChangeSchema = z.object({ reason: z.string().max(256).optional() }).strict();

export function searchToQuery(request: SearchRequest): AgentQuery {
  return {
    ...(request.query !== undefined ? { text: request.query } : {}),
    ...(request.filters?.skill !== undefined ? { skill: request.filters.skill } : {}),
    ...(request.filters?.tag !== undefined ? { tag: request.filters.tag } : {}),
    ...(request.filters?.health !== undefined ? { health: request.filters.health } : {}),
    ...(request.pageSize !== undefined ? { limit: request.pageSize } : {}),
    ...(request.pageToken !== undefined ? { cursor: request.pageToken } : {}),
  };
}

/** `GET /agents` query parameters: the same filters as search, plus `origin` and `status=all`. */
export function listParamsToQuery(params: URLSearchParams): AgentQuery | string {
  const query: AgentQuery = {};
  for (const [name, value] of params) {
    if (value.length > 512) return `parameter ${name} is too long`;
    if (name === 'skill') query.skill = value;
    else if (name === 'tag') query.tag = value;
    else if (name === 'query') query.text = value;
    else if (name === 'origin') query.origin = value;
    else if (name === 'pageToken') query.cursor = value;
    else if (name === 'pageSize') {
      const size = Number(value);
      if (!Number.isInteger(size) || size < 1 || size > 100) return 'pageSize must be an integer from 1 to 100';
      query.limit = size;
    } else if (name === 'health') {
      const list = value.split(',');
      if (!list.every((entry): entry is HealthStatus => (HEALTH as readonly string[]).includes(entry)))
        return `health must be among ${HEALTH.join(', ')}`;
      query.health = list;
    } else if (name === 'status') {
      if (value !== 'all' && value !== 'active') return 'status must be active or all';
      query.includeInactive = value === 'all';
    } else return `unknown parameter ${name}`;
  }
  return query;
}
