import { AgentCardSchema, type AgentCard } from '@a2aplane/a2a-types';

/** Limits on a card submitted for enrollment (decision 0070). */
export interface CardLimits {
  /** Largest card text, in bytes. Default 65 536. */
  maxCardBytes?: number;
  /** Deepest nesting of arrays and objects. Default 32. */
  maxDepth?: number;
}

export const DEFAULT_MAX_CARD_BYTES = 65_536;
export const DEFAULT_MAX_CARD_DEPTH = 32;

type ParsedCard =
  | { ok: true; card: AgentCard; json: Record<string, unknown> }
  | { ok: false; reason: 'oversize' | 'too-deep' | 'malformed'; detail: string };

/** Nesting depth of JSON text, counted before parsing so a hostile card never reaches the parser. */
function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** Size, depth, JSON and the v1.0 card schema, in that order: the cheapest refusal first. */
export function parseSubmittedCard(text: unknown, limits: CardLimits = {}): ParsedCard {
  if (typeof text !== 'string') return { ok: false, reason: 'malformed', detail: 'card must be the signed card JSON text' };
  const maxBytes = limits.maxCardBytes ?? DEFAULT_MAX_CARD_BYTES;
  if (Buffer.byteLength(text, 'utf8') > maxBytes) return { ok: false, reason: 'oversize', detail: `card is larger than ${maxBytes} bytes` };
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_CARD_DEPTH;
  if (jsonDepthExceeds(text, maxDepth)) return { ok: false, reason: 'too-deep', detail: `card nests deeper than ${maxDepth} levels` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'malformed', detail: 'card is not JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { ok: false, reason: 'malformed', detail: 'card is not a JSON object' };
  const parsed = AgentCardSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      reason: 'malformed',
      detail: `card is not a v1.0 agent card: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
    };
  }
  return { ok: true, card: parsed.data, json: json as Record<string, unknown> };
}
