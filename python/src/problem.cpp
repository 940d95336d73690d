// adi3d._core.Problem: the heat solver of `adi3d run`, stepped from Python.
// It starts exactly as a fresh `adi3d run` does (io/start.hpp: the same
// problem, the same initial values, the same stepper and boundary values at
// t = 0), so the same config stepped the same number of times gives the
// same field bit for bit on the same backend. Outputs on a schedule,
// checkpoints, signals and MPI stay the CLI's business.

#include "bindings.hpp"

#include <adi/energy_guard.hpp>
#include <adi/io/io.hpp>
#include <adi/solver.hpp>
#include <adi/stepper_heat_flows.hpp>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <memory>
#include <utility>
#include <optional>
#include <variant>

namespace adi::python {

namespace {

/// The value type T of a Stepper<T>& (the generic lambdas of visit()).
template <class T>
T real_of(const Stepper<T>&);
template <class S>
using RealOf = decltype(real_of(std::declval<S>()));

class Problem {
  // Calls f with the stepper of the config's precision (defined first: the
  // members below deduce their return types through it).
  template <class F>
  decltype(auto) visit(F&& f) {
    if (auto* p = std::get_if<std::unique_ptr<Stepper<float>>>(&stepper_)) return f(**p);
    return f(*std::get<std::unique_ptr<Stepper<double>>>(stepper_));
  }

 public:
  Problem(io::RunConfig c) : config_(std::move(c)) {
    io::check_single_process(config_, "a Problem runs in one process: run it with mpirun -np N adi3d run, or pass "
                                      "overrides=['parallel.grid=auto']");
    if (config_.initial.kind == io::InitialConfig::Kind::File) {
      initial_ = io::inspect_field(io::resolve_input(config_, config_.initial.file), config_.initial.dataset);
      io::apply_field_geometry(config_, *initial_);
    }
    io::attach_fields(config_);
    dispatch_precision(config_.precision, [&](auto tag) { start<decltype(tag)>(); });
  }

  static Problem from_file(const std::string& path, const std::vector<std::string>& overrides) {
    return Problem(io::load_config(path, overrides));
  }
  static Problem from_text(const std::string& text, const std::string& name,
                           const std::vector<std::string>& overrides) {
    return Problem(io::parse_config(text, name, overrides));
  }

  void step(index_t count) {
    if (count < 0) ADI_THROW(InvalidArgument, "step(n): n must be >= 0, got " + std::to_string(count));
    visit([&](auto& st) {
      if (count > 0 && guard_.active()) {
        guard_ = EnergyGuard(true, config_.precision == Precision::F32, config_.problem);
        (void)guard_.observe(st.field_stats(), st.step_index(), st.time());
      }
      {
        nb::gil_scoped_release unlocked;
        st.advance(count);
      }
      // No silent NaN: a step that made the field non-finite is an error.
      if (count > 0 && !st.field_stats().finite)
        ADI_THROW(NumericalError, "the field holds NaN or Inf after step " + std::to_string(st.step_index()) +
                                      " (t = " + std::to_string(st.time()) +
                                      " s): the problem's data or time step make it blow up");
      // The energy guard of `adi3d run` (energy_guard.hpp), over the calls of
      // step(): the field may have been written through `u` in between, so
      // each call starts from the energy it finds.
      if (count > 0 && guard_.active()) {
        const FieldStats after = st.field_stats();
        const std::string grew = guard_.observe(after, st.step_index(), st.time());
        if (!grew.empty()) ADI_THROW(NumericalError, grew);
      }
    });
  }

  index_t step_index() { return visit([](auto& st) { return st.step_index(); }); }
  double time() { return visit([](auto& st) { return st.time(); }); }
  std::string backend() { return visit([](auto& st) { return std::string(backend_name(st.backend())); }); }
  std::string device() { return visit([](auto& st) { return st.device_name(); }); }

