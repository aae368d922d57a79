from __future__ import annotations

from .server import main

raise SystemExit(main())
