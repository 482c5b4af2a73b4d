/** Budgets across runs, kept in the store so every run, schedule and worker reads the same. */

export type BudgetPeriod = "day" | "week" | "month";

export interface BudgetRow {
  /** The gateway's base URL it holds for; "" for every gateway. */
  scope: string;
  amount: number;
  per: BudgetPeriod;
  /** The IANA zone its days and months are counted in ("UTC" unless given). */
  timezone: string;
  /** A share of `amount` past which runs say so (the soft limit); null for none. */
  warn_at: number | null;
  set_at: number;
}

export interface BudgetStore {
  /** Sets the budget of its scope, replacing the one there. */
  setBudget(budget: BudgetRow): Promise<void>;
  /** Removes the budget of `scope`; false when there was none. */
  clearBudget(scope: string): Promise<boolean>;
  budgets(): Promise<BudgetRow[]>;
  /**
   * What tasks sent in [`since`, `until`) spent (or, in flight or of unknown outcome, reserve)
   * by runs against `gateway` (every gateway when "") but run `except`.
   */
  periodSpend(period: {
    since: number;
    until: number;
    gateway: string;
    except?: number;
  }): Promise<number>;
}
