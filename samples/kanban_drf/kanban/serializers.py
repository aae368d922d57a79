from __future__ import annotations

from rest_framework import serializers

from .models import Board, Card, List, Tag


class BoardSerializer(serializers.ModelSerializer):
    class Meta:
        model = Board
        fields = "__all__"


class ListSerializer(serializers.ModelSerializer):
    class Meta:
        model = List
        fields = "__all__"


class CardSerializer(serializers.ModelSerializer):
    class Meta:
        model = Card
        fields = "__all__"


class TagSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tag
        fields = "__all__"


class FinishedCountSerializer(serializers.Serializer):
    count = serializers.IntegerField(read_only=True)


class BoardReportSerializer(serializers.Serializer):
    board = serializers.CharField(read_only=True)
    cards = serializers.IntegerField(read_only=True)
    done = serializers.IntegerField(read_only=True)
