import { rmSync } from "node:fs";
import path from "node:path";

/**
 * The command line as `bin/gwrun.js` runs it: `dist/cli/main.js` and the modules it imports, as
 * tsc compiled them, gathered into a few files in `dist/bin/`. What a command imports only when
 * it runs stays a file of its own, loaded then. Node reads about 30 of gwrun's files at start
 * instead of about 380, which takes a third off the CPU of `gwrun --version`. Packages are
 * imported from where npm put them. `dist/bin/` lies as deep as every other folder of `dist/`,
 * so the package's own files are found from both (`src/core/own-files.ts`).
 */
export default {
  input: "dist/cli/main.js",
  output: { dir: "dist/bin", format: "es", chunkFileNames: "[name]-[hash].js" },
  // A package, or one of Node's modules: imported as it is.
  external: (id) => !id.startsWith(".") && !path.isAbsolute(id),
  plugins: [
    {
      name: "fresh-output",
      // Chunks of an earlier build would be left beside the new ones.
      buildStart: () => rmSync("dist/bin", { recursive: true, force: true }),
    },
  ],
};
