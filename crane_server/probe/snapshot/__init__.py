"""Snapshot summaries: what a namespace object is, read without changing it."""
