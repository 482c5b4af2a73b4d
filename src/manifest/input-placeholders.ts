/** Values that stand in for an upstream output while validating a `from:` job. */
export const INPUT_PLACEHOLDERS = {
  url: (from: string) => `https://upstream.invalid/${from}/output`,
  file: () => "data:image/png;base64,iVBORw0KGgo=",
  text: (from: string) => `(text produced by ${from})`,
} as const;
