import type { RunStatus } from "../api/index.js";
import type { RunRow } from "../store/index.js";

/** What an agent can do next about a run, in the tools' words: what a person's hints say. */
export function nextSteps(run: Pick<RunRow, "id" | "status">, status: RunStatus): string[] {
  const states = status.states;
  const steps: string[] = [];
  if (run.status === "running") steps.push(`call status again: run ${run.id} is under way`);
  const failed = (states.failed ?? 0) + (states.expired ?? 0);
  if (failed > 0 && run.status !== "running")
    steps.push(
      `retry { run: ${run.id}, failed: true, expired: true } makes the ${failed} failed or expired tasks again`,
    );
  if ((states.held ?? 0) > 0)
    steps.push(
      `retry { run: ${run.id}, held: true } sends the held tasks once their cause is mended`,
    );
  if (run.status === "interrupted" || run.status === "stopped")
    steps.push(
      `retry { run: ${run.id} } or run the manifest again continues it without paying twice`,
    );
  if ((states.done ?? 0) > 0) steps.push(`outputs { run: ${run.id} } lists what was made`);
  return steps;
}
