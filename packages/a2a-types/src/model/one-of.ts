import * as z from 'zod/mini';

/** Exactly one key of `T` is present (the JSON shape of a proto `oneof`). */
export type OneOf<T> = {
  [K in keyof T]: { [P in K]: T[K] } & { [P in Exclude<keyof T, K>]?: never };
}[keyof T];

/**
 * A schema for a proto `oneof` serialized as an object with exactly one of the given keys.
 * Violations name the keys that were found, so a caller can fix the request.
 */
export function oneOfObject<Shape extends Record<string, z.core.SomeType>>(
  shape: Shape,
): z.ZodMiniType<OneOf<{ [K in keyof Shape]: z.output<Shape[K]> }>, unknown> {
  const optionalShape = Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, z.optional(schema)]));
  const keys = Object.keys(shape);
  return z.object(optionalShape).check(
    z.superRefine((value: Record<string, unknown>, ctx) => {
      const present = keys.filter((key) => value[key] !== undefined);
      if (present.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          message:
            present.length === 0
              ? `exactly one of ${keys.join(', ')} is required; none is set`
              : `exactly one of ${keys.join(', ')} is allowed; got ${present.join(', ')}`,
        });
      }
    }),
  ) as unknown as z.ZodMiniType<OneOf<{ [K in keyof Shape]: z.output<Shape[K]> }>, unknown>;
}
