# Small helpers so every module is declared the same way: one static library,
# one public include folder (<module>/include/adi/...), one alias adi::<name>,
# exported for find_package(adi3d).

function(adi_module target)
  cmake_parse_arguments(ARG "" "ALIAS;INCLUDE" "" ${ARGN})
  if(NOT ARG_ALIAS)
    set(ARG_ALIAS ${target})
  endif()
  add_library(adi::${ARG_ALIAS} ALIAS ${target})
  get_target_property(_type ${target} TYPE)
  set(_scope PUBLIC)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    set(_scope INTERFACE)
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${ARG_ALIAS})
  if(ARG_INCLUDE)
    target_include_directories(${target} ${_scope}
      $<BUILD_INTERFACE:${ARG_INCLUDE}>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    install(DIRECTORY ${ARG_INCLUDE}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
  target_compile_features(${target} ${_scope} cxx_std_17)
  install(TARGETS ${target} EXPORT adi3dTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# Warnings for our own C++ sources (not for CUDA device code, where nvcc
# forwards host flags only through -Xcompiler).
function(adi_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wno-unknown-pragmas>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall --expt-relaxed-constexpr>)
endfunction()
