// PostGraphile v5 as its own process: node:http + grafserv, /graphql only, plus /healthz and /metrics
// (db_queries_total: SQL statements sent by its pool, the same counter the gateway exposes).
//   PORT (default 0 = any free port), HOST (default 127.0.0.1); see graphile.config.mjs for the database.
// Run with NODE_ENV=production GRAPHILE_ENV=production.
import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/node';
import preset, { counters, pool } from './graphile.config.mjs';

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const handler = serv.createHandler();
const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.writeHead(200, { 'content-type': 'application/json' });
    return response.end('{"status":"ok"}');
  }
  if (request.url === '/metrics') {
    response.writeHead(200, { 'content-type': 'text/plain' });
    return response.end(`# TYPE db_queries_total counter\ndb_queries_total ${counters.statements}\n`);
  }
  return handler(request, response);
});
await pgl.getSchema(); // build the schema (introspection) before listening
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const address = server.address();
  console.log(`postgraphile: http://127.0.0.1:${address.port}/graphql`);
});
const stop = () => {
  server.close();
  server.closeAllConnections();
  void pgl
    .release()
    .then(() => pool.end())
    .then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
