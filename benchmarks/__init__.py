"""Speed targets live here, never in timed tests. Run with `make bench`."""
