"""WSGI entry point of the kanban sample API."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "samples.kanban_drf.settings")

application = get_wsgi_application()
