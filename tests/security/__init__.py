"""Attack cases: each test names an attack and asserts what GPUQuote answers."""
