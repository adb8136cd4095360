"""Read a memcheck log; report the errors whose stack passes through fastclip.

This pyenv CPython 3.11 (built without --with-valgrind) makes memcheck report
uninitialised values inside the interpreter itself (object.h's Py_INCREF,
int.from_bytes at start-up), none with a fastclip frame. Those are counted
and listed by function, not failed on; an error with a fastclip frame, and any
invalid read/write/free anywhere, fails.
"""

import collections
import re
import sys

OURS = re.compile(r"fastclip|_kernels_|_ufunc\.(c|pyx)|csrc/")
ALWAYS_FATAL = ("Invalid read", "Invalid write", "Invalid free", "Mismatched free",
                "Source and destination overlap")


def blocks(text):
    block = []
    for line in text.splitlines():
        m = re.match(r"==\d+== ?(.*)", line)
        if not m:
            continue
        body = m.group(1)
        if body == "":
            if block:
                yield block
            block = []
        else:
            block.append(body)
    if block:
        yield block


def main(path):
    with open(path) as f:
        text = f.read()
    ours, fatal, others = [], [], collections.Counter()
    for b in blocks(text):
        head = b[0]
        if not re.match(r"(Invalid|Conditional jump|Use of uninitialised|Syscall param|"
                        r"Mismatched|Source and destination)", head):
            continue
        if any(OURS.search(line) for line in b):
            ours.append(b)
        elif head.startswith(ALWAYS_FATAL):
            fatal.append(b)
        else:
            frame = next((line.split(":", 1)[1].strip() for line in b[1:] if "at 0x" in line), "?")
            others[f"{head} at {frame.split(' (')[0]}"] += 1
    for b in ours + fatal:
        print("\n".join(b), end="\n\n")
    print(f"memcheck errors with a fastclip frame: {len(ours)}; invalid accesses elsewhere: "
          f"{len(fatal)}; interpreter-internal uninitialised-value reports: {sum(others.values())}")
    for what, n in others.most_common(5):
        print(f"  {n:5d} x {what}")
    return 1 if ours or fatal else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
