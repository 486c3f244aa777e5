#!/usr/bin/env bash
# Checks the shape of the library sources (issue 27):
#   tests/check-sources.sh [REPO_ROOT]
# - no library source file (src/**, python/src/**: .c .h .cu .cuh) is over 800
#   lines: a file that grows past that is split into files of one concern (each
#   with a header comment; shared declarations in a small internal header);
# - no name in src/cuda uses a retired CUDA helper prefix (docs/naming.md: fvf_,
#   fvs_, fvk_, fvt_, fvt1_, fvr_ and their upper-case macro forms); the scheme is
#   fv__cuda_ / fv_cu_ / fv_k_ / fv_d_ / FV_CU_.
# Files not yet moved are listed below with their current size; such a file may
# not grow, and its entry must go once it is split or renamed (a stale entry
# fails too, so the lists only shrink).
# Exit 0 when every file passes; prints what is wrong otherwise.
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
max=800

# path, lines today: not split yet
declare -A pending_size=(
)
# not moved to the naming scheme yet
pending_prefix=(
)
retired='\b(fvf|fvs|fvk|fvt1?|fvr|FVF|FVS|FVK|FVT1?|FVR)_[A-Za-z0-9_]*'

fail=0
mapfile -t files < <(find src python/src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
[[ ${#files[@]} -gt 0 ]] || { echo "check-sources: no sources under $root/src"; exit 2; }
for f in "${files[@]}"; do
  n=$(wc -l <"$f")
  if [[ -n ${pending_size[$f]:-} ]]; then
    if (( n > pending_size[$f] )); then
      echo "check-sources: $f: $n lines, grew past its listed ${pending_size[$f]} (split it, do not add to it)"; fail=1
    elif (( n <= max )); then
      echo "check-sources: $f: $n lines, no longer over $max: drop its entry from pending_size"; fail=1
    fi
  elif (( n > max )); then
    echo "check-sources: $f: $n lines, over $max: split it into files of one concern"; fail=1
  fi
done
for f in "${!pending_size[@]}"; do
  [[ -f $f ]] || { echo "check-sources: $f (pending_size) no longer exists: drop its entry"; fail=1; }
done
for f in $(find src/cuda -type f | sort); do
  hits=$(grep -noE "$retired" "$f" | head -5)
  listed=0
  for p in "${pending_prefix[@]}"; do [[ $p == "$f" ]] && listed=1; done
  if [[ -n $hits && $listed == 0 ]]; then
    echo "check-sources: $f uses retired CUDA helper prefixes (docs/naming.md):"; sed 's/^/  /' <<<"$hits"; fail=1
  elif [[ -z $hits && $listed == 1 ]]; then
    echo "check-sources: $f follows the naming scheme now: drop its entry from pending_prefix"; fail=1
  fi
done
for p in "${pending_prefix[@]}"; do
  [[ -f $p ]] || { echo "check-sources: $p (pending_prefix) no longer exists: drop its entry"; fail=1; }
done
(( fail )) || echo "check-sources: ${#files[@]} files: none over $max lines but the ${#pending_size[@]} listed, no retired CUDA prefix outside the ${#pending_prefix[@]} listed"
exit $fail
