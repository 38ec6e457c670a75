# syntax=docker/dockerfile:1
# Two images from one build. The default, `production`, serves a listing from PostgreSQL: the server and the
# command-line tools (migrate, import, api-key), without the demo database or the demo generator.
#   docker build -t listing .
# `demo` adds both and runs on the embedded database with 2,000 invented packages, open as a demo is: a copy of the
# prepared demo database on its first start, kept in the /data volume.
#   docker build --target demo -t listing-demo .

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
# The commit the build is made from, written beside the compiled code (src/build-info.ts: build_info on /metrics,
# the start line), as `--build-arg SOURCE_COMMIT=$(git rev-parse HEAD)` gives it: the image has no .git. Given
# after the steps above, so that a new commit that changes none of the build's inputs reuses them; the fingerprint
# it writes again is the same (the demo database's key names it), only the commit changes.
ARG SOURCE_COMMIT
RUN node dist/cli/fingerprint.js
# What the server loads, and nothing else: no dev dependencies, and none of the optional peers they bring in
# (TypeScript, React); then no source maps, type declarations, or Prisma query compilers for databases other than
# PostgreSQL. Migrations run on @prisma/schema-engine-wasm, which stays; no Prisma CLI is installed at all. The demo
# database is left whole: a data directory has files of its own named *.map (pg_filenode.map). Then what only a
# demo needs is set apart in /demo: the demo database and the generator's faker, which the server imports only
# when it writes demo packages (src/demo/seed.ts).
RUN npm prune --omit=dev --omit=optional --omit=peer \
 && find node_modules dist -not -path 'dist/demo-data/*' \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) \
      -type f -delete \
 && find node_modules/@prisma/client/runtime -type f \( -name 'query_compiler_small_bg.*' -o -name '*.mysql.*' \
      -o -name '*.sqlite.*' -o -name '*.sqlserver.*' -o -name '*.cockroachdb.*' -o -name 'wasm-compiler-edge.*' \) -delete \
 && mkdir -p /demo/dist /demo/node_modules \
 && mv dist/demo-data /demo/dist/ \
 && mv node_modules/@faker-js /demo/node_modules/

# What both images run: the production dependencies, the compiled code, the schema and migrations, as the node user.
FROM node:24-bookworm-slim AS runtime
# NODE_OPTIONS: the heap at 40% of the container's memory limit, read from its cgroup (docs/operations.md, "Memory").
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-old-space-size-percentage=40 \
    HOST=0.0.0.0 \
    PORT=4000 \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY prisma ./prisma
USER node
EXPOSE 4000
# Liveness: the process answers. Readiness, for load balancers, is /healthz (the database answers too).
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
# As `npm start` (docs/operations.md, "Memory"): a 4 MB young generation, and WebAssembly compiled by Liftoff only
# (Node 24's optimising compiler takes hundreds of MB at once on PGlite's largest functions).
CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=100", "--liftoff-only", "dist/server.js"]

# The demo: the embedded database in the /data volume, 2,000 invented packages copied from the prepared demo
# database, the legacy v2 path public, any site's pages, introspection and GraphiQL. Still NODE_ENV=production, each
# opening named here, so that nothing else is (GraphQL errors stay masked: NODE_ENV=development would hand clients
# the server's stack traces) and /metrics stays on its own port (9464).
FROM runtime AS demo
ENV DATA_DIR=/data \
    DEMO=true \
    V2_PUBLIC=true \
    CORS_ORIGINS=* \
    GRAPHQL_INTROSPECTION=true
COPY --from=build /demo/node_modules ./node_modules
COPY --from=build /demo/dist ./dist
USER root
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]

# The default image, last so that a build without --target makes it: no volume (it keeps nothing on its disk; the
# listing is PostgreSQL's), and a start without DATABASE_URL, CORS_ORIGINS and V2_API_KEYS is refused.
FROM runtime AS production
