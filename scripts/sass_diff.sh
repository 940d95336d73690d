#!/usr/bin/env bash
# Compare the SASS of every kernel in two builds of the CUDA backend
# (libadi_cuda.a), e.g. before and after a refactoring that must not change
# code generation (#13: the line-kernel split).
#
#   scripts/sass_diff.sh BASE_BUILD NEW_BUILD      # build folders (or .a / .o files)
#
# Kernels are matched by demangled name with the namespaces a move may change
# removed ("(anonymous namespace)::" — nvcc names it after the source file —
# and "kernels::"); bodies are compared instruction by instruction with their
# encodings, addresses and file names stripped. Prints the kernels compared,
# identical, different and present on one side only; exit 1 if any kernel
# present on both sides differs. Needs cuobjdump (and nvdisasm, which it calls):
# $CUOBJDUMP / $NVDISASM_PATH or on PATH (pip: nvidia-cuda-cuobjdump,
# nvidia-cuda-nvdisasm).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BASE_BUILD NEW_BUILD" >&2
  exit 2
fi
CUOBJDUMP="${CUOBJDUMP:-$(command -v cuobjdump || true)}"
if [ -z "$CUOBJDUMP" ] && [ -x /usr/local/cuda/bin/cuobjdump ]; then CUOBJDUMP=/usr/local/cuda/bin/cuobjdump; fi
if [ -z "$CUOBJDUMP" ]; then
  echo "$0: cuobjdump not found (set CUOBJDUMP)" >&2
  exit 2
fi
CXXFILT="${CXXFILT:-$(command -v cu++filt || command -v c++filt || true)}"
if [ -z "$CXXFILT" ]; then
  echo "$0: c++filt not found" >&2
  exit 2
fi

lib_of() {
  if [ -f "$1" ]; then
    echo "$1"
  elif [ -f "$1/solver/cuda/libadi_cuda.a" ]; then
    echo "$1/solver/cuda/libadi_cuda.a"
  else
    echo "$0: no $1/solver/cuda/libadi_cuda.a (build the adi_cuda target with CUDA on)" >&2
    exit 2
  fi
}
BASE_LIB=$(lib_of "$1") || exit 2
NEW_LIB=$(lib_of "$2") || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CUOBJDUMP" -sass "$BASE_LIB" >"$tmp/base.sass"
"$CUOBJDUMP" -sass "$NEW_LIB" >"$tmp/new.sass"

python3 - "$tmp/base.sass" "$tmp/new.sass" "$CXXFILT" <<'PY'
import re, subprocess, sys

base_path, new_path, cxxfilt = sys.argv[1:4]
MANGLED = re.compile(r"_Z\w+")


def parse(path):
    """[(mangled name, [normalised instruction lines])] in file order."""
    funcs, cur = [], None
    for line in open(path, errors="replace"):
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = (m.group(1), [])
            funcs.append(cur)
            continue
        if cur is None:
            continue
        s = line.strip()
        if not s or s.startswith(("member ", "code for", "Fatbin", "=====", "arch =", "code version",
                                  "host =", "compile_size", "identifier", "compressed", "ptxasOptions",
                                  ".headerflags", "..........")):
            if s.startswith(("member ", "code for", "Fatbin")):
                cur = None
            continue
        s = re.sub(r"^/\*[0-9a-f]{4,}\*/\s*", "", s)  # address
        cur[1].append(re.sub(r"\s+", " ", s))
    return funcs


def demangle_all(names):
    names = sorted(names)
    out = subprocess.run([cxxfilt], input="\n".join(names) + "\n", capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return {n: normalise(d) for n, d in zip(names, out)}


def normalise(demangled):
    return demangled.replace("(anonymous namespace)::", "").replace("kernels::", "")


base, new = parse(base_path), parse(new_path)
mangled = set()
for _, body in base + new:
    for l in body:
        mangled.update(MANGLED.findall(l))
mangled.update(n for n, _ in base + new)
dm = demangle_all(mangled)


def table(funcs):
    t = {}
    for name, body in funcs:
        key = dm[name]
        body = [MANGLED.sub(lambda m: dm.get(m.group(0), m.group(0)), l) for l in body]
        k, i = key, 1
        while k in t:  # the same kernel in two translation units
            i += 1
            k = f"{key} #{i}"
        t[k] = body
    return t


tb, tn = table(base), table(new)
common = sorted(set(tb) & set(tn))
same = [k for k in common if tb[k] == tn[k]]
diff = [k for k in common if tb[k] != tn[k]]
only_b = sorted(set(tb) - set(tn))
only_n = sorted(set(tn) - set(tb))
for k in diff:
    print(f"DIFFERENT ({len(tb[k])} vs {len(tn[k])} lines): {k}")
for k in only_b:
    print(f"only in base: {k}")
for k in only_n:
    print(f"only in new : {k}")
print(f"kernels: base {len(tb)}, new {len(tn)}; compared {len(common)}, identical {len(same)}, "
      f"different {len(diff)}, only in base {len(only_b)}, only in new {len(only_n)}")
sys.exit(1 if diff else 0)
PY
