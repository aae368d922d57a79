"""Kanban models. Field names are the wire names of the API."""

from __future__ import annotations

import secrets

from django.db import models


def new_id() -> str:
    """A fresh record id: ``rec_`` followed by 16 lowercase hex characters."""
    return "rec_" + secrets.token_hex(8)


def _id_field() -> models.CharField:
    return models.CharField(primary_key=True, max_length=40, default=new_id, editable=False)


class Board(models.Model):
    id = _id_field()
    name = models.CharField(max_length=200)
    archived = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class List(models.Model):
    id = _id_field()
    title = models.CharField(max_length=120)
    position = models.FloatField(default=0)
    board = models.ForeignKey(
        Board, null=True, blank=True, on_delete=models.SET_NULL, related_name="lists"
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.title


class Tag(models.Model):
    id = _id_field()
    name = models.CharField(max_length=50, unique=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Card(models.Model):
    class Priority(models.TextChoices):
        NONE = "none", "None"
        LOW = "low", "Low"
        MEDIUM = "medium", "Medium"
        HIGH = "high", "High"
        URGENT = "urgent", "Urgent"

    id = _id_field()
    title = models.CharField(max_length=200)
    list = models.ForeignKey(
        List, null=True, blank=True, on_delete=models.SET_NULL, related_name="cards"
    )
    priority = models.CharField(max_length=10, choices=Priority.choices, default=Priority.NONE)
    due = models.DateField(null=True, blank=True)
    done = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    tags = models.ManyToManyField(Tag, blank=True, related_name="cards")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.title
