# One image for web, worker and beat (docker-compose.yml picks the command).
# Stage 0 fetches the verifier page's Python runtime (npm's pyodide, pinned in the Makefile);
# stage 1 builds the wheel from the sources and that runtime; stage 2 installs the runtime
# dependencies of requirements.lock (`make lock` writes it), each file checked against its
# hash, then the wheel alone: no source tree in the image.
FROM node:20-slim AS runtime
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends make >/dev/null \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Makefile ./
RUN make pyodide && test -f service/static/pyodide/pyodide.asm.wasm

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY engine engine
COPY service service
COPY --from=runtime /src/service/static/pyodide service/static/pyodide
COPY worker worker
COPY templates templates
RUN pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DICEPOST_INSTANCE_PATH=/app/instance
COPY requirements.lock /tmp/requirements.lock
RUN pip install --require-hashes --requirement /tmp/requirements.lock
COPY --from=build /wheels /wheels
# pip check: the lock holds every dependency the wheel declares, at versions it accepts.
RUN pip install --no-deps /wheels/dicepost-*.whl && pip check \
    && useradd --create-home dicepost && mkdir -p /app/instance && chown dicepost /app/instance
WORKDIR /app
USER dicepost
EXPOSE 8000
# Full mode only: without DATABASE_URL and REDIS_URL, `dicepost web` refuses 0.0.0.0;
# with DATABASE_URL it needs DICEPOST_SEAL_KEY too (passed at run time, never built in).
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
    CMD ["python", "-m", "service.health", "web", "http://127.0.0.1:8000/healthz"]
# granian (service.webserver), 2 processes of 4 threads; the access log masks tokens in
# paths and carries the request id (service.logs.AccessLog).
CMD ["dicepost", "web", "--bind", "0.0.0.0:8000", "--workers", "2", "--threads", "4"]
