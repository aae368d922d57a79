"""The ``kanban`` Django app: boards, lists, cards and tags."""
