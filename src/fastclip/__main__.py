"""python -m fastclip bench [...]: the benchmark; python -m fastclip config: show_config()."""

import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m fastclip bench [--quick] [--json FILE] [--plot FILE.png] ...\n"
              "       python -m fastclip config")
        return 0 if argv else 2
    if argv[0] == "bench":
        from fastclip.bench import main as bench_main
        return bench_main(argv[1:])
    if argv[0] == "config":
        from fastclip import show_config
        show_config()
        return 0
    print(f"unknown command {argv[0]!r}: expected 'bench' or 'config'", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
