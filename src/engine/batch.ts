/**
 * Store writes gathered per turn of the event loop: everything asked for in one turn is
 * written in one call (one transaction), and each caller gets its own share of the answer.
 * A busy run commits once a turn instead of several times per task.
 *
 * `oneAtATime`: a write waits for the one before it to end, and everything asked for
 * meanwhile goes in the next call (a group commit). For writes that are a round trip each
 * (a fleet's, to PostgreSQL), where one turn gathers few: a worker's submits and downloads
 * end on turns of their own, a round trip apart.
 */
export function batched<I, O>(
  write: (items: I[]) => Promise<O[]>,
  { oneAtATime = false }: { oneAtATime?: boolean } = {},
): (item: I) => Promise<O> {
  let waiting: { item: I; resolve: (result: O) => void; reject: (error: unknown) => void }[] = [];
  let writing = false;
  const flush = async () => {
    do {
      const batch = waiting;
      waiting = [];
      try {
        const results = await write(batch.map((entry) => entry.item));
        batch.forEach((entry, i) => {
          entry.resolve(results[i] as O);
        });
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    } while (oneAtATime && waiting.length > 0);
    writing = false;
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (!writing && waiting.length === 0) {
        writing = oneAtATime;
        setImmediate(() => void flush());
      }
      waiting.push({ item, resolve, reject });
    });
}
