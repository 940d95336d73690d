// The CUDA stepper's rows (CudaStepper, solver/cuda/general/) against
// the CPU oracle (CpuStepper) on awkward grids, every face kind, K / c
// / q fields with 10x variation, time tables, periodic and flat axes: stage
// by stage (impose, rhs, x, y, z) and after 20 steps; then every adi::verify
// check on the CUDA backend; then the backend choice (classic problems keep
// the constant tables' stages, constant_tables.cu). Every comparison prints its case, precision,
// stage, relative error and the worst node, so a log is enough to diagnose.

#include "gpu_support.hpp"
#include "test_util.hpp"

#include <adi/cuda.hpp>
#include <adi/factory.hpp>
#include <adi/problem.hpp>
#include <adi/step_plan.hpp>
#include <adi/stepper.hpp>
#include <adi/verification.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace adi;
using namespace adi::test;

namespace {

struct Case {
  std::string name;
  HeatProblem p;
};

/// A field on the grid with values in [lo, 10 lo] (a 10x variation), from a
/// smooth part and a random part so neighbouring nodes differ.
std::shared_ptr<const FieldSource> field(SeededRng& rng, const std::string& name, const std::array<index_t, 3>& n,
                                         double lo, bool signed_values = false) {
  std::vector<double> v(static_cast<std::size_t>(n[0] * n[1] * n[2]));
  for (index_t k = 0; k < n[2]; ++k)
    for (index_t j = 0; j < n[1]; ++j)
      for (index_t i = 0; i < n[0]; ++i) {
        const double smooth = 0.5 + 0.5 * std::sin(0.7 * i + 1.3 * j + 0.4 * k);
        const double r = rng.uniform(0.0, 1.0);
        const double s = 0.6 * smooth + 0.4 * r;  // in [0, 1]
        double x = lo * (1.0 + 9.0 * s);
        if (signed_values) x = lo * (2.0 * s - 1.0) * 10.0;
        v[static_cast<std::size_t>(i + n[0] * (j + n[1] * k))] = x;
      }
  return std::make_shared<ArrayField>(name, n, std::move(v));
}

TimeTable table(double a, double b) {
  TimeTable t;
  t.t = {0.0, 0.004, 0.011, 0.02};
  t.v = {1.0, a, b, 0.8};
  return t;
}

void dirichlet(HeatProblem& p, int axis, int side, bool from_initial, double value, bool moving) {
  (side ? p.hi : p.lo)[axis] = Boundary::Dirichlet;
  FaceData& d = (side ? p.hi_data : p.lo_data)[axis];
  d.value_from_initial = from_initial;
  d.value = value;
  if (moving) d.table = table(1.3, 0.6 + 0.1 * axis);
}
void neumann(HeatProblem& p, int axis, int side, double flux, bool moving) {
  (side ? p.hi : p.lo)[axis] = Boundary::Neumann;
  FaceData& d = (side ? p.hi_data : p.lo_data)[axis];
  d.flux = flux;
  if (moving) d.table = table(0.5, 1.7);
}
void robin(HeatProblem& p, int axis, int side, double h, double ambient, bool moving) {
  (side ? p.hi : p.lo)[axis] = Boundary::Robin;
  FaceData& d = (side ? p.hi_data : p.lo_data)[axis];
  d.h = h;
  d.ambient = ambient;
  if (moving) d.table = table(2.0, 0.4);
}
void periodic(HeatProblem& p, int axis) { p.lo[axis] = p.hi[axis] = Boundary::Periodic; }

HeatProblem base(index_t nx, index_t ny, index_t nz) {
  HeatProblem p;
  p.n = {nx, ny, nz};
  p.length = {1.3, 0.9, 0.7};
  p.alpha = {1.0, 0.6, 1.7};
  p.dt = 1e-3;
  return p;
}

// Material: isotropic K field ("iso"), per-axis K fields ("aniso"), or none;
// plus c and q fields.
void materials(HeatProblem& p, SeededRng& rng, const std::string& k, bool c, bool q) {
  if (k == "iso") {
    const auto f = field(rng, "K", p.n, 0.1);
    p.material.conductivity = {f, f, f};
  } else if (k == "aniso") {
    p.material.conductivity = {field(rng, "Kx", p.n, 0.1), nullptr, field(rng, "Kz", p.n, 0.05)};
  }
  if (c) p.material.capacity = field(rng, "c", p.n, 0.3);
  if (q) {
    p.material.source = field(rng, "q", p.n, 0.5, true);
    p.source_table = table(1.5, -0.5);
  }
}

std::vector<Case> cases(SeededRng& rng) {
  std::vector<Case> out;
  {  // every face kind, moving data everywhere, all three fields
    HeatProblem p = base(13, 7, 9);
    dirichlet(p, 0, 0, true, 0.0, true);
    neumann(p, 0, 1, 0.7, true);
    robin(p, 1, 0, 2.0, 0.3, true);
    dirichlet(p, 1, 1, false, 0.5, false);
    neumann(p, 2, 0, 0.0, false);
    robin(p, 2, 1, 5.0, -0.2, false);
    materials(p, rng, "iso", true, true);
    out.push_back({"mixed faces, iso K, c, q, tables 13x7x9", p});
  }
  {  // smallest grid, Robin all round, anisotropic K, constant c and q
    HeatProblem p = base(3, 3, 3);
    for (int a = 0; a < 3; ++a) {
      robin(p, a, 0, 1.0 + a, 0.1 * a, a == 1);
      robin(p, a, 1, 3.0, -0.5, false);
    }
    materials(p, rng, "aniso", false, false);
    p.capacity = 2.0;
    p.source = 0.7;
    out.push_back({"robin all faces, aniso K 3x3x3", p});
  }
  {  // periodic x, moving Dirichlet y (from the initial field), flux z, theta 0.6
    HeatProblem p = base(33, 17, 5);
    periodic(p, 0);
    dirichlet(p, 1, 0, true, 0.0, true);
    dirichlet(p, 1, 1, true, 0.0, true);
    neumann(p, 2, 0, -0.4, false);
    neumann(p, 2, 1, 0.9, true);
    materials(p, rng, "aniso", true, true);
    p.theta = 0.6;
    out.push_back({"periodic x, moving dirichlet y, aniso K, c, q 33x17x5", p});
  }
  {  // 2D (nz = 1): periodic x, Robin / Neumann y
    HeatProblem p = base(19, 11, 1);
    periodic(p, 0);
    robin(p, 1, 0, 4.0, 1.0, true);
    neumann(p, 1, 1, 0.2, false);
    materials(p, rng, "iso", true, true);
    out.push_back({"2D nz=1, periodic x, robin/flux y, iso K, c, q 19x11x1", p});
  }
  {  // two periodic axes, moving Dirichlet z with edges
    HeatProblem p = base(12, 9, 7);
    periodic(p, 0);
    periodic(p, 1);
    dirichlet(p, 2, 0, true, 0.0, true);
    dirichlet(p, 2, 1, false, -0.3, true);
    materials(p, rng, "iso", false, true);
    out.push_back({"periodic x and y, moving dirichlet z, iso K, q 12x9x7", p});
  }
  {  // all periodic, all fields
    HeatProblem p = base(10, 6, 5);
    for (int a = 0; a < 3; ++a) periodic(p, a);
    materials(p, rng, "aniso", true, true);
    out.push_back({"periodic x, y, z, aniso K, c, q 10x6x5", p});
  }
  {  // constant coefficients: periodic y (cyclic) beside factored x and z
    HeatProblem p = base(9, 8, 7);
    periodic(p, 1);
    dirichlet(p, 0, 0, true, 0.0, false);
    neumann(p, 0, 1, 0.0, false);
    robin(p, 2, 0, 1.5, 0.2, false);
    dirichlet(p, 2, 1, true, 0.0, false);
    out.push_back({"constant coefficients, periodic y, robin z 9x8x7", p});
  }
  {  // constant coefficients, Robin / flux with tables: the factored path only
    HeatProblem p = base(31, 5, 17);
    robin(p, 0, 0, 2.5, 0.4, true);
    dirichlet(p, 0, 1, true, 0.0, true);
    neumann(p, 1, 0, 0.3, true);
    neumann(p, 1, 1, 0.0, false);
    dirichlet(p, 2, 0, false, 1.0, false);
    robin(p, 2, 1, 0.5, 0.0, false);
    p.capacity = 1.7;
    p.source = -0.2;
    p.source_table = table(0.2, 3.0);
    out.push_back({"constant coefficients, robin/flux/dirichlet tables 31x5x17", p});
  }
  {  // 1D along y: x and z flat
    HeatProblem p = base(1, 25, 1);
    robin(p, 1, 0, 3.0, 0.5, true);
    dirichlet(p, 1, 1, true, 0.0, true);
    materials(p, rng, "iso", true, true);
    out.push_back({"1D along y (x, z flat) 1x25x1", p});
  }
  {  // larger: many blocks per launch, lines of a few hundred
    HeatProblem p = base(70, 41, 300);
    dirichlet(p, 0, 0, true, 0.0, true);
    robin(p, 0, 1, 1.0, 0.0, false);
    periodic(p, 1);
    neumann(p, 2, 0, 0.5, false);
    dirichlet(p, 2, 1, true, 0.0, false);
    materials(p, rng, "iso", true, true);
    p.dt = 2e-4;
    out.push_back({"larger, periodic y, iso K, c, q 70x41x300", p});
  }
  {  // x lines solved in place, their tiles copied 16 bytes at a time (nx a
     // multiple of 4): 8 (fp32) / 16 (fp64) segments, 407 lines in tiles of
     // 32 / 16 lines (the last ragged), Dirichlet / Robin x ends
    HeatProblem p = base(128, 37, 11);
    dirichlet(p, 0, 0, true, 0.0, true);
    robin(p, 0, 1, 2.0, 0.4, true);
    neumann(p, 1, 0, 0.3, false);
    neumann(p, 1, 1, 0.0, false);
    robin(p, 2, 0, 1.0, 0.0, false);
    dirichlet(p, 2, 1, false, 0.2, false);
    materials(p, rng, "iso", true, true);
    p.dt = 2e-4;
    out.push_back({"x in place, 16-byte tiles, iso K, c, q 128x37x11", p});
  }
  {  // x lines in place, copied word by word (nx odd): 16 / 32 segments,
     // the last one partly padding; anisotropic K (x a field), no c field
    HeatProblem p = base(251, 9, 3);
    robin(p, 0, 0, 1.5, 0.2, false);
    neumann(p, 0, 1, -0.5, true);
    dirichlet(p, 1, 0, true, 0.0, false);
    dirichlet(p, 1, 1, true, 0.0, false);
    neumann(p, 2, 0, 0.0, false);
    neumann(p, 2, 1, 0.0, false);
    materials(p, rng, "aniso", false, true);
    p.dt = 5e-5;
    out.push_back({"x in place, word by word, aniso K, q 251x9x3", p});
  }
  {  // a periodic x of 64 rows in place (a ring of uniform segments) with
     // only a c field (K constant): the tile's K slots unused
    HeatProblem p = base(64, 9, 6);
    periodic(p, 0);
    robin(p, 1, 0, 2.0, 0.1, false);
    dirichlet(p, 1, 1, true, 0.0, false);
    periodic(p, 2);
    materials(p, rng, "", true, false);
    out.push_back({"periodic x of 64 in place, c field only 64x9x6", p});
  }
  {  // constant coefficients on a larger awkward grid: the classic kernels
     // (warp x, lanes y and z) with flux, Robin and moving Dirichlet ends, a
     // constant source with a table, c != 1
    HeatProblem p = base(45, 37, 29);
    robin(p, 0, 0, 3.0, 0.2, true);
    neumann(p, 0, 1, 0.6, true);
    dirichlet(p, 1, 0, true, 0.0, true);
    robin(p, 1, 1, 1.5, -0.1, false);
    neumann(p, 2, 0, 0.0, false);
    neumann(p, 2, 1, -0.3, false);
    p.capacity = 2.5;
    p.source = 0.3;
    p.source_table = table(0.5, 2.0);
    p.dt = 5e-4;
    out.push_back({"constant coefficients, classic kernels, robin/flux/moving dirichlet 45x37x29", p});
  }
  {  // constant coefficients, every axis periodic on an awkward grid: the
     // classic kernels on rings (warp x, lanes y and z, Sherman-Morrison
     // correction; the RHS wraps), c != 1 and a constant source with a table
    HeatProblem p = base(45, 37, 29);
    for (int a = 0; a < 3; ++a) periodic(p, a);
    p.capacity = 1.6;
    p.source = 0.4;
    p.source_table = table(0.5, 2.0);
    p.dt = 5e-4;
    out.push_back({"constant coefficients, periodic x, y, z 45x37x29", p});
  }
  {  // constant rings of the long-line builds beside open faces: x of 257
     // (warp kernel, 9-row segments), z of 513 (fp64: 16-line tiles, row
     // n-1 inside the last segment), y Robin / flux
    HeatProblem p = base(257, 6, 513);
    periodic(p, 0);
    robin(p, 1, 0, 2.0, 0.3, false);
    neumann(p, 1, 1, 0.5, false);
    periodic(p, 2);
    p.dt = 5e-6;  // the field keeps most of its size over 20 steps (the comparison is relative to it)
    out.push_back({"constant coefficients, periodic x 257 and z 513, robin/flux y 257x6x513", p});
  }
  {  // open y lines of 261 rows (17 segments of 16 rows fp32, 33 of 8 fp64):
     // tiles of 8 (fp32) / 4 (fp64) lines instead of 16 / 8, the narrower
     // block leaving more warps an SM (launch_i); 19 lines across x, so the
     // last tile is ragged in both widths; z of 3
    HeatProblem p = base(19, 261, 3);
    robin(p, 0, 0, 1.0, 0.2, false);
    dirichlet(p, 0, 1, true, 0.0, false);
    dirichlet(p, 1, 0, true, 0.0, true);
    neumann(p, 1, 1, 0.4, false);
    neumann(p, 2, 0, 0.0, false);
    robin(p, 2, 1, 2.0, -0.1, false);
    materials(p, rng, "iso", false, true);
    p.dt = 5e-5;
    out.push_back({"y lines of 261 in half-width tiles, iso K, q 19x261x3", p});
  }
  {  // x lines of 1030 rows: longer than the segmented kernel takes (one line
     // per thread there), y periodic, z Robin: both kernels in one step
    HeatProblem p = base(1030, 9, 5);
    robin(p, 0, 0, 2.0, 0.1, false);
    dirichlet(p, 0, 1, true, 0.0, false);
    periodic(p, 1);
    robin(p, 2, 0, 1.0, 0.0, true);
    neumann(p, 2, 1, 0.4, false);
    materials(p, rng, "iso", true, false);
    p.dt = 2e-5;
    out.push_back({"x lines of 1030 (one per thread), periodic y 1030x9x5", p});
  }
  {  // a periodic axis of 1000 rows: 64 (fp32) or 128 (fp64) balanced segments, the reduced
     // ring as long; 37 lines across x (ragged tiles)
    HeatProblem p = base(37, 1000, 3);
    dirichlet(p, 0, 0, true, 0.0, false);
    robin(p, 0, 1, 3.0, 0.5, false);
    periodic(p, 1);
    neumann(p, 2, 0, 0.0, false);
    neumann(p, 2, 1, 0.0, false);
    materials(p, rng, "aniso", true, true);
    p.dt = 5e-5;
    out.push_back({"periodic y of 1000 (64 segments), ragged tiles 37x1000x3", p});
  }
  return out;
}

struct Diff {
  double rel = 0.0, worst = 0.0, scale = 0.0;
  index_t at = -1;
  bool finite = true;
};

template <class T>
Diff compare(const std::vector<T>& got, const std::vector<T>& want) {
  Diff d;
  d.scale = 1e-300;
  for (std::size_t q = 0; q < got.size(); ++q) {
    const double g = static_cast<double>(got[q]), w = static_cast<double>(want[q]);
    if (!std::isfinite(g) || !std::isfinite(w)) {
      if (d.finite) d.at = static_cast<index_t>(q);
      d.finite = false;
      continue;
    }
    const double e = std::fabs(g - w);
    if (e > d.worst || d.at < 0) d.worst = e, d.at = static_cast<index_t>(q);
    d.scale = std::max(d.scale, std::fabs(w));
  }
  d.rel = d.finite ? d.worst / d.scale : INFINITY;
  return d;
}

template <class T>
void report(const Case& c, const char* stage, const Diff& d, const std::vector<T>& got, const std::vector<T>& want,
            double tol) {
  const index_t nx = c.p.n[0], ny = c.p.n[1];
  const index_t q = d.at < 0 ? 0 : d.at;
  const index_t i = q % nx, j = (q / nx) % ny, k = q / (nx * ny);
  std::printf("[ compare  ] %-58s %-4s %-8s rel %.3e (tol %.0e) max|cpu| %.3e worst at (%lld,%lld,%lld) "
              "gpu %.17g cpu %.17g%s\n",
              c.name.c_str(), sizeof(T) == 8 ? "f64" : "f32", stage, d.rel, tol, d.scale, static_cast<long long>(i),
              static_cast<long long>(j), static_cast<long long>(k),
              got.empty() ? 0.0 : static_cast<double>(got[static_cast<std::size_t>(q)]),
              want.empty() ? 0.0 : static_cast<double>(want[static_cast<std::size_t>(q)]),
              d.finite ? "" : "  NON-FINITE");
  std::fflush(stdout);
  EXPECT_TRUE(d.finite) << c.name << " " << stage << ": non-finite value at flat index " << d.at;
  EXPECT_LE(d.rel, tol) << c.name << " " << stage << " (" << (sizeof(T) == 8 ? "f64" : "f32") << ")";
}

template <class T>
void run_case(Case c, SeededRng& rng, double tol, bool segmented, bool x_transpose, bool classic_rings,
              bool x_in_place) {
  HeatProblem& p = c.p;
  std::vector<double> u0d(static_cast<std::size_t>(p.points()));
  for (auto& v : u0d) v = rng.uniform(-1.0, 1.0);
  // Dirichlet faces that keep the initial values and move need the field.
  p.initial_field = std::make_shared<ArrayField>("u0", p.n, u0d);
  std::vector<T> u0(u0d.begin(), u0d.end());
  ASSERT_FALSE(plan_step(p).constant_tables()) << c.name;
  std::unique_ptr<Stepper<T>> gpu, cpu;
  StepperSpec spec;
  spec.backend = Backend::Cuda;
  spec.options.general_segmented = segmented;
  spec.options.general_x_transpose = x_transpose;
  spec.options.general_x_in_place = x_in_place;
  spec.options.classic_rings = classic_rings;
  ASSERT_NO_THROW(gpu = make_stepper<T>(p, spec)) << c.name;
  ASSERT_NO_THROW(cpu = make_stepper<T>(p, Backend::Cpu)) << c.name;
  std::printf("[ case     ] %s (%s): %s | %s\n", c.name.c_str(), sizeof(T) == 8 ? "f64" : "f32",
              gpu->device_name().c_str(), cpu->device_name().c_str());
  ASSERT_NE(gpu->device_name().find("general path"), std::string::npos) << gpu->device_name();
  // The kernels asked for are the kernels that ran (lines > 1024 rows are one
  // per thread either way; constant coefficients without a flat axis run the
  // classic kernels, periodic axes as rings when classic_rings is on and the
  // lines fit the segmented kernels).
  const std::string dn = gpu->device_name();
  const bool fast = dn.find("segmented") != std::string::npos || dn.find("classic kernels") != std::string::npos;
  EXPECT_EQ(fast, segmented) << dn;
  // Where the x lines go: in place for uniform segments of contiguous rows
  // (the "x in place" cases; the transposed grid with general_x_in_place
  // off), on the transposed grid for a ring of 33 rows (no uniform
  // segments) unless general_x_transpose is off.
  // (The Strang step's x solves add into u: always in place.)
  const bool strang = p.scheme_in_use() == SchemeType::Strang;
  if (segmented && c.name.find("x in place") != std::string::npos) {
    EXPECT_EQ(dn.find("transposed grid") != std::string::npos, !strang && !x_in_place && x_transpose) << dn;
  }
  if (segmented && c.name.find("periodic x, moving dirichlet y") != std::string::npos) {
    EXPECT_EQ(dn.find("x=segmented-ring (transposed grid)") != std::string::npos, !strang && x_transpose) << dn;
  }
  EXPECT_EQ(dn.find("Strang step") != std::string::npos, strang) << dn;
  bool classic_problem = !strang && !p.material.lines_vary() && !p.material.source && p.n[0] >= 3 && p.n[1] >= 3 &&
                         p.n[2] >= 3;
  for (int a = 0; a < 3; ++a)
    if (p.periodic(a))
      classic_problem = classic_problem && classic_rings &&
                        cuda::ConstantSolver<T>::cyclic_fits(static_cast<Axis>(a), p.layout(), spec.options);
  EXPECT_EQ(dn.find("classic kernels") != std::string::npos, segmented && classic_problem) << dn;
  if (classic_problem && segmented) {  // one ring solver per periodic axis
    int rings = 0, periodic_axes = 0;
    for (std::size_t at = dn.find("periodic (Sherman-Morrison"); at != std::string::npos;
         at = dn.find("periodic (Sherman-Morrison", at + 1))
      ++rings;
    for (int a = 0; a < 3; ++a) periodic_axes += p.periodic(a) ? 1 : 0;
    EXPECT_EQ(rings, periodic_axes) << dn;
  }
  ASSERT_EQ(gpu->backend(), Backend::Cuda);

  const std::size_t n = u0.size();
  std::vector<T> got(n), want(n);
  gpu->set_field(u0.data());
  cpu->set_field(u0.data());
  gpu->impose_boundary_values();
  cpu->impose_boundary_values();
  gpu->get_field(got.data());
  cpu->get_field(want.data());
  report(c, "impose", compare(got, want), got, want, 0.0);

  // One step phase by phase, the work array after each stage (the Strang
  // step: its Dirichlet terms, then one factor per phase, each adding into
  // the field: the field after each).
  const struct {
    Phase ph;
    const char* name;
    bool work;
  } stages[] = {{Phase::Rhs, "rhs", true}, {Phase::SolveX, "solve x", true}, {Phase::SolveY, "solve y", true},
                {Phase::SolveZ, "z+update", false}};
  for (const auto& s : stages) {
    gpu->run_phase(s.ph);
    cpu->run_phase(s.ph);
    if (s.work && !strang) {
      gpu->get_work(got.data());
      cpu->get_work(want.data());
    } else {
      gpu->get_field(got.data());
      cpu->get_field(want.data());
    }
    report(c, s.name, compare(got, want), got, want, s.ph == Phase::Rhs && !segmented ? 0.0 : tol);
  }
  gpu->set_step_index(1);
  cpu->set_step_index(1);

  // 19 more steps (time tables move through their points).
  ASSERT_NO_THROW(gpu->advance(10)) << c.name;
  cpu->advance(10);
  for (int s = 0; s < 9; ++s) {
    ASSERT_NO_THROW(gpu->step()) << c.name;
    cpu->step();
  }
  EXPECT_EQ(gpu->step_index(), 20);
  gpu->get_field(got.data());
  cpu->get_field(want.data());
  const Diff d = compare(got, want);
  report(c, "20 steps", d, got, want, tol);
  // The solution moved: a comparison of two untouched fields proves nothing.
  double moved = 0.0;
  for (std::size_t q = 0; q < n; ++q) moved = std::max(moved, std::fabs(static_cast<double>(want[q]) - u0[q]));
  EXPECT_GT(moved, 1e-6) << c.name << ": the CPU field did not change in 20 steps";

  const FieldStats gs = gpu->field_stats(), cs = cpu->field_stats();
  EXPECT_TRUE(gs.finite);
  EXPECT_NEAR(gs.max_abs, cs.max_abs, tol * std::max(cs.max_abs, 1e-300) + 1e-300) << c.name;
  // The energy guard's sum w c u^2: the same weights and capacities on both.
  EXPECT_GT(cs.energy, 0.0) << c.name;
  EXPECT_NEAR(gs.energy, cs.energy, 10 * std::max(tol, 1e-11) * cs.energy) << c.name;
  EXPECT_GT(gpu->bytes_allocated(), 2 * n * sizeof(T)) << c.name;
}

// tol: the bound on every stage; with segmented = false the RHS is the
// oracle's arithmetic in the same order (-fmad=false) and must agree exactly.
template <class T>
void run_all(double tol, bool segmented, bool x_transpose = true, bool classic_rings = true, bool x_in_place = true,
             SchemeType scheme = SchemeType::Auto) {
  SeededRng rng;
  for (Case c : cases(rng)) {
    if (scheme != SchemeType::Auto) c.p.scheme = scheme, c.name += std::string(", ") + scheme_name(scheme);
    SCOPED_TRACE(c.name);
    run_case<T>(c, rng, tol, segmented, x_transpose, classic_rings, x_in_place);
  }
}

}  // namespace

