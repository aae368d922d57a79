"""The kanban data served by Directus 11.1.0 (npm), a headless CMS over SQLite.

Start it with ``python -m samples.directus_kanban serve --port 0``; see ``README.md``.
"""
