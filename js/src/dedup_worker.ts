// A helper thread of a partitioned run in Node (node_helper.ts starts it): partitioned.ts's serveHelper on
// the worker's port.
import { parentPort } from 'node:worker_threads';
import './node.js'; // the Node entry's unpacker of the wasm
import { type HelperCall, serveHelper } from './partitioned.js';

const port = parentPort!;
serveHelper({
  listen: (take) => port.on('message', (call: HelperCall) => take(call)),
  post: (reply, transfer) => port.postMessage(reply, transfer),
});
