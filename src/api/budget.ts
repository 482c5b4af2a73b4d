import { ErrorCode, GwError } from "../core/errors.js";
import { type Per, periodAround } from "../core/periods.js";
import { isTimeZone } from "../manifest/index.js";
import type { BudgetRow, Store } from "../store/index.js";

/**
 * Budgets across runs (`gwrun budget`): set, read with what their period has spent, cleared.
 * Every run against a budget's gateway reserves against it as against `max_cost`
 * (`PeriodBudgets`); `plan` says what is left.
 */

export interface BudgetStanding {
  /** The gateway's base URL; "" for every gateway. */
  gateway: string;
  per: Per;
  limit: number;
  spent: number;
  remaining: number;
  timezone: string;
  /** The share past which runs say so; null for none. */
  warn_at: number | null;
  /** When the period began and when it renews (ISO 8601). */
  since: string;
  resets_at: string;
}

export interface BudgetSetting {
  amount: number;
  per: Per;
  gateway?: string;
  /** A share (0.8), or text as `--warn-at` takes it ("80%"). */
  warnAt?: number | string;
  timezone?: string;
}

/** Sets the budget of a gateway (or of every gateway), replacing the one there. */
export async function setBudget(store: Store, setting: BudgetSetting, now: number): Promise<void> {
  if (!Number.isFinite(setting.amount) || setting.amount < 0)
    throw new GwError(
      ErrorCode.Usage,
      `a budget is an amount of at least 0, got ${setting.amount}`,
    );
  const timezone = setting.timezone ?? "UTC";
  if (!isTimeZone(timezone))
    throw new GwError(
      ErrorCode.Usage,
      `--tz takes an IANA time zone (Europe/Paris), got "${timezone}"`,
    );
  await store.setBudget({
    scope: setting.gateway ?? "",
    amount: setting.amount,
    per: setting.per,
    timezone,
    warn_at: warnShare(setting.warnAt),
    set_at: now,
  });
}

function warnShare(value: number | string | undefined): number | null {
  if (value === undefined) return null;
  const share =
    typeof value === "number"
      ? value
      : /%\s*$/.test(value)
        ? Number.parseFloat(value) / 100
        : Number(value);
  if (!Number.isFinite(share) || share <= 0 || share >= 1)
    throw new GwError(
      ErrorCode.Usage,
      `--warn-at takes a share below the whole (80% or 0.8), got "${value}"`,
    );
  return share;
}

/** Each budget with what its current period spent, at `now`. */
export async function budgetStandings(store: Store, now: number): Promise<BudgetStanding[]> {
  return Promise.all((await store.budgets()).map((budget) => standingOf(store, budget, now)));
}

export async function standingOf(
  store: Store,
  budget: BudgetRow,
  now: number,
): Promise<BudgetStanding> {
  const { since, until } = periodAround(budget.per, budget.timezone, now);
  const spent = await store.periodSpend({ since, until, gateway: budget.scope });
  return {
    gateway: budget.scope,
    per: budget.per,
    limit: budget.amount,
    spent,
    remaining: Math.max(0, Math.round((budget.amount - spent) * 1e6) / 1e6),
    timezone: budget.timezone,
    warn_at: budget.warn_at,
    since: new Date(since).toISOString(),
    resets_at: new Date(until).toISOString(),
  };
}

/** The budgets that hold for runs against `gateway`, with their standing. */
export async function budgetsFor(
  store: Store,
  gateway: string,
  now: number,
): Promise<BudgetStanding[]> {
  const all = await budgetStandings(store, now);
  return all.filter((budget) => budget.gateway === "" || budget.gateway === gateway);
}
