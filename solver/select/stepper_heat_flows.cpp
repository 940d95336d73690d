// make_heat_flow_meter, measure_heat_flows (stepper_heat_flows.hpp).

#include <adi/error.hpp>
#include <adi/mpi.hpp>
#include <adi/stepper_heat_flows.hpp>

#include <cmath>
#include <exception>
#include <string>
#include <vector>

namespace adi {

template <class T>
HeatFlowMeter make_heat_flow_meter(const Stepper<T>& st) {
  if (const auto* d = dynamic_cast<const mpi::DistributedStepper<T>*>(&st))
    return HeatFlowMeter(st.problem(), d->part().box.begin, d->part().box.size);
  return HeatFlowMeter(st.problem());
}

template <class T>
HeatFlows measure_heat_flows(Stepper<T>& st, const HeatFlowMeter& meter) {
  const auto& n = meter.size();
  std::vector<T> box(static_cast<std::size_t>(n[0] * n[1] * n[2]));
  st.get_field(box.data());
  std::vector<double> u = meter.ghosted(box.data());
  auto* d = dynamic_cast<mpi::DistributedStepper<T>*>(&st);
  if (d) mpi::exchange_ghost_layers(d->decomposition(), d->part().rank, meter.extent(), u.data());
  if (!d) return meter.measure(u.data(), st.time());
  // A rank that cannot measure (a temperature outside a table) fails every
  // rank: the lowest failing rank's error, PeerError on the others.
  HeatFlows f;
  std::exception_ptr own;
  try {
    f = meter.measure(u.data(), st.time());
  } catch (...) {
    own = std::current_exception();
  }
  const int rank = d->part().rank;
  double first = own ? 1e9 - rank : 0.0;
  mpi::allreduce_max(&first, 1);
  if (first != 0.0) {
    const int who = static_cast<int>(std::lround(1e9 - first));
    if (own && who == rank) std::rethrow_exception(own);
    ADI_THROW(mpi::PeerError, "rank " + std::to_string(who) + " could not measure the heat flows (see its message)");
  }
  {
    double v[9];
    for (int a = 0; a < 3; ++a)
      for (int s = 0; s < 2; ++s) v[2 * a + s] = f.face[a][s];
    v[6] = f.source;
    v[7] = f.dEdt;
    mpi::allreduce_sum(v, 8);
    for (int a = 0; a < 3; ++a)
      for (int s = 0; s < 2; ++s) f.face[a][s] = v[2 * a + s];
    f.source = v[6];
    f.dEdt = v[7];
  }
  return f;
}

template HeatFlowMeter make_heat_flow_meter<float>(const Stepper<float>&);
template HeatFlowMeter make_heat_flow_meter<double>(const Stepper<double>&);
template HeatFlows measure_heat_flows<float>(Stepper<float>&, const HeatFlowMeter&);
template HeatFlows measure_heat_flows<double>(Stepper<double>&, const HeatFlowMeter&);

}  // namespace adi