// The segmented kernel (the default): round-off agreement.
TEST(CudaGeneral, IsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  run_all<double>(1e-12, true);
}

TEST(CudaGeneral, IsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  run_all<float>(1e-5, true);
}

// Every case on the Strang step (split.hpp; the default for the cases with
// K or c fields, forced here on the constant-coefficient ones too, whose
// solves then take theta fraction dt) and on the Douglas step (forced on
// the field cases): both schemes on every kernel family.
TEST(CudaGeneral, StrangEverywhereIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  run_all<double>(1e-12, true, true, true, true, SchemeType::Strang);
}
TEST(CudaGeneral, StrangEverywhereIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  run_all<float>(1e-5, true, true, true, true, SchemeType::Strang);
}
TEST(CudaGeneral, StrangThreadPerLineIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  run_all<double>(1e-12, false, true, true, true, SchemeType::Strang);
}
TEST(CudaGeneral, DouglasEverywhereIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  run_all<double>(1e-12, true, true, true, true, SchemeType::Douglas);
}

// Every x line in place (general_x_transpose = false): the rings of
// balanced segments too, each thread reading its own segment's rows.
TEST(CudaGeneral, SegmentedXInPlaceIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  run_all<double>(1e-12, true, false);
}

// Every x line through the transposed grid (general_x_in_place = false):
// the path that uniform x segments took before they were solved in place.
TEST(CudaGeneral, SegmentedXTransposedIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  run_all<double>(1e-12, true, true, true, false);
}

