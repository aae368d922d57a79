"""What the Rails, PocketBase and json-server samples share: the data set and the launcher."""
