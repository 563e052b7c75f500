"""IR passes, one per file, each pure: ``run(fn, tables) -> Function`` (a function pass) or
``run_module(module) -> Module`` (a module pass, which may change the tables).  pipeline.py holds the
order; backends append their own passes (generator/<target>: Backend.passes).
"""
