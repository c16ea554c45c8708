# mnemo: memory service for AI agents. Multi-stage: compile TypeScript and the native
# better-sqlite3 addon in the build stage, ship only dist/ and production node_modules.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV MNEMO_HOST=0.0.0.0 \
    MNEMO_PORT=8787 \
    MNEMO_WORKSPACE=/data/workspace \
    MNEMO_DATA_DIR=/data/index
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data/workspace /data/index && chown -R node:node /data
USER node
VOLUME ["/data/workspace", "/data/index"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=3s --start-period=15s --retries=3 CMD ["node", "dist/healthcheck.js"]
CMD ["node", "dist/main.js"]
