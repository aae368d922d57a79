"""The kanban data served by json-server 0.17.4 (npm), a schemaless JSON REST API.

Start it with ``python -m samples.jsonserver_kanban serve --port 0``; see ``README.md``.
"""
