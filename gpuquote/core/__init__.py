"""Cross-cutting helpers shared by every app: client address, outbound HTTP, ..."""
