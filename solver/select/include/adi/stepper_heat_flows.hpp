#pragma once
// The heat flows (heat_flows.hpp) of a stepper's field, on any backend: the
// field comes to the host (get_field; a device backend copies it), one box
// per process. A distributed stepper's ranks each measure their own box,
// its ghost layers across the cuts filled by one exchange with the
// neighbouring ranks (the halo the stepper's own right-hand side reads), and
// one sum over the ranks gives everyone the whole grid's flows: no rank
// ever holds the whole field (a collective output never gathers one).

#include <adi/heat_flows.hpp>
#include <adi/stepper.hpp>

#include <memory>

namespace adi {

/// The meter of the stepper's box: the whole grid, or this rank's box of a
/// distributed stepper. Reads the box's material once (collective for a
/// distributed stepper only in that every rank must make it).
template <class T>
HeatFlowMeter make_heat_flow_meter(const Stepper<T>& st);

/// The flows at the stepper's current step and time (collective for a
/// distributed stepper: every rank calls it, every rank gets the sums).
template <class T>
HeatFlows measure_heat_flows(Stepper<T>& st, const HeatFlowMeter& meter);

}  // namespace adi
