import * as z from 'zod/mini';
import { BytesSchema, StructSchema, type Struct } from './primitives.js';

const PART_CONTENT_FIELDS = ['text', 'raw', 'url', 'data'] as const;
export type PartContentField = (typeof PART_CONTENT_FIELDS)[number];

interface PartCommon {
  metadata?: Struct;
  filename?: string;
  mediaType?: string;
}

/** Exactly one content field is set (proto `oneof content`); the others are absent. */
export type TextPart = PartCommon & { text: string; raw?: never; url?: never; data?: never };
export type RawPart = PartCommon & { raw: string; text?: never; url?: never; data?: never };
export type UrlPart = PartCommon & { url: string; text?: never; raw?: never; data?: never };
export type DataPart = PartCommon & { data: unknown; text?: never; raw?: never; url?: never };
/** A piece of content in a Message or Artifact (spec §4.1.6). */
export type Part = TextPart | RawPart | UrlPart | DataPart;

const PartObjectSchema = /*#__PURE__*/ z.object({
  text: z.optional(z.string()),
  raw: z.optional(BytesSchema),
  url: z.optional(z.string()),
  data: z.optional(z.unknown()),
  metadata: z.optional(StructSchema),
  filename: z.optional(z.string()),
  mediaType: z.optional(z.string()),
});

export const PartSchema = PartObjectSchema.check(
  z.superRefine((part, ctx) => {
    const present = PART_CONTENT_FIELDS.filter((field) => part[field] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          present.length === 0
            ? 'exactly one of text, raw, url, data is required; none is set'
            : `exactly one of text, raw, url, data is allowed; got ${present.join(', ')}`,
      });
    }
  }),
) as unknown as z.ZodMiniType<Part, unknown>;

/** Which content field a part carries. */
export function partKind(part: Part): PartContentField {
  if (part.text !== undefined) return 'text';
  if (part.raw !== undefined) return 'raw';
  if (part.url !== undefined) return 'url';
  return 'data';
}
