#!/usr/bin/env python3
"""The module stack of docs/ARCHITECTURE.md, checked over the include lines.

Each module lists the modules below it that it may use (DEPENDS, a DAG
with levels for the messages); a file may include headers of its own module
and of those below it (transitively), never of a module above it or beside it
(solver/cpu and solver/cuda do not see each other; io sees only the solver's
core). A header's module is the one its path lies in (public headers in
<module>/include/adi/, private ones beside the sources); a header in no
module, or an <adi/...> include that no module's include folder holds, fails. The hooks implement the public API of the CUDA and MPI modules for a
build without them, so they may include those two headers. Also:

  * CUDA headers (cuda_runtime.h, cusparse.h, nccl.h, ...) only in */cuda/;
  * yaml-cpp and HDF5 only in io/src (the numerics never see them);
  * mpi.h only in solver/mpi and io/src/h5par.cpp (collective HDF5);
  * no getenv in library code (solver/, transpose/, io/, base/): the app reads
    the environment once and passes options down;
  * no legacy-stream copy or fill in library code (cudaMemcpy, cudaMemset,
    cudaMemcpy2D/3D, cudaMemcpyToSymbol without "Async"): a pageable
    cudaMemcpy may return before its DMA lands and cudaMemset returns at
    once, and the library's kernels run on non-blocking streams, which are
    not ordered after the legacy stream (a lazily planned solver once read
    stale tables so). Copy on the stream that uses the data, or through
    upload_blocking / memset_blocking (solver/cuda/device_buffer.hpp).

Usage: check_layering.py ROOT            check the tree (exit 1 on a violation)
       check_layering.py ROOT --plant    plant one forbidden include of each
                                         kind in memory and require that every
                                         one is reported (the check can fail)
"""
import os
import re
import sys

# (path prefix, module name, level). Longest prefix wins.
MODULES = [
    ("base/", "base", 0),
    ("transpose/", "transpose", 1),
    ("solver/core/", "solver/core", 2),
    ("solver/cpu/", "solver/cpu", 3),
    ("solver/cuda/", "solver/cuda", 3),
    ("solver/hooks/", "solver/hooks", 3),
    ("solver/mpi/", "solver/mpi", 4),
    ("solver/select/", "solver/select", 5),
    ("io/", "io", 6),
    ("python/", "python", 7),
    ("app/", "app", 7),
]

# Every target owns its headers: a module's public headers live in its own
# folder, <module>/include/adi/... (solver/core/include/adi/stepper.hpp is
# solver/core's), its private ones beside its sources, so the owner of a
# header is the module of its path. A header under no module fails the check.
INCLUDE_ROOTS = ("base/include", "transpose/include", "io/include", "solver/core/include",
                 "solver/cpu/include", "solver/cuda/include", "solver/hooks/include", "solver/mpi/include",
                 "solver/select/include")
# Headers the build writes (configure_file), by the module whose template they come from.
GENERATED = {"adi/version.hpp": "solver/core/version.hpp.in"}
HEADERS = (".hpp", ".cuh", ".h", ".def", ".hpp.in")

CUDA_HEADERS = re.compile(r"^(cuda[a-z_0-9]*\.h|cusparse[a-z_0-9]*\.h|cublas[a-z_0-9]*\.h|nccl\.h|cooperative_groups.*|cuda/.*|cub/.*|thrust/.*)$")
YAML_HDF5 = re.compile(r"^(yaml-cpp/.*|hdf5.*\.h|H5.*\.h)$")
MPI_HEADER = re.compile(r"^mpi\.h$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
GETENV = re.compile(r"\b(std::)?(secure_)?getenv\s*\(")
SOURCES = (".hpp", ".cpp", ".cu", ".cuh", ".h", ".c", ".hpp.in")
LIBRARY_ROOTS = ("base/", "transpose/", "solver/", "io/")
LEGACY_STREAM = re.compile(r"\bcuda(Memcpy|Memcpy2D|Memcpy3D|Memset|Memset2D|Memset3D|MemcpyToSymbol|MemcpyFromSymbol)\s*\(")
# Tools whose own kernels run on the legacy stream (ordered after its copies).
LEGACY_STREAM_OK = ("transpose/cuda/transpose_bench.cu",)


def module_of_path(rel):
    best = None
    for prefix, name, level in MODULES:
        if rel.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, name, level)
    return (best[1], best[2]) if best else None


