// The helper thread of a partitioned run (partitioned.ts) in Node: a worker_threads Worker running
// dedup_worker.js of the same build (found through helper_url.js, which each build writes its own of).
import { Worker } from 'node:worker_threads';
import { helperUrl } from './generated/helper_url.js';
import type { HelperCall, HelperLink, HelperReply } from './partitioned.js';

/**
 * A new helper Worker's link. Throws when the Worker cannot be made (a limit on threads). The Worker starts
 * at once, and what it says before listen() is given a taker is kept for it, in order: a caller may make
 * the link well before its run (the `cuckoo` command makes it before its count, so that the helper loads
 * the module meanwhile).
 */
export function nodeHelperLink(): HelperLink {
  // Not this process's Node options (execArgv): some are refused in a worker (--input-type).
  const worker = new Worker(helperUrl(), {
    execArgv: [],
    stdout: true, // the module's own messages are not the caller's
    stderr: true,
  });
  const early: HelperReply[] = [];
  let taker = (reply: HelperReply) => {
    early.push(reply);
  };
  worker.on('message', (reply: HelperReply) => taker(reply));
  worker.on('error', (error) =>
    taker({ failed: 'error', message: `the run's helper thread failed: ${error.message}` }),
  );
  worker.on('exit', (code) => taker({ failed: 'error', message: `the run's helper thread ended (status ${code})` }));
  return {
    post: (call: HelperCall, transfer: ArrayBuffer[]) => worker.postMessage(call, transfer),
    listen(take: (reply: HelperReply) => void) {
      taker = take;
      for (const reply of early.splice(0)) take(reply);
    },
    terminate: () => worker.terminate(),
    hold: (busy: boolean) => (busy ? worker.ref() : worker.unref()),
  };
}
