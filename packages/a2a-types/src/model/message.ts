import * as z from 'zod/mini';
import { PartSchema } from './part.js';
import { IdSchema, StructSchema, nonEmptyArray } from './primitives.js';

/** Sender of a message (spec §4.1.5). `ROLE_UNSPECIFIED` is accepted only where the role is optional. */
export const RoleSchema = /*#__PURE__*/ z.enum(['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT']);
export type Role = z.infer<typeof RoleSchema>;

/** One turn of communication between a client and an agent (spec §4.1.4). */
export const MessageSchema = /*#__PURE__*/ z.object({
  messageId: IdSchema,
  contextId: z.optional(z.string()),
  taskId: z.optional(z.string()),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  parts: nonEmptyArray(PartSchema),
  metadata: z.optional(StructSchema),
  extensions: z.optional(z.array(z.string())),
  referenceTaskIds: z.optional(z.array(z.string())),
});
export type Message = z.infer<typeof MessageSchema>;
