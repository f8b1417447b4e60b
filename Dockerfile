# Folio Vault image: the compiled JavaScript (npm run build) run by plain node, production
# dependencies only, as the `node` user. The API by default; a worker runs the same image with
# `node apps/worker/dist/main.js` (docker-compose.yml).
# UNTESTED as an image: written on a machine without a Docker engine. Its two halves are what the
# repository does test: `npm run build` then `node apps/*/dist/main.js` (test/compiled-start.test.ts),
# and that compiled code on an `npm ci --omit=dev` install (docs/operations.md#docker).

# The manifests `npm ci` needs: the root's and every workspace's listed in it.
FROM node:20-bookworm-slim AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY packages/dev-services/package.json packages/dev-services/
COPY packages/test-kit/package.json packages/test-kit/
COPY apps/api/package.json apps/api/
COPY apps/worker/package.json apps/worker/
COPY test/package.json test/

# Build: every dependency (TypeScript, tsx), then tsc into each workspace's dist/.
FROM manifests AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts scripts/
COPY packages/shared packages/shared
COPY apps/api apps/api
COPY apps/worker apps/worker
RUN npm run build

# Runtime: production dependencies only (no TypeScript, tsx, testcontainers or s3rver; the fonts the
# PDFs are set in are npm packages of the worker, so they are installed here), the compiled code.
FROM manifests AS runtime
ENV NODE_ENV=production
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/packages/shared/dist packages/shared/dist
COPY --from=build /app/apps/api/dist apps/api/dist
COPY --from=build /app/apps/worker/dist apps/worker/dist

# Writable by the service user: STORAGE_DIR (./.data/objects) when STORAGE_DRIVER=fs.
RUN mkdir -p .data && chown node:node .data

USER node

EXPOSE 3000

# node itself as the command (not npm), so SIGTERM reaches the service for its graceful shutdown.
CMD ["node", "apps/api/dist/main.js"]
