"""Attack cases (issue 12): each test names an attack and asserts what GPUQuote answers."""
