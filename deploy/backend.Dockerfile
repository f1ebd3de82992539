# Backend, worker, beat and control-plane listener share this image.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.django.base PYTHONPATH=/app/backend:/app
WORKDIR /app
COPY requirements/base.txt requirements/base.txt
RUN pip install --no-cache-dir -r requirements/base.txt
COPY backend backend
COPY worker worker
COPY fixtures fixtures
WORKDIR /app/backend
RUN DJANGO_SECRET_KEY=build JOB_SIGNING_KEY=unused python manage.py collectstatic --noinput
EXPOSE 8000
