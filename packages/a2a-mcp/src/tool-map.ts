import type { AgentCard, AgentSkill, Part } from '@a2aplane/a2a-types';

/** A JSON Schema object for a tool's arguments (MCP requires `type: 'object'`). */
export interface ToolInputSchema {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

/** How one skill is exposed; every field is optional and defaults from the card. */
export interface SkillToolMapping {
  /** Tool name (1–64 of `A-Za-z0-9_-.`). Default: the skill id, other characters as `_`. */
  name?: string;
  description?: string;
  inputSchema?: ToolInputSchema;
  /** Builds the message parts from the tool's arguments. Default: `text` as a text part, `data` as a data part. */
  toParts?: (args: Record<string, unknown>) => Part[];
}

export interface BridgedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  readonly skill: AgentSkill;
  readonly toParts: (args: Record<string, unknown>) => Part[];
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** `text` and/or `data`: what every A2A skill accepts as a message. */
export const DEFAULT_INPUT_SCHEMA: ToolInputSchema = {
  type: 'object',
  properties: {
    text: { type: 'string', description: 'The message text sent to the agent.' },
    data: { type: 'object', description: 'Structured input, sent as a data part.' },
  },
  additionalProperties: false,
};

function defaultToParts(args: Record<string, unknown>): Part[] {
  const parts: Part[] = [];
  if (typeof args.text === 'string' && args.text !== '') parts.push({ text: args.text });
  if (args.data !== undefined && args.data !== null && typeof args.data === 'object' && !Array.isArray(args.data)) {
    parts.push({ data: args.data as Record<string, unknown> });
  }
  return parts;
}

function toolNameOf(skill: AgentSkill): string {
  const name = skill.id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
  return name === '' ? 'skill' : name;
}

function describe(skill: AgentSkill): string {
  const modes = skill.inputModes?.length ? ` Accepts: ${skill.inputModes.join(', ')}.` : '';
  return `${skill.description || skill.name}${modes}`;
}

/**
 * One MCP tool per skill of the card. A mapping entry for an unknown skill id, an invalid or a
 * duplicate tool name is a `TypeError`: a bridge must not silently expose the wrong surface.
 */
export function toolsFromCard(card: AgentCard, mapping: Readonly<Record<string, SkillToolMapping>> = {}): BridgedTool[] {
  const skills = card.skills ?? [];
  for (const id of Object.keys(mapping)) {
    if (!skills.some((skill) => skill.id === id)) throw new TypeError(`tool mapping names a skill the card does not have: ${id}`);
  }
  const seen = new Set<string>();
  return skills.map((skill) => {
    const entry = mapping[skill.id] ?? {};
    const name = entry.name ?? toolNameOf(skill);
    if (!TOOL_NAME.test(name)) throw new TypeError(`invalid MCP tool name for skill ${skill.id}`);
    if (seen.has(name)) throw new TypeError(`two skills map to the MCP tool name ${name}`);
    seen.add(name);
    const inputSchema = entry.inputSchema ?? DEFAULT_INPUT_SCHEMA;
    if (inputSchema.type !== 'object') throw new TypeError(`the input schema of ${name} must have type "object"`);
    return { name, description: entry.description ?? describe(skill), inputSchema, skill, toParts: entry.toParts ?? defaultToParts };
  });
}
