"""Quotes and the records they keep (filled in by the quoting issues)."""
