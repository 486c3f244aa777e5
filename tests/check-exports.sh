#!/usr/bin/env bash
# Checks what fovea's shared objects show the rest of a process (issue 26):
#   tests/check-exports.sh FILE...   (libfovea.so*, _fovea*.so)
# - the dynamic symbol table defines only the API: fv_* in libfovea.so,
#   PyInit__fovea in the Python extension (nothing of the static CUDA runtime or
#   of libstdc++, and no GNU-unique symbol, which binds process-wide);
# - a build with CUDA code needs the shared libstdc++.so.6 (a static copy inside
#   clashes with every C++ library loaded after it) and links no CUDA library
#   (the runtime is static; libcuda, nvJPEG and cuFile are loaded at run time,
#   RTLD_LOCAL, on first use).
# Exit 0 when every file passes; prints what is wrong otherwise.
set -uo pipefail
fail=0
check() { # file, allowed-symbol regex
  local f=$1 allow=$2 bad needed
  if [[ ! -f $f ]]; then echo "check-exports: $f: no such file"; fail=1; return; fi
  bad=$(nm -D --defined-only "$f" | awk 'NF >= 3 {print $2, $3}' | grep -Ev " ($allow)(@.*)?\$")
  if [[ -n $bad ]]; then
    echo "check-exports: $f defines symbols beyond its API ($(wc -l <<<"$bad") of them):"
    head -20 <<<"$bad"
    fail=1
  fi
  needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  if readelf -S -W "$f" | grep -q '\.nv_fatbin'; then
    if ! grep -qx 'libstdc++.so.6' <<<"$needed"; then
      echo "check-exports: $f holds CUDA code but does not load the shared libstdc++.so.6 (a static copy is linked in?)"
      fail=1
    fi
  fi
  if grep -E '^lib(cuda|cudart|nvjpeg|cufile)\.so' <<<"$needed"; then
    echo "check-exports: $f links a CUDA library at load time (above); it must be loaded on first use"
    fail=1
  fi
  echo "check-exports: $f: $(nm -D --defined-only "$f" | wc -l) symbols defined, needs: $(tr '\n' ' ' <<<"$needed")"
}
[[ $# -ge 1 ]] || { echo "usage: $0 FILE... (libfovea.so*, _fovea*.so)"; exit 2; }
for f in "$@"; do
  case $(basename "$f") in
    _fovea*) check "$f" 'PyInit__fovea' ;;
    *) check "$f" 'fv_[A-Za-z0-9_]*' ;;
  esac
done
exit $fail
