# Backend, worker, beat and control-plane listener share this image.
# The base is an argument so a machine without Docker Hub can build on a local stand-in
# (e2e_deploy/standins.py); it defaults to the official image.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.django.base PYTHONPATH=/app/backend:/app
WORKDIR /app
# requirements/backend.txt: the pins, the contract package and the device-agent package (the
# one-way controller only); gcc builds the agent's lightweight-cipher C extension, then goes.
COPY requirements/base.txt requirements/backend.txt requirements/
COPY contract contract
COPY device-agent device-agent
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && pip install --no-cache-dir -r requirements/backend.txt \
    && apt-get purge -y gcc libc6-dev && apt-get autoremove -y && rm -rf /var/lib/apt/lists/* \
    && rm -rf contract device-agent
COPY backend backend
COPY worker worker
COPY fixtures fixtures
WORKDIR /app/backend
RUN DJANGO_SECRET_KEY=build JOB_SIGNING_KEY=unused python manage.py collectstatic --noinput
EXPOSE 8000
