"""IR passes: one pure function ``run(fn, tables) -> Function`` per module; see pipeline.py for the order."""
