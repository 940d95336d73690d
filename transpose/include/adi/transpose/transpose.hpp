#pragma once
// Public header of the transpose module (adi::transpose): index maps usable
// on host and device, the host-side bank-conflict model, and the text of
// `adi3d layout`. The device primitives are in warp_transpose.cuh (CUDA
// translation units only).
#include <adi/transpose/bank_model.hpp>
#include <adi/transpose/layout_report.hpp>
#include <adi/transpose/maps.hpp>