  /// The field in place, shaped (nz, ny, nx) like the HDF5 datasets: a
  /// NumPy array (CPU) or a CuPy array (CUDA) whose owner is the Problem.
  nb::object view(nb::handle owner) {
    return visit([&](auto& st) -> nb::object {
      using T = RealOf<decltype(st)>;
      const FieldView<T> v = st.field_view();
      const std::size_t shape[3] = {static_cast<std::size_t>(v.layout.n[2]), static_cast<std::size_t>(v.layout.n[1]),
                                    static_cast<std::size_t>(v.layout.n[0])};
      const int64_t strides[3] = {v.layout.stride[2], v.layout.stride[1], v.layout.stride[0]};
      if (v.on_device)
        return nb::cast(nb::ndarray<nb::cupy, T>(v.data, 3, shape, owner, strides, nb::dtype<T>(),
                                                 nb::device::cuda::value, v.device));
      return nb::cast(nb::ndarray<nb::numpy, T>(v.data, 3, shape, owner, strides));
    });
  }

  /// A copy of the field on the host, packed (nz, ny, nx).
  nb::ndarray<nb::numpy> copy() {
    return visit([&](auto& st) {
      using T = RealOf<decltype(st)>;
      auto* host = new std::vector<T>(static_cast<std::size_t>(config_.problem.points()));
      st.get_field(host->data());
      nb::capsule free(host, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
      const std::size_t shape[3] = {static_cast<std::size_t>(config_.problem.n[2]),
                                    static_cast<std::size_t>(config_.problem.n[1]),
                                    static_cast<std::size_t>(config_.problem.n[0])};
      return nb::ndarray<nb::numpy>(host->data(), 3, shape, free, nullptr, nb::dtype<T>());
    });
  }

  /// The field at (x, y, z) [m], trilinear between nodes and the node's
  /// value bit for bit at a node (io/point_probes.hpp); a point outside the
  /// box raises ConfigError.
  double probe(double x, double y, double z) {
    io::ProbePoint pt;
    pt.name = "probe";
    pt.x = {x, y, z};
    pt.where = "probe";
    const io::ProbeStencil s = io::locate_probe(config_, pt, "");
    return visit([&](auto& st) { return value_at(st, s); });
  }

  /// The config's probes (probes.points) at the current step, in their order.
  std::vector<std::pair<std::string, double>> probes() {
    std::vector<std::pair<std::string, double>> out;
    for (const io::ProbeStencil& s : io::locate_probes(config_))
      out.emplace_back(s.name, visit([&](auto& st) { return value_at(st, s); }));
    return out;
  }

  /// q = -K grad u at every node at the current step (io/heat_flux.hpp), a
  /// new NumPy array (nz, ny, nx, 3) in the run's precision, (qx, qy, qz) last.
  nb::ndarray<nb::numpy> heat_flux() {
    if (!conductivity_)
      conductivity_ = std::make_unique<io::FluxConductivity>(config_.problem, std::array<index_t, 3>{{0, 0, 0}},
                                                             config_.problem.n);
    return visit([&](auto& st) {
      using T = RealOf<decltype(st)>;
      std::vector<T> u(static_cast<std::size_t>(config_.problem.points()));
      st.get_field(u.data());
      auto* q = new std::vector<T>(io::heat_flux_whole(config_.problem, st.time(), u.data(), *conductivity_));
      nb::capsule free(q, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
      const std::size_t shape[4] = {static_cast<std::size_t>(config_.problem.n[2]),
                                    static_cast<std::size_t>(config_.problem.n[1]),
                                    static_cast<std::size_t>(config_.problem.n[0]), 3};
      return nb::ndarray<nb::numpy>(q->data(), 4, shape, free, nullptr, nb::dtype<T>());
    });
  }

  /// One adi3d output file holding the current step. Under the output's
  /// lock (an `adi3d run` or another write on it fails here, having touched
  /// nothing), and checked again under it: an existing file or sidecar is
  /// replaced only with `overwrite`, and then only an adi3d output that is
  /// not one of this problem's inputs (a file adi3d did not write is never
  /// replaced, as with `adi3d run --overwrite`).
  void write(const std::string& path, bool xdmf, int compression, bool overwrite) {
    const io::FileLock lock(path, "output file '" + path + "'");
    namespace fs = std::filesystem;
    auto present = [](const std::string& f) {
      std::error_code ec;
      return fs::exists(fs::symlink_status(f, ec));
    };
    const std::string xmf = io::xdmf_path_for(path);
    for (const std::string& f : {path, xmf}) {
      if ((f == xmf && !xdmf) || !present(f)) continue;
      if (!overwrite)
        throw io::IoError(f + " exists: pass overwrite=True to replace it; nothing was written", __FILE__, __LINE__);
    }
    if (overwrite && present(path)) {
      for (const std::string& in : input_files()) {
        std::error_code ec;
        if (fs::equivalent(path, in, ec))
          throw io::IoError(path + " is an input of this problem (" + in + "); it is not replaced, nothing was written",
                            __FILE__, __LINE__);
      }
      try {
        (void)io::output_file_steps(path);  // IoError unless it is an adi3d output
      } catch (const io::IoError& e) {
        throw io::IoError(path + " is not an adi3d output (" + e.what() + "); it is not replaced, nothing was written",
                          __FILE__, __LINE__);
      }
    } else if (xdmf && present(xmf)) {
      // A sidecar whose output is not there is not known to be adi3d's.
      throw io::IoError(xmf + " exists without " + path + " beside it; it is not replaced, nothing was written",
                        __FILE__, __LINE__);
    }
    visit([&](auto& st) {
      using T = RealOf<decltype(st)>;
      std::vector<T> host(static_cast<std::size_t>(config_.problem.points()));
      st.get_field(host.data());
      io::GridFile::Options o;
      o.path = path;
      o.xdmf = xdmf;
      o.geometry = io::geometry_of(config_);
      o.precision = config_.precision;
      o.compression = compression;
      o.provenance = io::collect_provenance({"python", "adi3d.Problem.write", path}, backend_name(st.backend()),
                                            st.device_name(), config_.resolved_yaml);
      for (const auto& [key, f] : io::named_fields(config_))
        o.provenance.fields += key + " = " + f->name() + " " + f->checksum() + "\n";
      o.fields = io::named_fields(config_);
      io::GridFile file = io::GridFile::create(o);
      std::vector<T> flux;
      if (config_.output.heat_flux) {  // output.fields: [u, heat_flux]
        if (!conductivity_)
          conductivity_ = std::make_unique<io::FluxConductivity>(
              config_.problem, std::array<index_t, 3>{{0, 0, 0}}, config_.problem.n);
        flux = io::heat_flux_whole(config_.problem, st.time(), host.data(), *conductivity_);
      }
      file.write_step(st.step_index(), st.time(), host.data(), flux.empty() ? nullptr : flux.data());
      file.finish("complete");
    });
  }

  const io::RunConfig& config() const { return config_; }

 private:
  /// The files the config reads: the initial field and the material/source fields.
  std::vector<std::string> input_files() const {
    std::vector<std::string> files;
    if (config_.initial.kind == io::InitialConfig::Kind::File)
      files.push_back(io::resolve_input(config_, config_.initial.file));
    const io::MaterialConfig& m = config_.material;
    for (const io::FieldRef* f : {&m.conductivity[0], &m.conductivity[1], &m.conductivity[2], &m.capacity, &m.source})
      if (f->given()) files.push_back(io::resolve_input(config_, f->file));
    return files;
  }

 public:
  /// The heat flows at the current step (heat_flows.hpp): the six faces,
  /// source, dE/dt and residual in W (HeatFlows::values()), then the
  /// relative residual. The box's material is read on the first call.
  std::vector<double> heat_flows() {
    return visit([&](auto& st) {
      if (!meter_) meter_.emplace(make_heat_flow_meter(st));
      const HeatFlows f = measure_heat_flows(st, *meter_);
      const auto v = f.values();
      std::vector<double> out(v.begin(), v.end());
      out.push_back(f.relative_residual());
      return out;
    });
  }
  std::vector<std::string> face_kinds() const {
    std::vector<std::string> k;
    for (int a = 0; a < 3; ++a)
      for (int s = 0; s < 2; ++s) k.push_back(heat_flow_face_kind(config_.problem, a, s));
    return k;
  }

 private:
  /// A probe's value from its corner nodes (Stepper::read_nodes: no copy of the field).
  template <class T>
  static double value_at(Stepper<T>& st, const io::ProbeStencil& s) {
    std::array<index_t, 3> k[8];
    T v[8];
    double d[8];
    const int m = s.corners();
    for (int c = 0; c < m; ++c) k[c] = s.corner(c);
    st.read_nodes(k, static_cast<std::size_t>(m), v);
    for (int c = 0; c < m; ++c) d[c] = static_cast<double>(v[c]);
    return io::interpolate(s, d);
  }

  template <class T>
  void start() {
    io::FieldData<T> init = io::initial_values<T>(config_, initial_);
    std::unique_ptr<Stepper<T>> st = make_stepper<T>(io::stepper_problem(config_, initial_), config_.backend);
    st->set_field(init.values.data());
    // The time axis of `adi3d run`'s fresh start: t = time.start + step dt.
    st->set_time_origin(config_.axis.t0, config_.axis.s0);
    st->set_step_index(0);
    st->impose_boundary_values();
    stepper_ = std::move(st);
    // (Off for temperature-dependent properties: the energy's weights c(u)
    // change between steps, docs/SCHEMES.md; and for radiating faces, whose
    // source is not data the guard can bound.)
    guard_ = EnergyGuard(!config_.problem.material.temperature && !config_.problem.radiation &&
                             energy_cannot_grow(config_.problem, field_faces_zero(config_.problem, init.values)),
                         config_.precision == Precision::F32, config_.problem);
  }

  io::RunConfig config_;
  std::optional<io::FieldInfo> initial_;
  EnergyGuard guard_;
  std::unique_ptr<io::FluxConductivity> conductivity_;  ///< read once, by heat_flux()
  std::optional<HeatFlowMeter> meter_;  // heat_flows(): made on first use
  std::variant<std::unique_ptr<Stepper<float>>, std::unique_ptr<Stepper<double>>> stepper_;
};

}  // namespace

void bind_problem(nb::module_& m) {
  m.def("xdmf_path_for", &io::xdmf_path_for, nb::arg("h5_path"));
  nb::class_<Problem>(m, "Problem")
      .def_static("from_file", &Problem::from_file, nb::arg("path"), nb::arg("overrides"))
      .def_static("from_text", &Problem::from_text, nb::arg("text"), nb::arg("name"), nb::arg("overrides"))
      .def("step", &Problem::step, nb::arg("count"))
      .def_prop_ro("step_index", &Problem::step_index)
      .def_prop_ro("time", &Problem::time)
      .def_prop_ro("backend", &Problem::backend)
      .def_prop_ro("device", &Problem::device)
      .def("view", [](nb::handle self) { return nb::cast<Problem&>(self).view(self); })
      .def("copy", &Problem::copy)
      .def("probe", &Problem::probe, nb::arg("x"), nb::arg("y"), nb::arg("z"))
      .def("probes", &Problem::probes)
      .def("heat_flux", &Problem::heat_flux)
      .def("heat_flows", &Problem::heat_flows)
      .def("face_kinds", &Problem::face_kinds)
      .def("write", &Problem::write, nb::arg("path"), nb::arg("xdmf"), nb::arg("compression"), nb::arg("overwrite"))
      .def_prop_ro("shape", [](const Problem& p) {
        const auto& n = p.config().problem.n;
        return std::vector<index_t>{n[2], n[1], n[0]};
      })
      .def_prop_ro("spacing", [](const Problem& p) {
        const auto g = io::geometry_of(p.config());
        return std::vector<double>{g.spacing[0], g.spacing[1], g.spacing[2]};
      })
      .def_prop_ro("coordinates", [](const Problem& p) {
        // Every axis' node coordinates: a stretched axis' own, else origin + i h.
        const auto g = io::geometry_of(p.config());
        std::vector<std::vector<double>> c(3);
        for (int a = 0; a < 3; ++a) {
          c[a] = g.coordinates[a];
          if (c[a].empty())
            for (index_t i = 0; i < g.n[a]; ++i) c[a].push_back(g.origin[a] + static_cast<double>(i) * g.spacing[a]);
        }
        return c;
      })
      .def_prop_ro("origin", [](const Problem& p) {
        const auto g = io::geometry_of(p.config());
        return std::vector<double>{g.origin[0], g.origin[1], g.origin[2]};
      })
      .def_prop_ro("dt", [](const Problem& p) { return p.config().problem.dt; })
      .def_prop_ro("steps", [](const Problem& p) { return p.config().steps; })
      .def_prop_ro("precision", [](const Problem& p) { return std::string(precision_name(p.config().precision)); })
      .def_prop_ro("config_yaml", [](const Problem& p) { return p.config().resolved_yaml; })
      .def_prop_ro("source", [](const Problem& p) { return p.config().source; });
}

}  // namespace adi::python
