# One image for web, worker and beat (docker-compose.yml picks the command).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
# gunicorn's access log through service.logs: tokens in paths masked, the request id added.
ENV GUNICORN_CMD_ARGS="--logger-class service.logs.GunicornLogger"
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine engine
COPY service service
COPY worker worker
COPY templates templates
# Editable install: the top-level templates/ stay next to the packages that load them.
RUN pip install -e . && useradd --create-home dicepost && mkdir -p /app/instance && chown dicepost /app/instance
USER dicepost
EXPOSE 8000
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--workers", "2", "--threads", "4", "service:create_app()"]
