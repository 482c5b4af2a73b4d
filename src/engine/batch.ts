/**
 * Store writes gathered per turn of the event loop: everything asked for in one turn is
 * written in one call (one transaction), and each caller gets its own share of the answer.
 * A busy run commits once a turn instead of several times per task.
 */
export function batched<I, O>(write: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  let waiting: { item: I; resolve: (result: O) => void; reject: (error: unknown) => void }[] = [];
  const flush = async () => {
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
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(() => void flush());
      waiting.push({ item, resolve, reject });
    });
}