TEST(CudaGeneral, SegmentedXTransposedIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  run_all<float>(1e-5, true, true, true, false);
}

// Periodic axes with constant coefficients on the general segmented kernel
// (its reduced system closed into a ring) instead of the classic kernels'
// Sherman-Morrison rings (classic_rings = false, ADI_CLASSIC_RINGS=0).
TEST(CudaGeneral, SegmentedRingsIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  run_all<double>(1e-12, true, true, false);
}

// One line per thread (general_segmented = false): the oracle's sweeps.
TEST(CudaGeneral, ThreadPerLineIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  run_all<double>(1e-12, false);
}

TEST(CudaGeneral, ThreadPerLineIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  run_all<float>(1e-5, false);
}

// The classic mode's step replayed as one CUDA graph (SolverOptions::
// cuda_graph) equals the same kernels launched one by one, bit for bit:
// periodic x, Robin y, flux z, a constant source (no time table: the launches
// are the same every step). With a time table there is no graph.
TEST(CudaGeneral, ClassicGraphStepIsBitIdenticalToLaunches) {
  ADI_GPU_TEST_PRELUDE();
  for (const auto& n : {std::array<index_t, 3>{45, 37, 29}, std::array<index_t, 3>{257, 6, 9}}) {
    HeatProblem p = base(n[0], n[1], n[2]);
    periodic(p, 0);
    robin(p, 1, 0, 2.0, 0.3, false);
    robin(p, 1, 1, 0.5, -0.1, false);
    neumann(p, 2, 0, 0.7, false);
    dirichlet(p, 2, 1, false, 0.25, false);
    p.source = 0.4;
    p.capacity = 1.3;
    SeededRng rng;
    std::vector<double> u0(static_cast<std::size_t>(p.points()));
    for (auto& v : u0) v = rng.uniform(-1, 1);
    p.initial_field = std::make_shared<ArrayField>("u0", p.n, u0);
    StepperSpec graph_spec, plain_spec;
    graph_spec.backend = plain_spec.backend = Backend::Cuda;
    plain_spec.options.cuda_graph = false;
    auto graph = make_stepper<double>(p, graph_spec);
    auto plain = make_stepper<double>(p, plain_spec);
    EXPECT_NE(graph->device_name().find("classic kernels"), std::string::npos) << graph->device_name();
    EXPECT_NE(graph->device_name().find("CUDA graph"), std::string::npos) << graph->device_name();
    EXPECT_EQ(plain->device_name().find("CUDA graph"), std::string::npos) << plain->device_name();
    for (auto* s : {graph.get(), plain.get()}) {
      s->set_field(u0.data());
      s->impose_boundary_values();
      s->advance(7);
      s->step();
    }
    std::vector<double> a(u0.size()), b(u0.size());
    graph->get_field(a.data());
    plain->get_field(b.data());
    EXPECT_EQ(a, b) << n[0] << " x " << n[1] << " x " << n[2];
    EXPECT_NE(a, u0);
    p.source_table = table(0.5, 2.0);  // time-dependent: launched one by one
    EXPECT_EQ(make_stepper<double>(p, graph_spec)->device_name().find("CUDA graph"), std::string::npos);
  }
}

