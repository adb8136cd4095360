"""fastclip.show_config(): what this process is running."""

import os
import sys

import numpy as np


def config():
    """The facts show_config prints, as a dict (also used by the benchmark)."""
    import ml_dtypes

    from fastclip import __version__, _threads, _ufunc

    return {
        "fastclip": __version__,
        "numpy": np.__version__,
        "ml_dtypes": ml_dtypes.__version__,
        "ml_float64_rounding": {f"{src}->{dst}": how for (src, dst), how
                                in _ufunc.ML_ROUNDING.items()},
        "python": sys.version.split()[0],
        "simd_target": _ufunc.SIMD_TARGET,
        "simd_compiled": list(_ufunc.COMPILED_TARGETS),
        "simd_cpu_supports": list(_ufunc.TARGETS[: _ufunc.CPU_LEVEL + 1]),
        "simd_env": os.environ.get("FASTCLIP_SIMD") or None,
        "threads": _threads.get_num_threads(),
        "threads_effective": _threads.effective_threads(),
        "openmp": _ufunc._kernels.HAVE_OPENMP,
        "parallel_min_bytes": _threads.PARALLEL_MIN_BYTES,
        "convert_parallel_min_bytes": _threads.PARALLEL_MIN_BYTES
        // _ufunc._kernels.CONVERT_WORK_PER_BYTE,
        "reuse_cap_bytes": _ufunc.reuse_cap_bytes(),
        "reuse_min_bytes": _ufunc.REUSE_MIN_BYTES,
        "reuse_held_bytes": _ufunc.reused_blocks()[1],
        **_ufunc._kernels.stores(),
    }


def show_config():
    """Print fastclip's version, the SIMD target in use, the targets compiled
    and the threads a call uses.

    Examples
    --------
    >>> import fastclip
    >>> fastclip.show_config()  # doctest: +SKIP
    fastclip 0.1.0, numpy 2.4.6, ml_dtypes 0.7.0, python 3.11.7
    SIMD target: avx512 (compiled: baseline, sse42, avx2, avx512; ...)
    threads: 2 (effective now 2: fastclip's helper threads, ...)
    """
    c = config()
    print(f"fastclip {c['fastclip']}, numpy {c['numpy']}, ml_dtypes {c['ml_dtypes']}, "
          f"python {c['python']}")
    print(f"SIMD target: {c['simd_target']} (compiled: {', '.join(c['simd_compiled'])}; "
          f"CPU supports: {', '.join(c['simd_cpu_supports'])}; "
          f"FASTCLIP_SIMD={c['simd_env'] or 'unset'})")
    if c["openmp"]:
        print(f"threads: {c['threads']} (effective now {c['threads_effective']}: fastclip's "
              f"helper threads, capped by OpenMP's limit (threadpoolctl); calls from the "
              f"main thread moving at least {c['parallel_min_bytes'] >> 20} MiB are split, "
              f"into another dtype {c['convert_parallel_min_bytes'] >> 10} KiB)")
    else:
        print(f"threads: 1 (OpenMP no: built without it, every call runs on the calling "
              f"thread; set_num_threads({c['threads']}) is kept but has no effect)")
    print(f"streaming stores: results of {_mib(c['stream_min_bytes'])} and more into memory in "
          f"place (half the L3 a core shares: {_mib(c['l3_bytes'])}, {c['l3_source']})")
    if c["reuse_cap_bytes"]:
        print(f"new results of {c['reuse_min_bytes'] >> 20} MiB and more: reuse the blocks freed "
              f"results left, up to {c['reuse_cap_bytes'] >> 20} MiB kept, "
              f"{c['reuse_held_bytes'] / 2**20:g} MiB kept now (set_reuse_mib, FASTCLIP_REUSE_MIB)")
    else:
        print("new results: fresh memory each time, nothing kept "
              "(set_reuse_mib or FASTCLIP_REUSE_MIB to keep freed blocks)")
    routes = {"once": "fused, rounded once as ml_dtypes casts",
              "via_float32": "fused, rounded through float32 as ml_dtypes casts",
              None: "NumPy's clip, then ml_dtypes' cast (no fused loop rounds as it does)"}
    print("float64 -> bfloat16/float8 out=: "
          + "; ".join(sorted({routes[how] for how in c["ml_float64_rounding"].values()})))


def _mib(nbytes):
    return f"{nbytes / 2**20:g} MiB"
