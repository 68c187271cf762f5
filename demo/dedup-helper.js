// The helper worker of a dedup run on two threads (dedup-worker.js starts it): the package's serveHelper,
// which decides the hashes of its share of the keys with a filter of its own.
import { serveHelper } from './dist/esm/partitioned.js';

serveHelper({
  listen(take) {
    self.onmessage = ({ data }) => take(data);
  },
  post: (reply, transfer) => self.postMessage(reply, { transfer }),
});
