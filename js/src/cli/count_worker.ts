// A thread of the `cuckoo` command's count of distinct keys (distinct.ts, countDistinctKeys): it counts the
// pieces of the input it claims and sends back its count's registers, which the main thread merges into its own.
import { parentPort, workerData } from 'node:worker_threads';
import { CuckooFilterError, ready } from '../node.js';
import { type CountJob, type CountMessage, claimPieces, DistinctKeyCounter } from './distinct.js';
import { heapBuffers, InputError, readBlocks } from './io.js';

const port = parentPort!;
const job = workerData as CountJob;
const send = (message: CountMessage) => port.postMessage(message);

async function count(): Promise<void> {
  await ready();
  const counter = new DistinctKeyCounter(job.rules);
  try {
    const heap = heapBuffers();
    for (const piece of claimPieces(new Int32Array(job.claims), job.thread)) {
      for await (const block of readBlocks(job.pieces[piece], heap, job.recordEnd, true, () => counter.nextInput())) {
        const bytes = block.length; // before the push, which may detach a view of the heap
        counter.push(block);
        send({ bytes, lines: counter.lines });
      }
      counter.nextInput(); // the piece's last record ends with it (as at the end of a file)
    }
    send({ registers: counter.registers(), lines: counter.lines });
  } finally {
    counter.dispose();
  }
}

count().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof InputError) send({ failed: 'input', message });
  else send({ failed: error instanceof CuckooFilterError ? error.code : 'error', message });
});
