"""Benchmarks, each comparing against a baseline measured in the same run."""
