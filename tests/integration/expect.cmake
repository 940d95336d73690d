# Runs CMD (a ;-list), checks the exit code equals CODE and that the combined
# output matches every regex in MATCH (a ;-list) and none in NOMATCH.
# Usage: cmake -DCMD=... -DCODE=2 -DMATCH=... -P expect.cmake
separate_arguments(cmd_list UNIX_COMMAND "${CMD}")
execute_process(COMMAND ${cmd_list}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
  WORKING_DIRECTORY "${WORKDIR}")
message("exit code: ${rc}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
if(NOT "${rc}" STREQUAL "${CODE}")
  message(FATAL_ERROR "expected exit code ${CODE}, got ${rc}")
endif()
foreach(re IN LISTS MATCH)
  if(NOT "${out}${err}" MATCHES "${re}")
    message(FATAL_ERROR "output does not match: ${re}")
  endif()
endforeach()
foreach(re IN LISTS NOMATCH)
  if("${out}${err}" MATCHES "${re}")
    message(FATAL_ERROR "output matches what it must not: ${re}")
  endif()
endforeach()