# What each module may include besides itself (transitively closed below).
DEPENDS = {
    "base": set(),
    "transpose": {"base"},
    "solver/core": {"base"},
    "solver/cpu": {"solver/core"},
    "solver/cuda": {"solver/core", "transpose"},
    "solver/hooks": {"solver/core", "solver/cuda:api", "solver/mpi:api"},
    "solver/mpi": {"solver/cpu", "solver/cuda"},
    "solver/select": {"solver/cpu", "solver/cuda", "solver/mpi", "solver/hooks", "transpose"},
    "io": {"solver/core"},
    "app": {"solver/select", "io", "transpose"},
    "python": {"solver/select", "io", "transpose"},
}


def below(module):
    """Every module `module` may include, transitively."""
    seen, todo = set(), [module]
    while todo:
        for d in DEPENDS.get(todo.pop(), ()):
            name = d.split(":")[0]
            if d not in seen:
                seen.add(d)
                if not d.endswith(":api"):
                    todo.append(name)
    return seen


def allowed(src, dst, name):
    if src == dst:
        return True
    b = below(src)
    if dst in b:
        return True
    # public API headers only (solver/cuda/include/adi/cuda.hpp, mpi.hpp)
    return f"{dst}:api" in b and name.startswith("adi/")


def header_file(root, src_rel, kind, name, virtual=()):
    """The path (relative to root) of an included adi3d header, "" for an
    <adi/...> header no target holds, None for a header that is not ours."""
    def exists(rel):
        return rel in virtual or os.path.exists(os.path.join(root, rel))
    if kind == '"':
        cand = os.path.normpath(os.path.join(os.path.dirname(src_rel), name)).replace(os.sep, "/")
        if exists(cand):
            return cand
    if name.startswith("adi/"):
        if name in GENERATED:
            return GENERATED[name]
        for inc in INCLUDE_ROOTS:
            if exists(f"{inc}/{name}"):
                return f"{inc}/{name}"
        return ""
    return None


def check_file(root, rel, lines, virtual=()):
    errors = []
    src = module_of_path(rel)
    if src is None and rel.endswith(HEADERS):
        errors.append(f"{rel}: a header in no target: put it in <module>/include/adi/ (public) or beside "
                      f"its module's sources (private)")
    in_library = rel.startswith(LIBRARY_ROOTS)
    for no, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if m:
            kind, name = m.group(1), m.group(2)
            where = f"{rel}:{no}"
            if CUDA_HEADERS.match(name) and "/cuda/" not in "/" + rel and not rel.startswith("tests/gpu/"):
                errors.append(f"{where}: includes the CUDA header <{name}> outside a cuda/ folder")
            if YAML_HDF5.match(name) and not rel.startswith(("io/src/", "tests/")):
                errors.append(f"{where}: includes <{name}>: only io/src may see yaml-cpp and HDF5")
            if MPI_HEADER.match(name) and not rel.startswith(("solver/mpi/", "io/src/h5par.cpp", "tests/mpi/")):
                errors.append(f"{where}: includes <mpi.h>: only solver/mpi (and io/src/h5par.cpp) may")
            found = header_file(root, rel, kind, name, virtual)
            if found == "":
                errors.append(f"{where}: includes <{name}>, which no target's include folder holds "
                              f"(INCLUDE_ROOTS in tests/check_layering.py)")
            dst = module_of_path(found) if found else None
            if src is not None and dst is not None:
                if not allowed(src[0], dst[0], name):
                    if dst[1] > src[1]:
                        errors.append(f"{where}: {src[0]} (level {src[1]}) includes {name} of {dst[0]} "
                                      f"(level {dst[1]}): a lower module may not include a higher one")
                    elif dst[1] == src[1]:
                        errors.append(f"{where}: {src[0]} includes {name} of its sibling {dst[0]}")
                    else:
                        errors.append(f"{where}: {src[0]} includes {name} of {dst[0]}, which is not below it "
                                      f"(DEPENDS in tests/check_layering.py)")
        if in_library and GETENV.search(line) and not line.lstrip().startswith("//"):
            errors.append(f"{rel}:{no}: library code reads the environment (getenv); read it in app/ and pass it down")
        if (in_library and rel not in LEGACY_STREAM_OK and LEGACY_STREAM.search(line)
                and not line.lstrip().startswith("//")):
            errors.append(f"{rel}:{no}: a legacy-stream copy or fill in library code: kernels of non-blocking "
                          f"streams are not ordered after it; use the stream's *Async form or "
                          f"upload_blocking / memset_blocking (solver/cuda/device_buffer.hpp)")
    return errors


