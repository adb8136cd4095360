"""The peers a user might reach for instead, where installed: torch.clamp,
numba (@njit with np.clip inside, and a plain loop), numexpr
(minimum(maximum(x, lo), hi)); for quantize, onnx's reference and
onnxruntime (fastclip/bench/quantize.py). Each adapter returns a zero-argument function
computing the same call, or None where the peer has no such call (a dtype it
lacks, a layout it cannot take); a peer that is not installed is None
throughout and named in Peers.missing.
"""

import numpy as np

ML_NAMES = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


class Peers:
    def __init__(self, use=("torch", "numba", "numexpr", "onnx", "onnxruntime")):
        self.missing = []
        self.torch = self._import("torch", use)
        self.numba = self._import("numba", use)
        self.numexpr = self._import("numexpr", use)
        self.onnx = self._import("onnx", use)
        self.onnxruntime = self._import("onnxruntime", use)
        if self.torch is not None:
            import warnings
            # torch.from_numpy warns once for read-only arrays (the bench never
            # writes through such a tensor)
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
        self._jitted = {}

    def _import(self, name, use):
        if name not in use:
            return None
        try:
            return __import__(name)
        except ImportError:
            self.missing.append(name)
            return None

    def versions(self):
        out = []
        for name in ("torch", "numba", "numexpr", "onnx", "onnxruntime"):
            mod = getattr(self, name)
            if mod is not None:
                extra = f", {mod.get_num_threads()} threads" if name == "torch" else ""
                out.append(f"{name} {mod.__version__}{extra}")
        return out

    def set_one_thread(self):
        """One thread each (np.clip has one); returns what to restore."""
        state = {}
        if self.torch is not None:
            state["torch"] = self.torch.get_num_threads()
            self.torch.set_num_threads(1)
        if self.numexpr is not None:
            state["numexpr"] = self.numexpr.set_num_threads(1)
        return state

    def restore(self, state):
        if "torch" in state:
            self.torch.set_num_threads(state["torch"])
        if "numexpr" in state:
            self.numexpr.set_num_threads(state["numexpr"])

    # ---- torch

    def torch_dtype(self, dtype):
        name = {"float64": "float64", "float32": "float32", "float16": "float16",
                "int8": "int8", "uint8": "uint8", "int16": "int16", "int32": "int32",
                "int64": "int64", "uint16": "uint16", "uint32": "uint32",
                "uint64": "uint64"}.get(dtype.name, dtype.name)
        return getattr(self.torch, name, None)

    def tensor(self, arr):
        """arr as a tensor sharing its memory (ml_dtypes arrays by their bits)."""
        if arr.dtype.name in ML_NAMES:
            bits = arr.view(np.int16 if arr.dtype.itemsize == 2 else np.int8)
            return self.torch.from_numpy(bits).view(self.torch_dtype(arr.dtype))
        return self.torch.from_numpy(arr)

    def torch_clamp(self, a, lo, hi, out=None):
        """torch.clamp(a, lo, hi, out=out); lo and hi numbers or arrays (as
        tensors of a's dtype, broadcast as they are)."""
        if self.torch is None or self.torch_dtype(a.dtype) is None:
            return None
        torch = self.torch
        try:
            ta = self.tensor(a)
            tl, th = (self.tensor(np.ascontiguousarray(np.asarray(b, a.dtype)))
                      if isinstance(b, np.ndarray) else b for b in (lo, hi))
            if out is None:
                def run():
                    return torch.clamp(ta, tl, th)
            else:
                to = self.tensor(out)

                def run():
                    return torch.clamp(ta, tl, th, out=to)
            run()
        except (RuntimeError, TypeError, ValueError):
            return None         # torch has no clamp for this dtype or layout
        return run

    def torch_clamp_to(self, x, lo, hi, dst):
        """torch.clamp(x, lo, hi).to(dst's dtype): torch's clip-and-convert."""
        if self.torch is None or x.dtype.name in ML_NAMES:
            return None
        td = self.torch_dtype(dst)
        if td is None:
            return None
        tx = self.torch.from_numpy(x)

        def run():
            return self.torch.clamp(tx, lo, hi).to(td)
        try:
            run()
        except (RuntimeError, NotImplementedError, TypeError, AttributeError):
            return None         # no clamp for this source (uint16)
        return run

    # ---- numba

    def _jit(self, name):
        if name not in self._jitted:
            nb = self.numba

            if name == "np.clip":
                def f(x, lo, hi, out):
                    return np.clip(x, lo, hi, out)
            elif name == "np.clip new":
                def f(x, lo, hi):
                    return np.clip(x, lo, hi)
            elif name == "loop new":
                def f(x, lo, hi):
                    out = np.empty_like(x)
                    for i in range(x.size):
                        v = x[i]
                        v = lo if v < lo else v
                        out[i] = hi if v > hi else v
                    return out
            elif name == "loop":
                def f(x, lo, hi, out):
                    for i in range(x.size):
                        v = x[i]
                        v = lo if v < lo else v
                        out[i] = hi if v > hi else v
                    return out
            elif name == "loop arrays":
                def f(x, lo, hi, out):
                    for i in range(x.size):
                        v = x[i]
                        v = lo[i] if v < lo[i] else v
                        out[i] = hi[i] if v > hi[i] else v
                    return out
            elif name == "loop where":
                def f(x, lo, hi, out, mask):
                    for i in range(x.size):
                        if mask[i]:
                            v = x[i]
                            v = lo if v < lo else v
                            out[i] = hi if v > hi else v
                    return out
            self._jitted[name] = nb.njit(cache=False, nogil=True)(f)
        return self._jitted[name]

    def numba_clip(self, a, lo, hi, out):
        """numba @njit np.clip(a, lo, hi, out) (out of a's dtype), or with
        out None np.clip(a, lo, hi): a new result, as fastclip's is."""
        if self.numba is None or a.dtype.name in ML_NAMES or (out is not None
                                                              and a.dtype != out.dtype):
            return None
        lo_, hi_ = a.dtype.type(lo), a.dtype.type(hi)
        f, args = ((self._jit("np.clip new"), (a, lo_, hi_)) if out is None
                   else (self._jit("np.clip"), (a, lo_, hi_, out)))
        try:
            f(*args)
        except Exception:       # numba's typing error for a call it lacks
            return None
        return lambda: f(*args)

    def numba_loop(self, a, lo, hi, out, mask=None):
        """A plain loop in @njit over 1-D contiguous operands: scalar or
        per-element bounds, an out of any dtype, where= as a mask; with out
        None (scalar bounds) the loop allocates its result, as fastclip does."""
        if (self.numba is None or a.dtype.name in ML_NAMES
                or (out is not None and out.dtype.name in ML_NAMES)
                or a.ndim != 1 or not a.flags.c_contiguous):
            return None
        arrays = isinstance(lo, np.ndarray) or isinstance(hi, np.ndarray)
        if out is None:
            if arrays or mask is not None:
                return None
            f, args = self._jit("loop new"), (a, a.dtype.type(lo), a.dtype.type(hi))
        elif arrays:
            lo_ = np.ascontiguousarray(np.broadcast_to(np.asarray(lo, a.dtype), a.shape))
            hi_ = np.ascontiguousarray(np.broadcast_to(np.asarray(hi, a.dtype), a.shape))
            f, args = self._jit("loop arrays"), (a, lo_, hi_, out)
        elif mask is not None:
            f, args = self._jit("loop where"), (a, a.dtype.type(lo), a.dtype.type(hi), out, mask)
        else:
            f, args = self._jit("loop"), (a, a.dtype.type(lo), a.dtype.type(hi), out)
        try:
            f(*args)
        except Exception:
            return None
        return lambda: f(*args)

    # ---- numexpr

    def numexpr_clip(self, a, lo, hi, out):
        """numexpr: minimum(maximum(x, lo), hi) into out (its dtypes only)."""
        if self.numexpr is None or a.dtype.name in ML_NAMES or a.dtype.kind not in "fi" \
                or a.dtype.itemsize < 4 or out.dtype != a.dtype:
            return None
        ne = self.numexpr
        local = {"x": a, "lo": a.dtype.type(lo), "hi": a.dtype.type(hi)}
        try:
            ne.evaluate("minimum(maximum(x, lo), hi)", local_dict=local, out=out)
        except Exception:
            return None
        return lambda: ne.evaluate("minimum(maximum(x, lo), hi)", local_dict=local, out=out)
