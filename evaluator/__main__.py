"""`python -m evaluator <command>`: an alias of `python -m cli <command>`, the command line (`cli.main`), which sits
above evaluator, store and services. It is run, never imported, so the evaluator package imports nothing of it."""
import runpy

if __name__ == "__main__":
    runpy.run_module("cli", run_name="__main__", alter_sys=True)
