import * as z from 'zod/mini';

/** Credentials the server sends with each push notification (spec §4.3.2). */
export const AuthenticationInfoSchema = /*#__PURE__*/ z.object({
  /** An IANA HTTP authentication scheme, such as `Bearer`. */
  scheme: z.string().check(z.minLength(1)),
  credentials: z.optional(z.string()),
});
export type AuthenticationInfo = z.infer<typeof AuthenticationInfoSchema>;

/** A webhook registered for a task (spec §4.3.1). */
export const TaskPushNotificationConfigSchema = /*#__PURE__*/ z.object({
  tenant: z.optional(z.string()),
  id: z.optional(z.string()),
  taskId: z.optional(z.string()),
  url: z.string().check(z.minLength(1)),
  token: z.optional(z.string()),
  authentication: z.optional(AuthenticationInfoSchema),
});
export type TaskPushNotificationConfig = z.infer<typeof TaskPushNotificationConfigSchema>;
