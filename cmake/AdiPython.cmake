# ADI_PYTHON: the interpreter of every Python-driven test (tests/integration/py,
# the mpi_cli_* tests, the bad-input catalogue check). Those scripts need numpy
# and h5py, and machines differ in which python3 has them (Debian's
# /usr/bin/python3 with python3-h5py from scripts/setup.sh; on the GPU
# machines only the python3 on PATH has h5py), so it is chosen at configure
# time by asking each candidate: an ADI_PYTHON given by the user (-D) if it
# has them, then python3 on PATH, then /usr/bin/python3.

function(_adi_python_has_modules exe out)
  execute_process(COMMAND "${exe}" -c "import numpy, h5py"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
  if(rc EQUAL 0)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

function(adi_find_test_python)
  set(candidates)
  if(ADI_PYTHON)
    list(APPEND candidates "${ADI_PYTHON}")
  endif()
  find_program(_adi_path_python NAMES python3 NO_CACHE)
  if(_adi_path_python)
    list(APPEND candidates "${_adi_path_python}")
  endif()
  list(APPEND candidates /usr/bin/python3)
  foreach(exe IN LISTS candidates)
    if(EXISTS "${exe}")
      _adi_python_has_modules("${exe}" ok)
      if(ok)
        if(NOT "${exe}" STREQUAL "${ADI_PYTHON}")
          message(STATUS "Python for the tests (has numpy and h5py): ${exe}")
        endif()
        set(ADI_PYTHON "${exe}" CACHE FILEPATH "Python with numpy and h5py for the Python-driven tests" FORCE)
        return()
      endif()
    endif()
  endforeach()
  list(GET candidates 0 first)
  message(WARNING "No python3 with numpy and h5py among: ${candidates}. The Python-driven tests "
    "(integration, mpi_cli_*) will fail; install python3-h5py python3-numpy (scripts/setup.sh) or pass "
    "-DADI_PYTHON=/path/to/python3.")
  set(ADI_PYTHON "${first}" CACHE FILEPATH "Python with numpy and h5py for the Python-driven tests" FORCE)
endfunction()