// The interior RHS through shared-memory tiles (an isotropic K field or one
// constant K) agrees with the CPU. Ragged tiles in x and y (68 x 39 interior
// nodes in 32 x 16 tiles) and z chunks of several lengths.
template <class T>
void tiled_rhs_matches_the_cpu(double tol) {
  for (const bool field : {true, false}) {
    HeatProblem p = base(70, 41, 37);
    dirichlet(p, 0, 0, true, 0.0, false);
    robin(p, 0, 1, 1.0, 0.2, false);
    neumann(p, 1, 0, 0.3, false);
    dirichlet(p, 1, 1, false, 0.1, false);
    neumann(p, 2, 0, 0.0, false);
    robin(p, 2, 1, 2.0, 0.0, false);
    SeededRng rng;
    if (field) {
      materials(p, rng, "iso", true, true);
    } else {
      p.alpha = {0.8, 0.8, 0.8};  // one constant K: the tiled form; the c field makes it general
      materials(p, rng, "", true, true);
    }
    std::vector<double> u0d(static_cast<std::size_t>(p.points()));
    for (auto& v : u0d) v = rng.uniform(-1, 1);
    p.initial_field = std::make_shared<ArrayField>("u0", p.n, u0d);
    const std::vector<T> u0(u0d.begin(), u0d.end());
    auto gpu = make_stepper<T>(p, Backend::Cuda);
    std::vector<T> got(u0.size());
    gpu->set_field(u0.data());
    gpu->run_phase(Phase::Rhs);
    gpu->get_work(got.data());
    auto cpu = make_stepper<T>(p, Backend::Cpu);
    std::vector<T> want(u0.size());
    cpu->set_field(u0.data());
    cpu->run_phase(Phase::Rhs);
    cpu->get_work(want.data());
    const Diff d = compare(got, want);
    EXPECT_TRUE(d.finite);
    EXPECT_LE(d.rel, tol) << (field ? "K field" : "constant K");
    EXPECT_GT(d.scale, 0.0);
  }
}

