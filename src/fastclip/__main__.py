"""python -m fastclip: the benchmark and the build's facts."""

import sys

USAGE = """\
usage: python -m fastclip COMMAND [options]

commands:
  bench     time fastclip beside np.clip, np.copyto and the peers installed
            (torch, numba, numexpr), one process per SIMD target this CPU
            runs; a summary by default (python -m fastclip bench --help)
  config    what this process runs: versions, the SIMD target and the ones
            compiled, threads (fastclip.show_config())

options:
  -h, --help    this text
  --version     fastclip's version
"""


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if argv else 2
    if argv[0] == "--version":
        from fastclip import __version__
        print(f"fastclip {__version__}")
        return 0
    if argv[0] == "bench":
        from fastclip.bench import main as bench_main
        return bench_main(argv[1:])
    if argv[0] == "config":
        from fastclip import show_config
        show_config()
        return 0
    print(f"unknown command {argv[0]!r}: expected 'bench' or 'config' (python -m fastclip --help)",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
