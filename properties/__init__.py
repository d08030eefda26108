"""properties: see README."""
