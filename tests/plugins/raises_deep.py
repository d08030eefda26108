"""A plug-in whose exception is raised two calls deep in its own code (the one-line error must name
this file and the lines: issue 29)."""


def _helper(x):
    return 1 / x  # line 6: the ZeroDivisionError


def mech(instance):
    return [_helper(0)] * instance.n  # line 10: the call into the helper
