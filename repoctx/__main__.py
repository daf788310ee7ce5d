"""``python -m repoctx`` runs the command line."""

from repoctx.cli.entry import run

run()
