import type { TestProject } from "vitest/node";
import { buildCli } from "./helpers/build.js";
import { skippedTestsNoticeHere } from "./helpers/system-tools.js";
import usePostgres from "./postgres-setup.js";

/**
 * Global setup of the e2e project: its tests spawn bin/gwrun.js, which runs the compiled
 * dist/, so build it while the suite's PostgreSQL server starts (or is shared with the store
 * project). A skipped system test is announced once, here.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const notice = skippedTestsNoticeHere();
  if (notice !== undefined) process.stderr.write(`${notice}\n`);
  const [stopPostgres] = await Promise.all([usePostgres(project), buildCli()]);
  return stopPostgres;
}
