// Runs s3rver in its own process for test/support/s3-server.ts. It is a separate process because
// s3rver's ListObjectsV2 continuation tokens use DES, which Node 20 only has with
// `--openssl-legacy-provider`; the parent starts this file with that flag, so `npx vitest run`
// needs no NODE_OPTIONS. Protocol: argv = [directory, bucket, port?] (port: 0 or absent picks a
// free one; a fault test restarts a killed server on its old port); prints one JSON line
// `{"port": n}` once listening; exits when its stdin closes (the parent died or called stop()).

import S3rver from 's3rver';

const [directory, bucket, port = '0'] = process.argv.slice(2);
if (!directory || !bucket) {
  console.error('usage: s3rver-child.mjs <directory> <bucket>');
  process.exit(2);
}

const server = new S3rver({
  address: '127.0.0.1',
  port: Number(port),
  directory,
  silent: true,
  configureBuckets: [{ name: bucket }],
});

const listening = await server.run();
process.stdout.write(`${JSON.stringify({ port: listening.port })}\n`);

const shutdown = () => {
  server.close().finally(() => process.exit(0));
};
process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.resume();
process.on('SIGTERM', shutdown);
