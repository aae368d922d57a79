from __future__ import annotations

import time
from typing import Any

from django.db.models import Count, Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from .models import Board, Card, List, Tag
from .serializers import (
    BoardReportSerializer,
    BoardSerializer,
    CardSerializer,
    FinishedCountSerializer,
    ListSerializer,
    TagSerializer,
)

TEXT_LOOKUPS = ["exact", "iexact", "icontains", "istartswith", "iendswith"]
RANGE_LOOKUPS = ["exact", "lt", "lte", "gt", "gte"]
REPORT_DEFAULT_SECONDS = 2.0
REPORT_MAX_SECONDS = 30.0


class BoardViewSet(viewsets.ModelViewSet):
    queryset = Board.objects.order_by("id")
    serializer_class = BoardSerializer
    filterset_fields = {
        "name": TEXT_LOOKUPS,
        "archived": ["exact"],
        "created": RANGE_LOOKUPS,
        "id": ["exact", "in"],
    }
    search_fields = ["name"]
    ordering_fields = ["id", "name", "archived", "created"]
    ordering = ["id"]

    @extend_schema(request=None, responses=BoardSerializer)
    @action(detail=True, methods=["post"])
    def archive(self, request: Request, pk: str | None = None) -> Response:
        """Archive the board. Its lists and cards are left as they are."""
        board = self.get_object()
        board.archived = True
        board.save(update_fields=["archived"])
        return Response(self.get_serializer(board).data)

    @extend_schema(
        request=None,
        responses=BoardReportSerializer,
        parameters=[
            OpenApiParameter(
                "seconds",
                OpenApiTypes.NUMBER,
                OpenApiParameter.QUERY,
                description="How long the report takes to build (default 2, at most 30).",
            )
        ],
    )
    @action(detail=True, methods=["post"])
    def report(self, request: Request, pk: str | None = None) -> Response:
        """Build a card report for the board (a slow, long-running operation)."""
        board = self.get_object()
        raw = request.query_params.get("seconds")
        try:
            seconds = REPORT_DEFAULT_SECONDS if raw in (None, "") else float(raw)
        except ValueError:
            return Response(
                {"seconds": ["A valid number is required."]}, status=status.HTTP_400_BAD_REQUEST
            )
        if seconds != seconds:  # NaN
            seconds = REPORT_DEFAULT_SECONDS
        time.sleep(min(max(seconds, 0.0), REPORT_MAX_SECONDS))
        totals = Card.objects.filter(list__board=board).aggregate(
            cards=Count("id"), done=Count("id", filter=Q(done=True))
        )
        return Response({"board": board.pk, "cards": totals["cards"], "done": totals["done"]})


class ListViewSet(viewsets.ModelViewSet):
    queryset = List.objects.order_by("id")
    serializer_class = ListSerializer
    filterset_fields = {
        "title": TEXT_LOOKUPS,
        "position": RANGE_LOOKUPS,
        "board": ["exact", "isnull", "in"],
        "id": ["exact", "in"],
    }
    search_fields = ["title"]
    ordering_fields = ["id", "title", "position", "board"]
    ordering = ["id"]


class CardViewSet(viewsets.ModelViewSet):
    queryset = Card.objects.order_by("id")
    serializer_class = CardSerializer
    filterset_fields = {
        "title": TEXT_LOOKUPS,
        "list": ["exact", "isnull", "in"],
        "priority": ["exact", "in"],
        "due": ["exact", "lt", "lte", "gt", "gte", "isnull"],
        "done": ["exact"],
        "created": RANGE_LOOKUPS,
        "tags": ["exact"],
        "id": ["exact", "in"],
    }
    search_fields = ["title"]
    ordering_fields = ["id", "title", "list", "priority", "due", "done", "created"]
    ordering = ["id"]

    def get_queryset(self) -> Any:
        queryset = super().get_queryset()
        if self.action in ("list", "retrieve"):
            queryset = queryset.prefetch_related("tags")
        return queryset

    @extend_schema(request=None, responses=FinishedCountSerializer, filters=False)
    @action(
        detail=False,
        methods=["get"],
        url_path="finished-count",
        url_name="finished-count",
        filter_backends=[],
        pagination_class=None,
    )
    def finished_count(self, request: Request) -> Response:
        """Number of cards that are done."""
        return Response({"count": Card.objects.filter(done=True).count()})

    @extend_schema(request=None, responses=CardSerializer)
    @action(detail=True, methods=["post"])
    def finish(self, request: Request, pk: str | None = None) -> Response:
        """Mark the card as done."""
        card = self.get_object()
        card.done = True
        card.save(update_fields=["done"])
        return Response(self.get_serializer(card).data)


class TagViewSet(viewsets.ModelViewSet):
    queryset = Tag.objects.order_by("id")
    serializer_class = TagSerializer
    filterset_fields = {"name": TEXT_LOOKUPS, "id": ["exact", "in"]}
    search_fields = ["name"]
    ordering_fields = ["id", "name"]
    ordering = ["id"]
