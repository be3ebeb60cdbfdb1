import * as z from 'zod';

/** Credentials the server sends with each push notification (spec §4.3.2). */
export const AuthenticationInfoSchema = z.object({
  /** An IANA HTTP authentication scheme, such as `Bearer`. */
  scheme: z.string().min(1),
  credentials: z.string().optional(),
});
export type AuthenticationInfo = z.infer<typeof AuthenticationInfoSchema>;

/** A webhook registered for a task (spec §4.3.1). */
export const TaskPushNotificationConfigSchema = z.object({
  tenant: z.string().optional(),
  id: z.string().optional(),
  taskId: z.string().optional(),
  url: z.string().min(1),
  token: z.string().optional(),
  authentication: AuthenticationInfoSchema.optional(),
});
export type TaskPushNotificationConfig = z.infer<typeof TaskPushNotificationConfigSchema>;
