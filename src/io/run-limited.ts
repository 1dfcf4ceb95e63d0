/** Bounded concurrency for a list of jobs. Free of node:* imports: it is bundled for the browser. */

/** Runs `jobs` with at most `limit` in flight; the first failure rejects and no further job starts. */
export async function runLimited(jobs: Array<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < jobs.length) {
      const job = jobs[next++]!;
      try {
        await job();
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
}
