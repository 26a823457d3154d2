"""(filled in by the checker work)."""
