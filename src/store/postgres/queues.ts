/**
 * The fleet's two queues, each a graphile-worker schema in the store's database: submit jobs
 * in graphile-worker's own, download jobs in one of their own (sql/pg/000024). graphile-worker
 * finds a runner's next job by walking its schema's queue in order, stepping over jobs of
 * tasks the runner does not run: in one queue, a download runner looking for work stepped over
 * every submit job a large run had waiting (5 ms a look at 30,000 of them).
 */
export const QUEUES = { submit: "graphile_worker", download: "graphile_worker_downloads" } as const;
