"""CLI verbs contributed by the lab's capabilities: each module defines ``register(app)``."""
