"""A plug-in that prints when imported (stdout must carry the result only)."""
print("PRINTED AT IMPORT")


def f(instance):
    return [1] * instance.n
