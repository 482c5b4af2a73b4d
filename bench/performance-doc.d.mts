// Types of performance-doc.mjs for the test that keeps docs/performance.md fresh.
export type BenchLine = { bench: string; [figure: string]: unknown };
export declare const RESULTS_FILE: string;
export declare const PERFORMANCE_DOC: string;
export declare function parseResults(text: string): BenchLine[];
export declare function readResults(file?: string): BenchLine[];
export declare function sortResults(lines: readonly BenchLine[]): BenchLine[];
export declare function renderPerformance(results: readonly BenchLine[]): string;
