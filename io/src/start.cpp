// A fresh run's starting point (adi/io/start.hpp).

#include <adi/analytic.hpp>
#include <adi/io/start.hpp>
#include <adi/step_plan.hpp>

#include <algorithm>
#include <memory>

namespace adi::io {

namespace {

/// The same value at every node: the initial field of `initial: {value: T}`.
class UniformField final : public FieldSource {
 public:
  explicit UniformField(double v) : v_(v) {}
  std::string name() const override { return "initial.value"; }
  void read(const std::array<index_t, 3>&, const std::array<index_t, 3>& size, double* out) const override {
    std::fill(out, out + size[0] * size[1] * size[2], v_);
  }

 private:
  double v_;
};

}  // namespace

std::string resolve_input(const RunConfig& c, const std::string& p) {
  if (p.empty() || p[0] == '/' || c.base_dir.empty() || c.base_dir == ".") return p;
  return c.base_dir + "/" + p;
}

bool faces_read_initial(const RunConfig& c) {
  const HeatProblem& p = c.problem;
  if (c.initial.kind == InitialConfig::Kind::File && !c.initial.boundary_from_file) return false;
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) continue;
    for (int side = 0; side < 2; ++side) {
      const Boundary b = side ? p.hi[a] : p.lo[a];
      const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      if (b == Boundary::Dirichlet && d.value_from_initial && !d.table.empty()) return true;
    }
  }
  return false;
}

void attach_face_values(RunConfig& c, const std::optional<FieldInfo>& initial) {
  if (!faces_read_initial(c) || c.problem.initial_field) return;
  if (c.initial.kind == InitialConfig::Kind::Uniform) {
    c.problem.initial_field = std::make_shared<UniformField>(c.initial.value);
  } else if (c.initial.kind == InitialConfig::Kind::File) {
    const FieldInfo info =
        initial ? *initial : inspect_field(resolve_input(c, c.initial.file), c.initial.dataset);
    c.problem.initial_field = std::make_shared<Hdf5Field>(info, "initial", Hdf5Field::Values::Finite);
  }
}

HeatProblem stepper_problem(const RunConfig& c, const std::optional<FieldInfo>& initial) {
  HeatProblem p = c.problem;
  if (plan_step(p).constant_tables()) return p;
  // attach_face_values chose it already (the source the problem's identity names).
  if (p.initial_field) return p;
  if (c.initial.kind == InitialConfig::Kind::Uniform) {
    p.initial_field = std::make_shared<UniformField>(c.initial.value);
  } else if (c.initial.kind == InitialConfig::Kind::File) {
    if (!c.initial.boundary_from_file) {
      // The faces the file would have given are 0: say so to the stepper.
      for (int a = 0; a < 3; ++a)
        for (FaceData* d : {&p.lo_data[a], &p.hi_data[a]})
          if (d->value_from_initial) d->value_from_initial = false, d->value = 0.0;
    } else if (initial) {
      p.initial_field = std::make_shared<Hdf5Field>(*initial, "initial", Hdf5Field::Values::Finite);
    } else if (p.has_moving_dirichlet()) {
      // A restart: the moving faces' values V are the initial file's again.
      const std::string file = resolve_input(c, c.initial.file);
      p.initial_field =
          std::make_shared<Hdf5Field>(inspect_field(file, c.initial.dataset), "initial", Hdf5Field::Values::Finite);
    }
  }
  return p;
}

void check_single_process(const RunConfig& c, const std::string& hint) {
  const auto& g = c.parallel.grid;
  if (c.parallel.automatic() || g[0] * g[1] * g[2] == 1) return;
  const std::string where = c.parallel.where.empty() ? c.source : c.parallel.where;
  std::string h = hint;
  const auto at = h.find("-np N");
  if (at != std::string::npos) h.replace(at, 5, "-np " + std::to_string(g[0] * g[1] * g[2]));
  throw ConfigError(where, "parallel.grid",
                    "[" + std::to_string(g[0]) + ", " + std::to_string(g[1]) + ", " + std::to_string(g[2]) + "] needs " +
                        std::to_string(g[0] * g[1] * g[2]) + " MPI ranks, this run has 1 (" + h + ")",
                    __FILE__, __LINE__);
}

template <class T>
void zero_dirichlet_faces(const HeatProblem& p, std::vector<T>& u) {
  const index_t nx = p.n[0], ny = p.n[1], nz = p.n[2];
  auto fixed = [&](int a, index_t i, index_t n) {
    return (i == 0 && p.lo[a] == Boundary::Dirichlet) || (i == n - 1 && p.hi[a] == Boundary::Dirichlet);
  };
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i)
        if (fixed(0, i, nx) || fixed(1, j, ny) || fixed(2, k, nz)) u[i + nx * (j + ny * k)] = T(0);
}

template <class T>
FieldData<T> initial_values(const RunConfig& c, const std::optional<FieldInfo>& initial) {
  const HeatProblem& p = c.problem;
  FieldData<T> fd;
  if (initial) {
    fd = read_field<T>(*initial);
    if (!c.initial.boundary_from_file) zero_dirichlet_faces(p, fd.values);
  } else if (c.initial.kind == InitialConfig::Kind::File) {
    ADI_THROW(InvalidArgument, "initial_values: the config starts from a file, and its header was not inspected");
  } else if (c.initial.kind == InitialConfig::Kind::Uniform) {
    fd.values.assign(static_cast<std::size_t>(p.points()), static_cast<T>(c.initial.value));
  } else {
    fill_analytic(p, fd.values);
  }
  return fd;
}

template void zero_dirichlet_faces<float>(const HeatProblem&, std::vector<float>&);
template void zero_dirichlet_faces<double>(const HeatProblem&, std::vector<double>&);
template FieldData<float> initial_values<float>(const RunConfig&, const std::optional<FieldInfo>&);
template FieldData<double> initial_values<double>(const RunConfig&, const std::optional<FieldInfo>&);

}  // namespace adi::io
