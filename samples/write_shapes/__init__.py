"""A small Starlette app whose writes answer as real APIs do when they answer no record.

Start it with ``python -m samples.write_shapes serve --port 0``; see ``README.md``.
"""
