"""Imported first, and only, in the lab's fork server (`fairlab.core.processes`), before the
modules it preloads: the server must stay single-threaded (it forks every child of the lab) and
must not outlive the lab's process.

* One BLAS thread: numpy's OpenBLAS (or an OpenMP / MKL build) starts a pool of threads when
  numpy is imported; with these variables it starts none. The children inherit them (the lab's
  numpy work is small: floats only guide, they never decide).
* The server dies with the process that started it (`fairlab.core.lifetime.die_with_parent`);
  each child dies with the server, so the whole tree ends with the lab.
"""

from __future__ import annotations

import os

from fairlab.core.lifetime import die_with_parent

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

die_with_parent()
