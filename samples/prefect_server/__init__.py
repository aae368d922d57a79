"""A Prefect 3 server (PyPI ``prefect``, in its own virtual environment) with seeded data.

Start it with ``python -m samples.prefect_server serve --port 0``; see ``README.md``.
"""
