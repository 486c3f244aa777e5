# Prints the include directory of the PyPI wheel nvidia-nvjpeg (CUDA 13:
# site-packages/nvidia/cu13/include/nvjpeg.h) for this interpreter, or nothing.
# Used by CMakeLists.txt when the CUDA toolkit ships no nvjpeg.h.
import os
import site
import sysconfig

dirs = [sysconfig.get_paths().get(k) for k in ("purelib", "platlib")]
try:
    dirs += site.getsitepackages()
except AttributeError:
    pass
for d in dirs:
    if not d:
        continue
    for cu in ("cu13", "cu12"):
        inc = os.path.join(d, "nvidia", cu, "include")
        if os.path.isfile(os.path.join(inc, "nvjpeg.h")):
            print(inc)
            raise SystemExit(0)
