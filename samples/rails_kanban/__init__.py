"""The kanban data served by a small Rails API app built from the system's (Debian's) gems.

Start it with ``python -m samples.rails_kanban serve --port 0``; see ``README.md``.
"""
