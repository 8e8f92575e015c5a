// A peer for conformance/protocol/duplicateKeys.test.ts: it answers hello correctly, then answers
// each tick with a line whose key `ok` (or, with the argument `nested`, a key of the claimed job)
// appears twice, the later value being the one JSON.parse keeps.
import { createInterface } from 'node:readline';

const nested = process.argv[2] === 'nested';
createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.type === 'hello')
    return process.stdout.write(
      `${JSON.stringify({ ok: true, type: 'hello', protocol: 'jobcheck/1', implementation: 'dup' })}\n`,
    );
  if (nested) {
    const job =
      '{"id":"a","token":1,"token":7,"attempt":1,"leaseUntil":4,"payload":{"account":"x","key":"k","amount":1,"deadline":9}}';
    return process.stdout.write(`{"ok":true,"type":"claim","job":${job}}\n`);
  }
  return process.stdout.write(`{"ok":false,"ok":true,"type":"tick","clock":${msg.now}}\n`);
});
