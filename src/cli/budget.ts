import { type Command, Option } from "commander";
import {
  type BudgetStanding,
  budgetStandings,
  ExitCode,
  type StoreFlags,
  setBudget,
  storeAt,
  withExistingStore,
  withStore,
} from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { err, out } from "./output.js";
import { withStoreOptions } from "./store-options.js";

/**
 * `gwrun budget`: budgets across runs, kept in the store so every run, schedule and worker of
 * it reads the same: `set AMOUNT --per day|week|month`, `clear`, and (bare) what each period
 * has spent and has left.
 */

interface SetFlags extends StoreFlags {
  per: "day" | "week" | "month";
  gateway?: string;
  warnAt?: string;
  tz?: string;
}

function line(budget: BudgetStanding): string {
  const scope = budget.gateway === "" ? "every gateway" : budget.gateway;
  const warn = budget.warn_at === null ? "" : `, told past ${Math.round(budget.warn_at * 100)}%`;
  return `${scope}: ${budget.limit} per ${budget.per} (${budget.timezone}): ${budget.spent} spent, ${budget.remaining} left; renews ${budget.resets_at}${warn}`;
}

export function addBudgetCommand(program: Command, setExit: (code: ExitCode) => void): void {
  const budget = withStoreOptions(
    program
      .command("budget")
      .description(
        "budgets across runs (per day, week or month): what each period has spent and has left; set and clear them",
      )
      .option("--json", "print [{ gateway, per, limit, spent, remaining, resets_at, … }]"),
  ).action(async (flags: StoreFlags & { json?: boolean }) => {
    const at = storeAt(flags);
    const standings = await withExistingStore(at, (store) => budgetStandings(store, Date.now()));
    if (flags.json === true) out(JSON.stringify(standings, null, 2));
    else if (standings.length === 0)
      out("no budget set: gwrun budget set AMOUNT --per day sets one");
    else for (const standing of standings) out(line(standing));
    setExit(ExitCode.Ok);
  });
  withStoreOptions(
    budget
      .command("set")
      .description("set the budget of every run against a gateway (or every gateway) per period")
      .argument("<amount>", "the most spent per period, in the gateway's currency units")
      .addOption(
        new Option("--per <period>", "the period")
          .choices(["day", "week", "month"])
          .makeOptionMandatory(),
      )
      .option("--gateway <url>", "only runs against this base URL (default: every gateway)")
      .option(
        "--warn-at <share>",
        "say so past this share of it, in summaries and notify: (e.g. 80%)",
      )
      .option("--tz <zone>", "the time zone its days start in (default: UTC)"),
  ).action(async (amount: string, flags: SetFlags) => {
    const value = Number(amount);
    if (!Number.isFinite(value))
      throw new GwError(ErrorCode.Usage, `a budget is an amount (e.g. 5), got "${amount}"`);
    await withStore(storeAt(flags), (store) =>
      setBudget(
        store,
        {
          amount: value,
          per: flags.per,
          gateway: flags.gateway,
          warnAt: flags.warnAt,
          timezone: flags.tz,
        },
        Date.now(),
      ),
    );
    out(
      `budget set: ${value} per ${flags.per} for ${flags.gateway ?? "every gateway"} (${flags.tz ?? "UTC"})`,
    );
    setExit(ExitCode.Ok);
  });
  withStoreOptions(
    budget
      .command("clear")
      .description("remove the budget of a gateway (or the one of every gateway)")
      .option("--gateway <url>", "the gateway whose budget goes (default: every gateway's)"),
  ).action(async (flags: StoreFlags & { gateway?: string }) => {
    const cleared = await withExistingStore(storeAt(flags), (store) =>
      store.clearBudget(flags.gateway ?? ""),
    );
    if (cleared) out(`budget cleared for ${flags.gateway ?? "every gateway"}`);
    else err(`gwrun: no budget is set for ${flags.gateway ?? "every gateway"}`);
    setExit(cleared ? ExitCode.Ok : ExitCode.Failed);
  });
}
