"""The type stubs: each kind of call types as NumPy's own stub types the same
np.clip call (mypy, where installed). The shape type is left out of the
comparison: NumPy 2.5's stub keeps an array's (fastclip's does, as 2.5's),
older ones give tuple[Any, ...]."""

import re
import textwrap

import pytest

mypy_api = pytest.importorskip("mypy.api")

CALLS = [
    "clip(img, 0.0, 1.0)",
    "clip(img, 0.0, 1.0, out=np.empty((4, 4), np.uint8))",
    "clip(img, 0.0, 1.0, None, where=img > 0)",
    "clip(img, 0, 1, img)",
    "clip(np.float64(2.0), 0, 1)",
    "clip(3.0, 0, 1)",
    "clip([1, 2, 3], 0, 1)",
    "clip(img, 0, 1, dtype=np.float64)",
]


def _revealed(tmp_path, source):
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(source))
    stdout, stderr, status = mypy_api.run(["--no-incremental", "--cache-dir", str(tmp_path / "c"),
                                           "--hide-error-context", str(path)])
    return stdout, status


def test_each_call_types_as_numpys(tmp_path):
    lines = ["import numpy as np", "import fastclip", "img = np.zeros((4, 4), np.float32)"]
    for call in CALLS:
        lines += [f"reveal_type(np.{call})", f"reveal_type(fastclip.{call})"]
    stdout, status = _revealed(tmp_path, "\n".join(lines) + "\n")
    revealed = re.findall(r'Revealed type is "(.*)"', stdout)
    assert len(revealed) == 2 * len(CALLS), stdout
    def without_shape(t):
        return re.sub(r"numpy\.ndarray\[tuple\[[^\]]*\], ", "numpy.ndarray[SHAPE, ", t)

    for call, numpy_type, ours in zip(CALLS, revealed[::2], revealed[1::2]):
        assert without_shape(ours) == without_shape(numpy_type), (call, ours, numpy_type)
    assert status == 0, stdout


def test_the_keyword_bounds_type_as_the_positional_ones(tmp_path):
    # (NumPy's stub before 2.4 requires a_min and a_max positionally, so
    # there is no np.clip type to compare with)
    stdout, status = _revealed(tmp_path, """\
        import numpy as np
        import fastclip
        img = np.zeros((4, 4), np.float32)
        reveal_type(fastclip.clip(img, 0.0, 1.0))
        reveal_type(fastclip.clip(img, min=0.0))
        reveal_type(fastclip.clip(img, max=1.0, out=img))
        """)
    revealed = re.findall(r'Revealed type is "(.*)"', stdout)
    assert status == 0 and len(revealed) == 3 and len(set(revealed)) == 1, stdout
    assert "_32Bit" in revealed[0], stdout


def test_a_wrong_annotation_is_an_error(tmp_path):
    stdout, status = _revealed(tmp_path, """\
        import numpy as np
        import fastclip
        y: int = fastclip.clip(np.zeros(3, np.float32), 0, 1)
        fastclip.set_num_threads(2)
        with fastclip.patched():
            pass
        """)
    assert status == 1 and stdout.count("error:") == 1 and "variable has type \"int\"" in stdout
