"""Every built-in mechanism, imported: what the lab's fork server preloads
(`fairlab.core.processes`), so that a plug-in's worker process, a pool worker or a campaign cell
can call any of them (``mechanisms.get("drf")`` inside a plug-in) without importing it again."""

from fairlab.mechanisms import registry

registry.load_all()
