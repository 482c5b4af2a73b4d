/**
 * What a run opened (a gateway, a simulator, object storage, a shared pace), each with its
 * release: released once, newest first, all of them whatever one throws — as graphile-worker's
 * CLI keeps its releasers. The first failure is thrown once every release has run.
 */
export class Releasers {
  #closers: (() => Promise<void> | void)[] = [];

  /** Keeps `close` to run at release; returns what it was given, to open and keep in one go. */
  push<T>(opened: T, close: (opened: T) => Promise<void> | void): T {
    this.#closers.push(() => close(opened));
    return opened;
  }

  async release(): Promise<void> {
    const closers = this.#closers.reverse();
    this.#closers = [];
    let failure: { error: unknown } | undefined;
    for (const close of closers)
      try {
        await close();
      } catch (error) {
        failure ??= { error };
      }
    if (failure !== undefined) throw failure.error;
  }
}
