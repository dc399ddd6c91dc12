"""`python -m cli <command>`: the command line (`cli.main`)."""
import sys

from cli.main import run

if __name__ == "__main__":
    sys.exit(run())
