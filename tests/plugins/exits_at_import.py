"""A plug-in whose import ends the process with exit code 0 (must not read as success)."""
import os

os._exit(0)


def f(instance):
    return [0] * instance.n
