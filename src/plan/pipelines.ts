/**
 * The chains of `from:` jobs in a plan: each path from a job that follows nothing to the last
 * job that follows it, with what each step creates.
 */

export interface PipelineStep {
  job: string;
  /** The job whose outputs it follows; null for the first step. */
  from: string | null;
  /** Tasks created per upstream output (combinations × repeat); null for the first step. */
  perUpstreamOutput: number | null;
  /** Whether it takes only the outputs the upstream's `select:` picks. */
  selected?: boolean;
  /** Tasks the step creates in all. */
  tasks: number;
  /** False when `tasks` is an upper bound. */
  exact: boolean;
}

/** Only what a chain needs of a plan group. */
interface StepSource {
  job: string;
  from: string | null;
  tasks: number;
  tasksExact: boolean;
  perUpstreamOutput: number | null;
  fromSelected?: unknown;
}

/** Every chain of at least two steps, first step first; a branching job gives one chain per branch. */
export function pipelinesOf(groups: readonly StepSource[]): PipelineStep[][] {
  const followers = new Map<string, StepSource[]>();
  for (const group of groups) {
    if (group.from === null) continue;
    followers.set(group.from, [...(followers.get(group.from) ?? []), group]);
  }
  const chains: PipelineStep[][] = [];
  const walk = (group: StepSource, chain: PipelineStep[]) => {
    const next = [...chain, stepOf(group)];
    const below = (followers.get(group.job) ?? []).filter(
      (follower) => !chain.some((step) => step.job === follower.job),
    );
    if (below.length === 0) {
      if (next.length > 1) chains.push(next);
      return;
    }
    for (const follower of below) walk(follower, next);
  };
  for (const group of groups) if (group.from === null) walk(group, []);
  return chains;
}

function stepOf(group: StepSource): PipelineStep {
  return {
    job: group.job,
    from: group.from,
    perUpstreamOutput: group.from === null ? null : group.perUpstreamOutput,
    ...(group.fromSelected === undefined ? {} : { selected: true }),
    tasks: group.tasks,
    exact: group.tasksExact,
  };
}

/** `captions (1 task) → images (1 per output of captions: 3 tasks) → clips (…)`. */
export function describePipeline(chain: readonly PipelineStep[]): string {
  return chain
    .map((step) => {
      const count = `${step.exact ? "" : "≤"}${step.tasks} ${step.tasks === 1 && step.exact ? "task" : "tasks"}`;
      return step.from === null
        ? `${step.job} (${count})`
        : `${step.job} (${step.perUpstreamOutput} per ${step.selected === true ? "selected " : ""}output of ${step.from}: ${count})`;
    })
    .join(" → ");
}
