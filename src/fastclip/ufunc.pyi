import numpy as np

clip: np.ufunc
