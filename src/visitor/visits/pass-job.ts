/**
 * Sending passes: one, or those issued in one turn of the event loop (merged by the kind, `visits.jobs.ts`), in the
 * order issued. `passId` is the first of them, for a worker of the release before passes were merged (a rolling
 * deploy): it sends that one and reads nothing else, so the others wait for the sweeper.
 */
export interface PassJob {
  passIds: string[];
  passId: string;
}

/** The job of these passes. */
export const passJob = (passIds: string[]): PassJob => ({ passIds, passId: passIds[0] });

/** A job added before passes were merged (one pass): such jobs may still wait in Redis across a deploy. */
export interface SinglePassJob {
  passId: string;
}

/** The passes a job of either shape sends. */
export const passIdsOf = (job: PassJob | SinglePassJob): string[] =>
  'passIds' in job ? job.passIds : [job.passId];
