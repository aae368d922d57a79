"""Password hasher with a lighter work factor (see ``settings.PASSWORD_HASHERS``)."""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class LightPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 10_000
