import type { Clock } from "../core/clock.js";
import { roundMoney } from "../core/money.js";
import { periodAround, periodName } from "../core/periods.js";
import type { BudgetRow, Store } from "../store/index.js";

/**
 * Budgets across runs (`gwrun budget set`) as a run's submits meet them: a task goes only if
 * what every run sent this period spent or reserves (read from the store, so other runs and
 * processes count), plus what this run took since that reading, plus the task's own
 * reservation, stays within each budget that holds for the run's gateway. The reading is
 * renewed once a second in the background; until the first one, nothing is sent.
 */

/** How old a reading of the store may be before a new one is asked for, ms. */
const FRESH_MS = 1000;
/** Tasks taken this long before a reading began may not be in it yet: they count beside it. */
const CLAIM_LAG_MS = 250;

interface Reading {
  /** What each budget's period spent, by scope, at `startedAt`. */
  spent: Map<string, number>;
  startedAt: number;
}

export class PeriodBudgets {
  readonly #store: Pick<Store, "budgets" | "periodSpend">;
  readonly #gateway: string;
  readonly #clock: Clock;
  #budgets: BudgetRow[] | undefined;
  #reading: Reading | undefined;
  #reading$: Promise<void> | undefined;
  /** Reservations this run took, with when. */
  #taken: { at: number; amount: number }[] = [];
  #stop = "";

  constructor(run: {
    store: Pick<Store, "budgets" | "periodSpend">;
    baseUrl: string;
    clock: Clock;
  }) {
    this.#store = run.store;
    this.#gateway = run.baseUrl;
    this.#clock = run.clock;
  }

  /**
   * Whether a task reserving `amount` may go: true, false (a budget would be passed), or
   * undefined while the first reading is under way (ask again soon).
   */
  allows(amount: number): boolean | undefined {
    if (this.#budgets?.length === 0) return true;
    const now = this.#clock.now();
    if (this.#reading === undefined || now - this.#reading.startedAt > FRESH_MS) this.#renew();
    const reading = this.#reading;
    if (this.#budgets === undefined || reading === undefined) return undefined;
    const since = reading.startedAt - CLAIM_LAG_MS;
    this.#taken = this.#taken.filter((each) => each.at >= since);
    const taken = this.#taken.reduce((sum, each) => sum + each.amount, 0);
    for (const budget of this.#budgets) {
      const spent = roundMoney((reading.spent.get(budget.scope) ?? 0) + taken);
      // As max_cost holds: a spent budget sends nothing more, a task of no reservation neither.
      if (spent >= budget.amount || roundMoney(spent + amount) > budget.amount) {
        this.#stop = stopMessage(budget, spent, now);
        return false;
      }
    }
    return true;
  }

  /** A task reserving `amount` was taken. */
  took(amount: number): void {
    if (amount > 0) this.#taken.push({ at: this.#clock.now(), amount });
  }

  /** Why the last refusal refused. */
  get stopMessage(): string {
    return this.#stop;
  }

  #renew(): void {
    if (this.#reading$ !== undefined) return;
    const startedAt = this.#clock.now();
    this.#reading$ = this.#read(startedAt)
      .then((reading) => {
        this.#reading = reading;
      })
      // A store that cannot answer now: the last reading stands, and the next ask tries again.
      .catch(() => {})
      .finally(() => {
        this.#reading$ = undefined;
      });
  }

  async #read(startedAt: number): Promise<Reading> {
    this.#budgets ??= (await this.#store.budgets()).filter(
      (budget) => budget.scope === "" || budget.scope === this.#gateway,
    );
    const spent = new Map<string, number>();
    for (const budget of this.#budgets) {
      const { since, until } = periodAround(budget.per, budget.timezone, startedAt);
      spent.set(
        budget.scope,
        await this.#store.periodSpend({ since, until, gateway: budget.scope }),
      );
    }
    return { spent, startedAt };
  }
}

/** How a stop by a budget across runs begins, and what to do next. */
export const PERIOD_STOP = "budget reached: the ";
export const PERIOD_ADVICE =
  "raise the budget across runs (gwrun budget set) or run again once it renews; done work is not paid twice";

/** What a run stopped by a budget across runs says: which budget, what is spent, when it resets. */
export function stopMessage(budget: BudgetRow, spent: number, now: number): string {
  const { until } = periodAround(budget.per, budget.timezone, now);
  const scope = budget.scope === "" ? "every gateway" : budget.scope;
  const reset = new Date(until).toISOString().replace(/:00\.000Z$/, "Z");
  return `${PERIOD_STOP}${budget.per === "day" ? "daily" : `${budget.per}ly`} budget of ${budget.amount} for ${scope} (${roundMoney(spent)} spent or reserved ${periodName(budget.per)}, ${budget.timezone}); it renews at ${reset}`;
}

/**
 * The soft limits (`--warn-at`) passed this period by the budgets that hold for `gateway`: one
 * line each, for a run's summary and its `notify:` webhooks.
 */
export async function budgetWarnings(
  store: Pick<Store, "budgets" | "periodSpend">,
  gateway: string,
  now: number,
): Promise<string[]> {
  // A store made before budgets were kept has none.
  const budgets = await store.budgets().catch(() => []);
  const lines: string[] = [];
  for (const budget of budgets) {
    if (budget.warn_at === null || (budget.scope !== "" && budget.scope !== gateway)) continue;
    const { since, until } = periodAround(budget.per, budget.timezone, now);
    const spent = await store.periodSpend({ since, until, gateway: budget.scope });
    if (spent < budget.warn_at * budget.amount) continue;
    const share = Math.round((spent / budget.amount) * 100);
    lines.push(
      `budget across runs: ${roundMoney(spent)} of ${budget.amount} per ${budget.per} spent ${periodName(budget.per)} (${share}%), past the warning at ${Math.round(budget.warn_at * 100)}%`,
    );
  }
  return lines;
}

/**
 * Why a fleet's claim was refused by a budget across runs: the stop message of the first of
 * `budgets` whose period has the least room left, as one process says it.
 */
export async function periodStop(
  store: Pick<Store, "periodSpend">,
  budgets: readonly BudgetRow[],
  now: number,
): Promise<string> {
  let least: { budget: BudgetRow; spent: number; room: number } | undefined;
  for (const budget of budgets) {
    const { since, until } = periodAround(budget.per, budget.timezone, now);
    const spent = await store.periodSpend({ since, until, gateway: budget.scope });
    const room = budget.amount - spent;
    if (least === undefined || room < least.room) least = { budget, spent, room };
  }
  return least === undefined
    ? "budget reached: a budget across runs has no room left"
    : stopMessage(least.budget, least.spent, now);
}