TEST(CudaGeneral, TiledRhsMatchesTheCpu) {
  ADI_GPU_TEST_PRELUDE();
  tiled_rhs_matches_the_cpu<double>(1e-12);
  tiled_rhs_matches_the_cpu<float>(1e-5);
}

// A bad material value is refused when the stepper is built, with the CPU's
// message naming the node, before any device memory is used.
TEST(CudaGeneral, RejectsBadMaterial) {
  ADI_GPU_TEST_PRELUDE();
  HeatProblem p = base(5, 4, 3);
  std::vector<double> k(60, 1.0);
  k[17] = -1.0;
  p.material.conductivity = {std::make_shared<ArrayField>("K", p.n, k), nullptr, nullptr};
  try {
    make_stepper<double>(p, Backend::Cuda);
    FAIL() << "a negative conductivity was accepted";
  } catch (const InvalidArgument& e) {
    std::printf("[ message  ] %s\n", e.what());
    EXPECT_NE(std::string(e.what()).find("(2, 3, 0)"), std::string::npos) << e.what();
  }
}

// An extreme but finite conductivity overflows a row to infinity: the line
// solve's device error word turns into the CPU's NumericalError naming the axis.
TEST(CudaGeneral, ReportsNonFinitePivot) {
  ADI_GPU_TEST_PRELUDE();
  HeatProblem p = base(6, 5, 4);
  std::vector<double> k(120, 1.0);
  k[33] = k[34] = 1e306;  // neighbours along x: K_{i+1/2} = 1e306, times 1 / h^2 overflows
  p.material.conductivity = {std::make_shared<ArrayField>("K", p.n, k), nullptr, nullptr};
  for (Backend b : {Backend::Cpu, Backend::Cuda}) {
    auto st = make_stepper<double>(p, b);
    std::vector<double> u(120, 0.25);
    st->set_field(u.data());
    try {
      st->step();
      ADD_FAILURE() << backend_name(b) << ": an infinite pivot went unreported";
    } catch (const NumericalError& e) {
      std::printf("[ message  ] %s: %s\n", backend_name(b), e.what());
      EXPECT_NE(std::string(e.what()).find("along x"), std::string::npos) << e.what();
    }
  }
}

