// The ProtoJSON renamer on its own, free of zod: the client's structural validator uses it.
import { PROTO_MESSAGES, type ProtoMessageName } from './proto-names.js';
import type { FieldViolation } from './validation.js';

// Which message each operation's result is: what a client renames.
export { OPERATION_MESSAGES } from './methods.js';

/** What renaming needs of one message: `[protoName, jsonName]` of the fields whose names differ, and `[jsonName, type]` of its message-typed fields. */
interface MessageEntry {
  pairs: readonly (readonly [string, string])[];
  children: readonly (readonly [string, string])[];
}
const MAP_PREFIX = '{}';
const NO_FIELDS: MessageEntry = { pairs: [], children: [] };

/** `messageId` -> `message_id`: protoc's JSON name undone (the generator checks it holds for every field). */
const protoNameOf = (jsonName: string): string => jsonName.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The table, read from its string form on first use. */
let table: Map<string, MessageEntry> | undefined;
function entryOf(type: string): MessageEntry | undefined {
  if (table === undefined) {
    table = new Map();
    for (const message of PROTO_MESSAGES.split(';')) {
      if (message === '') continue;
      const [name, tokens] = message.split('=') as [string, string];
      const pairs: (readonly [string, string])[] = [];
      const children: (readonly [string, string])[] = [];
      for (const token of tokens.split(' ')) {
        const [jsonName, child] = token.split(':') as [string, string | undefined];
        // Exactly the JSON names with a capital have a different proto name.
        if (/[A-Z]/.test(jsonName)) pairs.push([protoNameOf(jsonName), jsonName]);
        if (child !== undefined) children.push([jsonName, child]);
      }
      table.set(name, { pairs, children });
    }
  }
  return table.get(type);
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

function renameArray(type: string, value: unknown[], path: string, violations: FieldViolation[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item = rename(type, value[i], `${path}[${i}]`, violations);
    if (item !== value[i]) {
      out ??= value.slice();
      out[i] = item;
    }
  }
  return out ?? value;
}

function renameMapValues(type: string, value: Record<string, unknown>, path: string, violations: FieldViolation[]): unknown {
  let out: Record<string, unknown> | undefined;
  // Map keys are the caller's names (scheme names, say): never renamed; only the values are messages.
  for (const key of Object.keys(value)) {
    const item = rename(type, value[key], join(path, key), violations);
    if (item !== value[key]) {
      out ??= { ...value };
      out[key] = item;
    }
  }
  return out ?? value;
}

function rename(type: string, value: unknown, path: string, violations: FieldViolation[]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return renameArray(type, value, path, violations);
  const entry = entryOf(type);
  if (entry === undefined) return value;
  const { pairs, children } = entry;
  const input = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  // Only the proto names this message declares are looked up: camelCase input costs a few lookups, no key walk.
  for (let i = 0; i < pairs.length; i++) {
    const [protoName, jsonName] = pairs[i] as readonly [string, string];
    if (!Object.hasOwn(input, protoName)) continue;
    out ??= { ...input };
    if (input[jsonName] !== undefined) {
      violations.push({ field: join(path, protoName), description: `${protoName} and ${jsonName} name the same field; send one` });
    } else {
      out[jsonName] = input[protoName];
    }
    delete out[protoName];
  }
  for (const [key, childType] of children) {
    const child = (out ?? input)[key];
    if (typeof child !== 'object' || child === null) continue;
    const renamed = childType.startsWith(MAP_PREFIX)
      ? renameMapValues(childType.slice(MAP_PREFIX.length), child as Record<string, unknown>, join(path, key), violations)
      : rename(childType, child, join(path, key), violations);
    if (renamed !== child) {
      out ??= { ...input };
      out[key] = renamed;
    }
  }
  return out ?? value;
}

/**
 * Renames the proto field names of `type`'s fields in `value`, at any depth, to their JSON names
 * (see `fromProtoJson`); the refused fields are pushed to `violations`. Free of zod: the client's
 * structural validator uses it.
 */
export function renameProtoFields(type: ProtoMessageName, value: unknown, fieldPrefix: string, violations: FieldViolation[]): unknown {
  return rename(type, value, fieldPrefix, violations);
}

/** The proto names a message declares, `[protoName, jsonName]`: for fast paths that decline such input. */
export function protoFieldNames(type: ProtoMessageName): readonly (readonly [string, string])[] {
  return (entryOf(type) ?? NO_FIELDS).pairs;
}
