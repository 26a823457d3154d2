"""Checks that run in the daemon: static fallbacks and notebook-level annotations."""
