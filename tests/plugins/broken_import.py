"""A plug-in file that fails when imported."""

raise ImportError("this plug-in needs a package that is not installed")