def tree_files(root):
    for top in ("base", "transpose", "solver", "io", "app", "python"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(SOURCES):
                    full = os.path.join(d, f)
                    yield os.path.relpath(full, root).replace(os.sep, "/")


def check_tree(root, planted=None):
    """planted: {path: line} added in memory, to a file of the tree or as a new file."""
    planted = planted or {}
    files = set(tree_files(root))
    virtual = {rel for rel in planted if rel not in files}
    errors = []
    for rel in sorted(files | virtual):
        lines = []
        if rel in files:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        if rel in planted:
            lines = lines + [planted[rel]]
        errors += check_file(root, rel, lines, virtual)
    return errors


# One forbidden line of each kind, planted into a real file in memory.
PLANTS = [
    ("solver/core/scheme.cpp", "#include <adi/mpi.hpp>", "includes adi/mpi.hpp"),
    ("solver/cpu/stepper_cpu.cpp", '#include "../cuda/line_solver.hpp"', "sibling"),
    ("transpose/src/bank_model.cpp", "#include <adi/scheme.hpp>", "a lower module may not include"),
    ("io/src/config.cpp", "#include <adi/validation.hpp>", "not below it"),
    ("io/src/xdmf.cpp", "#include <adi/transpose/maps.hpp>", "not below it"),
    ("solver/core/grid.cpp", "#include <cuda_runtime.h>", "CUDA header"),
    ("solver/cpu/tridiag_cpu.cpp", "#include <hdf5.h>", "only io/src"),
    ("solver/core/segmented.cpp", "  const char* v = std::getenv(\"X\");", "getenv"),
    ("solver/cuda/line_solver.cu", "  cudaMemcpy(p, h, n, cudaMemcpyHostToDevice);", "legacy-stream"),
    ("solver/cuda/thread_lines.cuh", "  ADI_CUDA_CHECK(cudaMemset(s.d, 0, sizeof(int)));", "legacy-stream"),
    ("solver/core/step_plan.cpp", "#include <adi/factory.hpp>", "a lower module may not include"),
    ("solver/mpi/session.cpp", "#include <adi/steady.hpp>", "a lower module may not include"),
    ("solver/include/adi/orphan.hpp", "#pragma once", "a header in no target"),
    ("solver/core/grid.cpp", "#include <adi/nowhere.hpp>", "no target's include folder holds"),
]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root = os.path.abspath(sys.argv[1])
    if "--plant" in sys.argv[2:]:
        missed = 0
        for rel, line, expect in PLANTS:
            errs = [e for e in check_tree(root, {rel: line}) if e.startswith(rel + ":") and expect in e]
            status = "caught" if errs else "MISSED"
            print(f"{status}: {rel} + '{line.strip()}'" + (f" -> {errs[0]}" if errs else ""))
            missed += 0 if errs else 1
        if missed:
            print(f"check_layering: {missed} planted violation(s) not reported")
            return 1
        print(f"check_layering: all {len(PLANTS)} planted violations reported")
        return 0
    errors = check_tree(root)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layering: {len(errors)} violation(s) of the module stack (docs/ARCHITECTURE.md)")
        return 1
    print("check_layering: the module stack holds (no include from a lower module to a higher one)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
