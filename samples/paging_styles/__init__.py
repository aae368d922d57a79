"""One small Starlette app serving the same records under each paging style real APIs use.

Start it with ``python -m samples.paging_styles serve --port 0``; see ``README.md``.
"""
