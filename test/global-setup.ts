import { execFileSync } from "node:child_process";

/** End-to-end tests spawn bin/gwrun.js, which runs the compiled dist/: build it once. */
export default function setup(): void {
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
}
