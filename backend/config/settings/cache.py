"""The Django cache: Redis, shared by every web process.

Login throttling counts failures here (accounts/login_throttle.py), and must see the same
counts from every gunicorn worker and host, which a per-process cache (Django's default,
LocMemCache) would not; results memoizes statistics of completed runs here too. Keys carry
a prefix so the cache can share the Celery broker's Redis database.
"""

from config.settings.celery import REDIS_URL

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "iotsecbench-cache",
    }
}
