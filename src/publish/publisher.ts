import type { OutputPublisher } from "../engine/index.js";
import type { OutputRow } from "../store/index.js";
import { type PublishPlace, publishTask } from "./publish-outputs.js";
import { fetchMissing } from "./read-objects.js";

/** The engine's publisher over a run's targets: each done task's outputs, as they are done. */
export function outputPublisher(place: PublishPlace): OutputPublisher {
  return {
    async publish(task, signal) {
      const published = await publishTask(task, place, { signal });
      const first = published.missing[0];
      if (first === undefined) return undefined;
      const more = published.missing.length - 1;
      return `${first.reason}${more > 0 ? ` (and ${more} more)` : ""}`;
    },
    async bringHere(outputs: readonly OutputRow[]) {
      await fetchMissing(place, outputs, place.outputDir);
    },
  };
}
