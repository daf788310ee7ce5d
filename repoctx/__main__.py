"""``python -m repoctx`` runs the command line."""

from repoctx.cli import run

run()
