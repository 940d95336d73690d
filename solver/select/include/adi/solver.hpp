#pragma once
// Public header of the solver module (adi::solver): batched tridiagonal
// solves, the Douglas ADI scheme, backends and the analytic validation.
// No CUDA, YAML or HDF5 headers are pulled in from here.

#include <adi/analytic.hpp>
#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/factory.hpp>
#include <adi/options.hpp>
#include <adi/grid.hpp>
#include <adi/scheme.hpp>
#include <adi/stepper.hpp>
#include <adi/tridiag.hpp>
#include <adi/validation.hpp>
#include <adi/version.hpp>
#include <adi/cuda.hpp>
#include <adi/segmented.hpp>
#include <adi/decomposition.hpp>
#include <adi/distributed_line.hpp>
