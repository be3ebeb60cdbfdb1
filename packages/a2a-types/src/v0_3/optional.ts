/** Copies the defined entries onto `target`: v0.3 and v1.0 both omit unset fields. */
export const withOptional = <T extends object>(target: T, entries: Record<string, unknown>): T => {
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  }
  return target;
};
