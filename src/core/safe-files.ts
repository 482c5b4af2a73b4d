import path from "node:path";

/** Whether `file` lies below `dir` (both absolute). */
export function isBelow(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
