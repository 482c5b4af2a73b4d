/** The last five cells (tasks, new, done, in flight, failed) and cost of `job`'s row in a printed plan. */
export function rowOf(stdout: string, job: string): string[] {
  const line = stdout.split("\n").find((candidate) => candidate.trimStart().startsWith(`${job} `));
  if (line === undefined) throw new Error(`no row for ${job} in\n${stdout}`);
  return line
    .trim()
    .split(/\s{2,}/)
    .slice(-5);
}
