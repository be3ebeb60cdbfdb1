import * as z from 'zod';
import { PartSchema } from './part.js';
import { IdSchema, StructSchema, nonEmptyArray } from './primitives.js';

/** Sender of a message (spec §4.1.5). `ROLE_UNSPECIFIED` is accepted only where the role is optional. */
export const RoleSchema = z.enum(['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT']);
export type Role = z.infer<typeof RoleSchema>;

/** One turn of communication between a client and an agent (spec §4.1.4). */
export const MessageSchema = z.object({
  messageId: IdSchema,
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  parts: nonEmptyArray(PartSchema),
  metadata: StructSchema.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type Message = z.infer<typeof MessageSchema>;
