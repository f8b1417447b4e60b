// s3rver as a process of its own, for the storage fault test: killing it drops every socket the
// service holds, as an object store that goes away does (closing it in the test's own process
// would leave keep-alive connections answering). Usage: faults-s3-server.ts <dir> <port>.

import { startS3Server } from '@folio-vault/dev-services/s3-server';

const [dir, port] = process.argv.slice(2);
if (!dir || !port) {
  process.stderr.write('usage: faults-s3-server.ts <dir> <port>\n');
  process.exit(2);
}
await startS3Server({ dir, port: Number(port) });
process.stdout.write(`s3 ready on ${port}\n`);
