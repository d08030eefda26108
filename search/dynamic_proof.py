"""placeholder"""


def applies(mechanism, prop, options):
    return False
