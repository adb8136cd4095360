"""Real programs: whole functions of real libraries, with their own data
shapes, whose np.clip calls fastclip.patched() sends to fastclip (each makes
some: tools/record_calls.py lists them; scikit-learn's clips go through its
array-API namespace, not numpy.clip, and matplotlib's colormapping clips
nothing there).

Each program is (name, library, what it runs, make): make(rng) builds the
program's data once and returns a zero-argument function running it once. A
program whose library is not installed is skipped with a line that says so.
The benchmark times each as it is and under fastclip.patched(), side by side,
beside the share of its time spent in np.clip (tools/record_calls.py runs the
same programs to record the calls they make).
"""

import importlib

import numpy as np


def _gym_pendulum(rng):
    import gymnasium as gym
    env = gym.wrappers.ClipAction(gym.make("Pendulum-v1"))
    actions = rng.uniform(-3, 3, (2000, 1)).astype(np.float32)

    def run():
        env.reset(seed=0)
        for a in actions:
            env.step(a)
    return run


def _gym_mountain_car(rng):
    import gymnasium as gym
    env = gym.make("MountainCar-v0")
    actions = rng.integers(0, 3, 2000)

    def run():
        env.reset(seed=0)
        for a in actions:
            _, _, terminated, truncated, _ = env.step(int(a))
            if terminated or truncated:
                env.reset(seed=0)
    return run


def _mpl_normalize(rng):
    from matplotlib.colors import Normalize
    image = rng.normal(size=(2160, 3840)).astype(np.float32)
    norm = Normalize(vmin=-1, vmax=1, clip=True)
    return lambda: norm(image)


def _skimage_rescale(rng):
    from skimage import exposure
    image = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
    return lambda: exposure.rescale_intensity(image)   # in_range="image": (0.0, 255.0)


def _skimage_unsharp(rng):
    from skimage import filters
    image = rng.random((1080, 1920))
    return lambda: filters.unsharp_mask(image, radius=2, amount=1.5)


def _scipy_poisson(rng):
    from scipy import stats
    k = rng.integers(0, 20, 10**6)
    return lambda: stats.poisson.pmf(k, 4.5)


PROGRAMS = [
    ("ClipAction(Pendulum-v1), 2000 steps", "gymnasium",
     "an RL environment behind gymnasium's ClipAction wrapper", _gym_pendulum),
    ("MountainCar-v0, 2000 steps", "gymnasium", "an environment clipping Python floats",
     _gym_mountain_car),
    ("Normalize(clip=True), 2160x3840 float32", "matplotlib", "image normalisation",
     _mpl_normalize),
    ("rescale_intensity, 1080x1920x3 uint8", "skimage", "contrast stretching",
     _skimage_rescale),
    ("unsharp_mask, 1080x1920 float64", "skimage", "sharpening", _skimage_unsharp),
    ("stats.poisson.pmf, 1e6 points", "scipy", "a discrete distribution's pmf",
     _scipy_poisson),
]


def available():
    """(name, library, what, make) of the programs whose library imports, and
    the names of those that do not."""
    ready, missing = [], []
    for name, library, what, make in PROGRAMS:
        try:
            importlib.import_module(library)
        except ImportError:
            missing.append(f"{name} ({library} not installed)")
            continue
        ready.append((name, library, what, make))
    return ready, missing
