"""The served A2App surface; its packages are the faces (`runtime.web`, `runtime.service`, ...)."""

__all__: list[str] = []
