"""Faults with real PostgreSQL, Redis and a Celery worker: what survives a stopped service."""
