"""Django settings for the kanban sample API.

Run-time values come from environment variables that the command line sets before Django
starts (see ``samples.kanban_drf.server``):

``KANBAN_DRF_DATABASE``
    path of the SQLite database file.
``KANBAN_DRF_FAULT`` / ``KANBAN_DRF_FAULT_ON``
    the fault to inject and which requests it hits (see ``samples.kanban_drf.faults``).
"""

from __future__ import annotations

import os

SECRET_KEY = "kanban-drf-sample-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "samples.kanban_drf.kanban.apps.KanbanConfig",
]

MIDDLEWARE = ["samples.kanban_drf.faults.FaultMiddleware"]

ROOT_URLCONF = "samples.kanban_drf.urls"
WSGI_APPLICATION = "samples.kanban_drf.wsgi.application"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("KANBAN_DRF_DATABASE", ":memory:"),
        "OPTIONS": {
            # Several server threads share one file: write transactions take the lock up
            # front and wait for it instead of failing with "database is locked".
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        },
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

USE_TZ = True
TIME_ZONE = "UTC"
USE_I18N = False
LANGUAGE_CODE = "en-us"

# Basic authentication checks a password on every request; a lighter PBKDF2 work factor
# keeps that cheap for this local sample server.
PASSWORD_HASHERS = ["samples.kanban_drf.hashers.LightPBKDF2PasswordHasher"]

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.SearchFilter",
        "samples.kanban_drf.kanban.filters.StableOrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "samples.kanban_drf.kanban.pagination.KanbanPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Kanban API",
    "DESCRIPTION": "Boards, lists, cards and tags.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
}

KANBAN_FAULT = os.environ.get("KANBAN_DRF_FAULT") or None
KANBAN_FAULT_ON = os.environ.get("KANBAN_DRF_FAULT_ON") or "all"
KANBAN_HANG_SECONDS = 60.0

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "formatter": "plain",
        }
    },
    "root": {"handlers": ["stderr"], "level": "WARNING"},
    "loggers": {
        # 4xx answers are part of normal API use; only server errors are worth a line.
        "django.request": {"level": "ERROR", "propagate": True},
        "django.server": {"level": "ERROR", "propagate": True},
        # "Task queue depth is N": all worker threads busy, which bursts and hangs cause.
        "waitress.queue": {"level": "ERROR", "propagate": True},
    },
}
