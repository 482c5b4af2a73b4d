import { setUpProcess } from "./process-setup.js";
import { main } from "./program.js";

/** `gwrun`: the process around the command line (`program.ts`). */
setUpProcess();
process.exitCode = await main(process.argv.slice(2));
