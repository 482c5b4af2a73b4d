import * as z from "zod";

/** The shape of `output.renditions` and `output.provenance`. */

const positiveInt = z.number().int().positive();

/** One rendition every matching output is also delivered as, at an exact size. */
export const renditionSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/)
    .describe("the rendition's folder: <job>/renditions/<name>/<label>.<ext>"),
  width: positiveInt.max(8192),
  height: positiveInt.max(8192),
  fit: z
    .enum(["cover", "contain", "inside"])
    .describe("cover crops to the size, contain pads to it, inside fits within it"),
  format: z
    .enum(["jpeg", "png", "webp", "avif", "mp4"])
    .describe("mp4 applies to clips only, the others to pictures only"),
  quality: positiveInt.max(100).optional(),
  position: z
    .enum(["attention", "centre"])
    .optional()
    .describe("where a cover crop keeps the picture: its most salient part (default) or centre"),
  only: z.array(z.string().min(1)).min(1).optional().describe("job ids (default: every job)"),
});

export const renditionsSchema = z
  .array(renditionSchema)
  .refine((list) => new Set(list.map((r) => r.name)).size === list.length, {
    message: "rendition names must differ",
  });

export const provenanceSchema = z.strictObject({
  prompt: z
    .boolean()
    .optional()
    .describe("write the prompt into renditions' and exported copies' XMP (default true)"),
});

export type Rendition = z.infer<typeof renditionSchema>;
