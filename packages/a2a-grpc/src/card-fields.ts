/**
 * Proto JSON leaves out fields at their default, REQUIRED ones included (an empty `tags`, an empty
 * `description`); a card's signature covers REQUIRED fields whatever their value (spec §8.4.1
 * rule 1). A card read back from protobuf gets them back, so that it verifies as it was signed.
 */
type Fields = Readonly<Record<string, 'string' | 'list' | 'object'>>;

const CARD: Fields = {
  name: 'string',
  description: 'string',
  version: 'string',
  supportedInterfaces: 'list',
  capabilities: 'object',
  defaultInputModes: 'list',
  defaultOutputModes: 'list',
  skills: 'list',
};
const SKILL: Fields = { id: 'string', name: 'string', description: 'string', tags: 'list' };
const INTERFACE: Fields = { url: 'string', protocolBinding: 'string', protocolVersion: 'string' };
const PROVIDER: Fields = { url: 'string', organization: 'string' };
const EMPTY = { string: () => '', list: () => [], object: () => ({}) } as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function fill(target: unknown, fields: Fields): void {
  if (!isObject(target)) return;
  for (const [key, kind] of Object.entries(fields)) if (!(key in target)) target[key] = EMPTY[kind]();
}

/** Restores the REQUIRED fields of a decoded `AgentCard` (in place) and returns it. */
export function withRequiredCardFields<T>(card: T): T {
  if (!isObject(card)) return card;
  fill(card, CARD);
  for (const skill of card.skills as unknown[]) fill(skill, SKILL);
  for (const entry of card.supportedInterfaces as unknown[]) fill(entry, INTERFACE);
  if (card.provider !== undefined) fill(card.provider, PROVIDER);
  return card;
}
