"""Which kernel loops a build compiled to vector code, read off its disassembly.

    python tools/loop_report.py [KERNEL.so]       (default: the kernel module in use)

For each function of a kernel module (fastclip/_kernels_<target>.so) that holds
a loop, its innermost loops (a backward branch inside the function with no
other inside it), and for the largest one with vector code the instructions in
its body and how many of them are vector instructions
(aarch64: an operand vN.<arrangement> or qN; x86-64: a ymm/zmm operand, or an
xmm one of a packed instruction). A kernel path whose every loop counts no
vector instruction fell back to scalar code. objdump must be on PATH, or
OBJDUMP name one for the module's architecture (tools/aarch64 reads its
cross-built module with aarch64-linux-gnu-objdump).
"""

import os
import re
import subprocess
import sys
from collections import defaultdict

#: the functions of the kernel paths, by the name Cython or csrc/ gives them
PATHS = [
    ("serial_", "the clip loop of a row: scalar and per-element bounds, contiguous and strided"),
    ("rows_", "the walk's rows (N-d views)"),
    ("fc_cvt_", "a fused clip-and-convert loop"),
    ("fc_run_masked", "where="),
    ("fc_arrays_", "per-element bounds (float rows, where not inlined)"),
    ("fc_contiguous_", "16-/8-bit floats, scalar bounds (where not inlined)"),
    ("fc_ties_to_bound_", "float rows, both bounds scalar under np.maximum's tie rule"),
    ("fc_scalars_", "the same, where not inlined"),
    ("fc_quantize_range", "fastclip.quantize's loops (fc_q_run's, inlined)"),
]

LINE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
FUNC = re.compile(r"^([0-9a-f]+) <(.+)>:$")
TARGET = re.compile(r"\b([0-9a-f]+) <")


def is_vector(mnemonic, operands, arch):
    if arch == "aarch64":
        return bool(re.search(r"\bv\d+\.\d*[bhsd]\b|\bq\d+\b|\bv\d+\.\d+[bhsd]\b", operands))
    if re.search(r"%[yz]mm\d+", operands):
        return True
    if "%xmm" in operands:
        # scalar SSE/AVX work on one lane of an xmm register
        return not re.search(r"(ss|sd|ss2si|sd2si|si2ss|si2sd)$", mnemonic) and mnemonic not in (
            "vmovd", "vmovq", "movd", "movq", "vpextrb", "vpextrw", "vpextrd", "vpextrq",
            "vpinsrb", "vpinsrw", "vpinsrd", "vpinsrq", "vucomiss", "vucomisd", "ucomiss",
            "ucomisd", "vcomiss", "vcomisd")
    return False


def is_branch(mnemonic, arch):
    if arch == "aarch64":
        return mnemonic in ("b", "cbz", "cbnz", "tbz", "tbnz") or mnemonic.startswith("b.")
    return mnemonic.startswith("j")


def short_name(symbol):
    """__pyx_f_8fastclip_17_kernels_avx2_serial_float -> serial_float"""
    m = re.match(r"__pyx_f_\d+fastclip_\d+_kernels_\w+?_((?:serial|rows|clip|strided|short_rows|"
                 r"every_other|scalar_run|keys|contiguous)_\w+)$", symbol)
    return m.group(1) if m else symbol


def loops(path):
    text = subprocess.run([os.environ.get("OBJDUMP", "objdump"), "-d", "--no-show-raw-insn", path], capture_output=True,
                          text=True, check=True).stdout
    arch = "aarch64" if "aarch64" in text[:2000] else "x86_64"
    functions = defaultdict(list)
    name = None
    for line in text.splitlines():
        f = FUNC.match(line)
        if f:
            name = short_name(f.group(2))
            continue
        m = LINE.match(line)
        if m and name:
            addr, mnemonic, operands = int(m.group(1), 16), m.group(2), m.group(3)
            functions[name].append((addr, mnemonic, operands))
    report = {}
    for name, body in functions.items():
        if not any(name.startswith(prefix) for prefix, _ in PATHS):
            continue
        start, end = body[0][0], body[-1][0]
        found = []
        for i, (addr, mnemonic, operands) in enumerate(body):
            if not is_branch(mnemonic, arch):
                continue
            t = TARGET.search(operands)
            if not t:
                continue
            target = int(t.group(1), 16)
            if start <= target < addr:
                inside = [b for b in body if target <= b[0] <= addr]
                vector = sum(is_vector(mn, ops, arch) for _, mn, ops in inside)
                found.append((target, addr, len(inside), vector))
        # innermost loops only: an outer loop's body holds its inner ones
        inner = [f for f in found
                 if not any(g is not f and f[0] <= g[0] and g[1] <= f[1] for g in found)]
        if inner:
            report[name] = inner
    return arch, report


def main(argv):
    if argv:
        path = argv[0]
    else:
        from fastclip import _ufunc
        path = _ufunc._kernels.__file__
    arch, report = loops(path)
    print(f"{path} ({arch})")
    print(f"{'function':<36} {'inner loops':>11} {'vector':>6}  largest vector loop: instructions, vector")
    scalar_only = []
    for name in sorted(report):
        found = report[name]
        vec = [f for f in found if f[3]]
        best = max(vec, key=lambda f: f[3]) if vec else max(found, key=lambda f: f[2])
        print(f"{name:<36} {len(found):>11} {len(vec):>6}  {best[2]:>5}, {best[3]:>5}")
        if not vec:
            scalar_only.append(name)
    print()
    for prefix, what in PATHS:
        names = [n for n in report if n.startswith(prefix)]
        if names:
            n_vec = sum(1 for n in names if any(f[3] for f in report[n]))
            print(f"{prefix + '*':<18} {what}: {n_vec} of {len(names)} functions with a vector loop")
    if scalar_only:
        print("no vector loop:", ", ".join(sorted(scalar_only)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
