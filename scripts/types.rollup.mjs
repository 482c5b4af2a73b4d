import { dts } from "rollup-plugin-dts";

/**
 * The package's declarations as one file, `dist/gwrun.d.ts`: the public surface of
 * `src/index.ts` and the types it names, nothing of the internals (nor of the native modules
 * they use), so a program compiles against it with `skipLibCheck: false`.
 */
export default {
  input: "dist/index.d.ts",
  output: { file: "dist/gwrun.d.ts", format: "es" },
  plugins: [dts()],
  // Node's own modules are the program's @types/node.
  external: [/^node:/],
};
