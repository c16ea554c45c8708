# mnemo: memory service for AI agents. Multi-stage: compile TypeScript in the build stage,
# ship only dist/ and production node_modules. better-sqlite3 and sqlite-vec come with
# prebuilt binaries for linux-x64 glibc, so no compiler is needed.
#
#   docker build -t mnemo .                              # keyword / API embeddings (default)
#   docker build -t mnemo --build-arg LOCAL_MODELS=true . # + onnxruntime for MNEMO_LOCAL_MODEL_DIR
FROM node:24-bookworm-slim AS build
ARG LOCAL_MODELS=false
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The web console (/ui) and its build script: npm run build bundles it into dist/console.
COPY console ./console
COPY scripts/build-console.ts ./scripts/
# The same commands .ci/run runs: build, then drop dev (and, by default, optional) packages.
RUN npm run build \
 && if [ "$LOCAL_MODELS" = true ]; then npm prune --omit=dev; else npm prune --omit=dev --omit=optional; fi

FROM node:24-bookworm-slim
WORKDIR /app
# Listening beyond loopback, the service refuses to start without a token: give it one
# (MNEMO_API_TOKEN_FILE=/run/secrets/..., see docker-compose.yml and docs/deploy.md).
# MALLOC_MMAP_THRESHOLD_: glibc serves allocations of 128 KiB and more (a file being
# indexed, a request body) from their own mappings and returns them when freed; by default
# it raises that threshold after the first free and keeps such memory for good (docs/deploy.md).
# --max-semi-space-size=4: V8's young generation at most 3 × 4 MiB per thread; Node 24's
# default (16 MiB semi-spaces on a machine with more than 512 MiB) keeps ~110 MB more
# resident after load for no measurable throughput (BENCHMARKS.md, issue 19).
ENV MNEMO_HOST=0.0.0.0 \
    MNEMO_PORT=8787 \
    MNEMO_WORKSPACE=/data/workspace \
    MNEMO_DATA_DIR=/data/index \
    MALLOC_MMAP_THRESHOLD_=131072 \
    NODE_OPTIONS=--max-semi-space-size=4
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data/workspace /data/index && chown -R node:node /data
USER node
VOLUME ["/data/workspace", "/data/index"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=3s --start-period=15s --retries=3 CMD ["node", "dist/healthcheck.js"]
CMD ["node", "dist/main.js"]