// ---- the steady-state verification checks on the CUDA backend (the
// marching ones run in the stepper contract, test_contract_cuda, on the same
// spec) ----
namespace {
StepperSpec cuda_spec() {
  StepperSpec s;
  s.backend = Backend::Cuda;
  return s;
}
void expect_ok(const verify::Check& c) {
  std::printf("[ verify   ] %-70s %-4s %12.4e  [%g, %g]  %s\n", c.name.c_str(), precision_name(c.precision), c.value,
              c.lo, c.hi, c.detail.c_str());
  std::fflush(stdout);
  EXPECT_TRUE(c.ok) << c.name << " (" << precision_name(c.precision) << "): " << c.quantity << " = " << c.value
                    << ", accepted [" << c.lo << ", " << c.hi << "]; " << c.detail;
}
}  // namespace

#define ADI_CUDA_VERIFY(name, expr) \
  TEST(CudaGeneralVerify, name) {   \
    ADI_GPU_TEST_PRELUDE();         \
    expect_ok(expr);                \
  }
ADI_CUDA_VERIFY(LayeredSteady, verify::layered_steady(cuda_spec()))
ADI_CUDA_VERIFY(RobinSteady, verify::robin_steady(cuda_spec()))
#undef ADI_CUDA_VERIFY

// ---- the backend choice ----
TEST(CudaGeneralSelect, ClassicKeepsClassicStepper) {
  ADI_GPU_TEST_PRELUDE();
  HeatProblem p = base(17, 9, 11);
  p.lo[0] = Boundary::Neumann;
  ASSERT_TRUE(plan_step(p).constant_tables());
  for (Backend b : {Backend::Cuda, Backend::Auto}) {
    auto s = make_stepper<double>(p, b);
    std::printf("[ select   ] classic, %s: %s\n", backend_name(b), s->device_name().c_str());
    EXPECT_EQ(s->backend(), Backend::Cuda);
    EXPECT_EQ(s->device_name().find("general path"), std::string::npos) << s->device_name();
  }
}

TEST(CudaGeneralSelect, GeneralGoesToGeneralPathAutoIncluded) {
  ADI_GPU_TEST_PRELUDE();
  HeatProblem p = base(17, 9, 11);
  periodic(p, 2);
  ASSERT_FALSE(plan_step(p).constant_tables());
  for (Backend b : {Backend::Cuda, Backend::Auto}) {
    auto s = make_stepper<float>(p, b);
    std::printf("[ select   ] general, %s: %s\n", backend_name(b), s->device_name().c_str());
    EXPECT_EQ(s->backend(), Backend::Cuda);
    EXPECT_NE(s->device_name().find("general path"), std::string::npos) << s->device_name();
  }
}
