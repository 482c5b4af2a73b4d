/** Exit codes of every gwrun command (README "Exit codes"). */
export const ExitCode = {
  Ok: 0,
  /** Some jobs failed, or outputs could not be published. */
  Failed: 1,
  /** Invalid manifest, request or usage, or object storage refused; nothing was submitted. */
  Invalid: 2,
  /** Stopped by the budget or the gateway balance. */
  Stopped: 3,
  /** Another run of the same scheduled manifest holds its lease; nothing was done. */
  Busy: 4,
  /** The state database cannot be used (full disk, read-only, damaged, locked too long). */
  Store: 5,
  /** A scheduled manifest's tick already ran to its end, or none is due yet; nothing was done. */
  NoTick: 6,
  Interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What each exit code means, as `gwrun --help` lists them. */
export const EXIT_CODE_MEANINGS: Readonly<Record<ExitCode, string>> = {
  [ExitCode.Ok]: "all done, or valid",
  [ExitCode.Failed]: "some tasks failed, or some outputs could not be published",
  [ExitCode.Invalid]:
    "invalid manifest, request or usage, or object storage refused the credentials; nothing submitted",
  [ExitCode.Stopped]: "stopped by the budget or the gateway balance",
  [ExitCode.Busy]: "another run of the same scheduled manifest holds its lease; nothing done",
  [ExitCode.Store]:
    "the state database cannot be used (full disk, read-only, damaged, locked); nothing more submitted",
  [ExitCode.NoTick]:
    "a scheduled manifest's tick due now already ran to its end, or none is due yet; nothing done",
  [ExitCode.Interrupted]: "interrupted (Ctrl-C)",
};
