from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from .kanban import views

router = DefaultRouter()
router.register("boards", views.BoardViewSet)
router.register("lists", views.ListViewSet)
router.register("cards", views.CardViewSet)
router.register("tags", views.TagViewSet)

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/", include(router.urls)),
]
