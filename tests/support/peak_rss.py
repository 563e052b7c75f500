"""Runs a command and writes its exit status, peak RSS, wall and CPU time to a file: that process alone.

    python3 -S -I tests/support/peak_rss.py RESULT_FILE COMMAND [ARG...]    (stdin/stdout/stderr inherited)
    RESULT_FILE then holds "STATUS MAXRSS_KIB WALL_S CPU_S" (wall: fork to exit; CPU: user + system)

Why a launcher: Linux keeps, in a process's peak RSS, the peak of the address space it exec'd from, and a
child forked (or vforked) from a large process, such as pytest or a benchmark holding buffers, starts
from that process's pages, so wait4 from there reports the parent's size.  This launcher is a bare
interpreter (-S -I: no site, ~10 MiB), less than any cipherspec command, so the peak it reports is the
command's own.  No project imports.
"""

import os
import sys
import time


def main() -> None:
    result, argv = sys.argv[1], sys.argv[2:]
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    with open(result, "w") as f:
        f.write(
            f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {wall:.6f} {usage.ru_utime + usage.ru_stime:.6f}\n"
        )


if __name__ == "__main__":
    main()
