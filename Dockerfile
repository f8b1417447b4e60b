# Folio Vault image: the API by default; `npm run start:worker` for a worker (see docker-compose.yml).
# UNTESTED: written on a machine without a Docker engine (README.md, section "Docker").
FROM node:20-bookworm-slim

WORKDIR /app

# Manifests first, so the dependency layer is rebuilt only when they change. `npm ci` needs the
# package.json of every workspace listed in the root package.json.
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY apps/api/package.json apps/api/
COPY apps/worker/package.json apps/worker/
COPY test/package.json test/

# Plain `npm ci`, dev dependencies included: there is no build step, the TypeScript sources are run
# by tsx, which is a devDependency, so `npm ci --omit=dev` would give an image that cannot start.
# (For the same reason NODE_ENV=production is not set here: npm would then omit dev dependencies.
# docker-compose.yml sets it at run time.)
RUN npm ci --no-audit --no-fund && npm cache clean --force

COPY . .

# Writable by the service user: STORAGE_DIR (./.data/objects) when STORAGE_DRIVER=fs.
RUN mkdir -p .data && chown node:node .data

USER node

EXPOSE 3000

CMD ["npm", "run", "start:api"]
