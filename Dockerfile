# syntax=docker/dockerfile:1
# Build: every dependency, the Prisma client, the typed GraphQL documents, the compiled JavaScript and the demo
# database a first start copies (dist/demo-data/, src/db/prepared-data.ts).
FROM node:24-bookworm-slim AS build
WORKDIR /app
# The dependencies first, so that a change to the sources reuses them.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run postinstall
# The embedded database's empty cluster: a first start unpacks it rather than running initdb, which alone takes
# PGlite some 700 MB (src/db/embedded-template.ts).
RUN npm run db:template
# What the server loads, and nothing else: no dev dependencies, and none of the optional peers they bring in
# (TypeScript, React); then no source maps, type declarations, or Prisma query compilers for databases other than
# PostgreSQL. Migrations run on @prisma/schema-engine-wasm, which stays; no Prisma CLI is installed at all. The demo
# database is left whole: a data directory has files of its own named *.map (pg_filenode.map).
RUN npm prune --omit=dev --omit=optional --omit=peer \
 && find node_modules dist -not -path 'dist/demo-data/*' \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) \
      -type f -delete \
 && find node_modules/@prisma/client/runtime -type f \( -name 'query_compiler_small_bg.*' -o -name '*.mysql.*' \
      -o -name '*.sqlite.*' -o -name '*.sqlserver.*' -o -name '*.cockroachdb.*' -o -name 'wasm-compiler-edge.*' \) -delete

# Run: the production dependencies, the compiled code, the schema and migrations, as the node user.
FROM node:24-bookworm-slim
# NODE_OPTIONS: the heap at 40% of the container's memory limit, read from its cgroup (docs/operations.md, "Memory").
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-old-space-size-percentage=40 \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/data \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY prisma ./prisma
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4000
# Liveness: the process answers. Readiness, for load balancers, is /healthz (the database answers too).
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
# As `npm start` (docs/operations.md, "Memory"): a 4 MB young generation, and WebAssembly compiled by Liftoff only
# (Node 24's optimising compiler takes hundreds of MB at once on PGlite's largest functions).
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=100", "--liftoff-only", "dist/server.js"]
