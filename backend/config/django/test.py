"""Settings for pytest: the real PostgreSQL, Redis and Mosquitto of the machine."""

import os
import tempfile

from Crypto.PublicKey import ECC

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/iotsecbench")
if not os.environ.get("JOB_SIGNING_KEY") and not os.environ.get("JOB_SIGNING_KEY_FILE"):
    # A fresh key per test process: nothing outside this process can sign jobs.
    os.environ["JOB_SIGNING_KEY"] = ECC.generate(curve="ed25519").export_key(format="PEM")

from config.django.base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
# Uploaded raw files of this test process go to a throwaway directory.
MEDIA_ROOT = tempfile.mkdtemp(prefix="iotsecbench-media-")
# The cache is the machine's Redis, as in production (login throttling must work across
# processes), but a database of its own: backend/conftest.py empties it before every test,
# which must never touch a broker's queues (the e2e tests use database 14).
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ.get("TEST_CACHE_URL", "redis://127.0.0.1:6379/13"),
    }
}
