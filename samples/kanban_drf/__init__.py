"""A small kanban REST API built with Django, Django REST Framework, django-filter and
drf-spectacular.

It plays the part of a "foreign" upstream service: a real third-party-style REST API with
token authentication, page-number pagination, django-filter lookups, ordering, search,
custom operation routes and an OpenAPI schema. Start it with::

    python -m samples.kanban_drf serve --port 0

See ``README.md`` next to this file for the full command line.
"""
