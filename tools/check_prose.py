"""Fail when the tree's prose carries what belongs in a commit message.

    python tools/check_prose.py            # the tracked files of this clone
    python tools/check_prose.py PATH...    # these files, or the tracked files under these folders

Code, tests, tools, the build and CI (comments, docstrings and strings alike)
give a reason in a line: no measured figures (times, ratios, before -> after),
no commit hashes, dates or run narration. The docs and the README carry the
current figures, which the benchmark's JSON generates, but no hashes, dates or
narration either; markdown keeps exponents in code (a bare 2**24 renders as
bold). History lives in docs/changelog.rst alone, which is not checked. A
line that must hold such text (a test of the benchmark report's format)
ends with "# noqa: prose".

Each finding is printed as path:line: what: the text; the exit status is the
number of findings (capped at 100), so CI fails on any.
"""

import re
import subprocess
import sys
from pathlib import Path

#: the history, the data a run printed, and this check with its own tests
EXEMPT = {"docs/changelog.rst", "docs/bench.json", "tools/check_prose.py",
          "tests/test_docs_tools.py"}
CODE_SUFFIXES = {".py", ".pyx", ".pxi", ".pxd", ".in", ".pyi", ".h", ".c", ".toml", ".yml",
                 ".cfg", ".json", ".supp", ""}
DOC_SUFFIXES = {".rst", ".md", ".txt"}

_HEX = re.compile(r"(?<![0-9A-Za-z_.])[0-9a-f]{7,40}(?![0-9A-Za-z_])")
_DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\b(January|February|March|April|May|June|July"
                   r"|August|September|October|November|December) 20\d\d\b")
_NARRATION = re.compile(
    r"\b(this run|in this run|the run before|the runs before|the run of|timed again|as before"
    r"|this session|last session|the last session|earlier session|before -> after"
    r"|found by (the fuzzer|fuzz/run|hypothesis|valgrind|the sanitizer|asan|ubsan)|hypothesis found"
    r"|until test_\w+|the old (loop|rule|code|build)|was \d[\d.]* (us|ns|ms)"
    r"|\d+ alternating (pairs|rounds)|in \d+ pairs)\b", re.IGNORECASE)
_FIGURE = re.compile(
    r"\d(\.\d+)? ?(ns|us|µs|ms)\b|\d(\.\d+)? s\b"  # a time
    r"|\b(?!1\.0+x)\d+\.\d+x\b"                 # a ratio (1.0x, a threshold, aside)
    r"|\d\.\d+ ?(us|ns|ms|x)? ?-> ?\d"         # before -> after
    r"|\b\d+(\.\d+)? ?(GB|MB)/s\b"             # a bandwidth
    r"|\bmedians? of \d+")                      # a measurement's method
_BOLD_EXPONENT = re.compile(r"\d\*\*\d")


def _is_hash(token):
    """A hex word that is a commit hash rather than a number or a word."""
    return (any(c.isdigit() for c in token) and any(c in "abcdef" for c in token)
            and not re.fullmatch(r"\d+e\d+", token))


def _outside_code(line):
    """A markdown line with its `code` spans blanked."""
    return re.sub(r"`[^`]*`", "``", line)


def findings(path, text):
    """(line number, what, line) for each offending line of one file."""
    is_doc = Path(path).suffix in DOC_SUFFIXES
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if path.endswith(".md") and line.lstrip().startswith("```"):
            in_fence = not in_fence
        if line.rstrip().endswith("# noqa: prose"):
            continue
        if any(_is_hash(m.group()) for m in _HEX.finditer(line)):
            yield number, "commit hash", line
        if _DATE.search(line):
            yield number, "date", line
        if _NARRATION.search(line):
            yield number, "run narration", line
        if not is_doc and _FIGURE.search(line):
            yield number, "measured figure", line
        if path.endswith(".md") and not in_fence and _BOLD_EXPONENT.search(_outside_code(line)):
            yield number, "exponent outside code (renders as bold)", line


def checked_files(paths=()):
    """The tracked files that hold code or prose (under paths, if given)."""
    out = subprocess.run(["git", "ls-files", "--", *paths], capture_output=True, text=True,
                         check=True).stdout
    for path in out.splitlines():
        p = Path(path)
        if path in EXEMPT or path.startswith("tests/data/"):
            continue
        if p.suffix in CODE_SUFFIXES | DOC_SUFFIXES and p.is_file():
            yield path


def main(paths):
    count = 0
    files = [p for p in paths if Path(p).is_file()]
    folders = [p for p in paths if not Path(p).is_file()]
    for path in files + (list(checked_files(folders)) if folders or not paths else []):
        try:
            text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, what, line in findings(path, text):
            count += 1
            print(f"{path}:{number}: {what}: {line.strip()[:160]}")
    if count:
        print(f"{count} line(s) carry what belongs in a commit message or the changelog "
              "(tools/check_prose.py says what each check is for)", file=sys.stderr)
    return min(count, 100)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
