# Multi-stage build of the production shape (api and worker use the same image).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json .swcrc ./
COPY scripts ./scripts
COPY src ./src
COPY migrations ./migrations
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The node flags of `npm start` (package.json); the worker's command in docker-compose.yml has them too. On the
# command line, not in NODE_OPTIONS, which refuses --no-allocation-site-pretenuring.
CMD ["node", "--max-semi-space-size=32", "--no-allocation-site-pretenuring", "dist/src/main.js"]
