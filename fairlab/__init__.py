"""fairlab: a lab for verifying fair-allocation mechanisms for multiple resources.

The core shared by every package: exact numbers (`fairlab.exact`), the instance model
(`fairlab.instance`), the one input-error type (`fairlab.errors`), and the CLI (`fairlab.cli`).
"""

__version__ = "0.1.0"
