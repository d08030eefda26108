"""Audit plug-in: everything to user 0 (a dictator), and an exception once there are three users.
An audit up to three users must stop with one line and store nothing, although it found
violations at smaller sizes before the plug-in broke."""

from fairlab.core.instance import Instance


def breaks_at_three(instance: Instance):
    if instance.n >= 3:
        raise ValueError("boom at three users")
    return [instance.solo_tasks(0)] + [0] * (instance.n - 1)
