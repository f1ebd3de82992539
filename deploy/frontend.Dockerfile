# The built single-page app behind nginx, which proxies /api and /admin to the backend.
# The bases are arguments so a machine without Docker Hub can build on local stand-ins
# (e2e_deploy/standins.py); they default to the official images.
ARG NODE_IMAGE=node:20-slim
ARG NGINX_IMAGE=nginx:1.27-alpine
FROM ${NODE_IMAGE} AS build
WORKDIR /frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend ./
RUN npm run build

FROM ${NGINX_IMAGE}
COPY deploy/nginx.conf /etc/nginx/conf.d/default.conf
COPY --from=build /frontend/dist /usr/share/nginx/html
