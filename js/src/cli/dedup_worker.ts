// A helper thread of the `cuckoo` command's partitioned run (partitioned.ts): a LineDeduper whose filter
// decides the hashes of its share of the keys, which the main thread sends after each of its calls, and
// answers with a verdict byte each; at the end, its stats.
import { parentPort, workerData } from 'node:worker_threads';
import { CuckooFilterError, LineDeduper, ready } from '../node.js';
import type { HelperCall, HelperJob, HelperReply } from './partitioned.js';

const port = parentPort!;
const job = workerData as HelperJob;
const send = (reply: HelperReply) => port.postMessage(reply);

let deduper: LineDeduper | undefined;

async function start(): Promise<void> {
  await ready();
  deduper = new LineDeduper(job.options);
  port.on('message', answer);
  send({ ready: true });
}

function answer(call: HelperCall): void {
  try {
    const d = deduper!;
    if ('end' in call) {
      const stats = d.stats;
      d.dispose();
      send({ stats });
      return;
    }
    const verdicts = d.decide(new Uint8Array(call.hashes, 0, 8 * call.count));
    new Uint8Array(call.verdicts).set(verdicts);
    send({ decided: verdicts.length });
  } catch (error) {
    fail(error);
  }
}

function fail(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  send({ failed: error instanceof CuckooFilterError ? error.code : 'error', message });
}

start().catch(fail);
