// adi3d._core: the batched line solves on NumPy (CPU backend) and CUDA
// arrays (DLPack: CuPy, PyTorch), zero-copy. The Python layer (adi3d/
// __init__.py) checks types, shapes and devices and gives the messages; this
// file maps an array view onto a Layout3 and calls the library, checking
// again what would otherwise crash (the module may be called directly).

#include "bindings.hpp"

#include <adi/cuda.hpp>
#include <adi/tridiag.hpp>

#include <nanobind/stl/vector.h>

#include <string>

namespace adi::python {

namespace {

// A NumPy array of shape (n0, ..., n_{k-1}) has its last axis fastest, so
// the library's x is the last array axis, y the one before, z the first of
// a 3-D array. Axes the array does not have get extent 1 and a stride past
// the data, which keeps Layout3::validate's nesting check honest.
template <class A>
Layout3 layout_of(const A& v, const char* what) {
  const std::size_t nd = v.ndim();
  if (nd < 1 || nd > 3)
    ADI_THROW(InvalidArgument, std::string(what) + ": expected a 1-, 2- or 3-D array, got " + std::to_string(nd) +
                                   " dimensions");
  Layout3 L{{1, 1, 1}, {1, 1, 1}};
  index_t span = 1;
  for (std::size_t q = 0; q < nd; ++q) {
    const int a = static_cast<int>(nd - 1 - q);
    L.n[a] = static_cast<index_t>(v.shape(q));
    L.stride[a] = static_cast<index_t>(v.stride(q));
    if (L.n[a] > 1 && L.stride[a] < 1)
      ADI_THROW(InvalidArgument, std::string(what) + ": stride " + std::to_string(L.stride[a]) + " along array axis " +
                                     std::to_string(q) + " (the solvers take positive strides)");
    if (L.n[a] == 0)
      ADI_THROW(InvalidArgument, std::string(what) + ": array axis " + std::to_string(q) + " is empty");
    span += (L.n[a] - 1) * L.stride[a];
  }
  for (int a = 0; a < 3; ++a)
    if (L.n[a] == 1) L.stride[a] = span;
  L.validate(what);
  return L;
}

// Which library axis array axis `axis` (0-based, already normalised) is.
Axis library_axis(std::size_t ndim, int axis) {
  if (axis < 0 || static_cast<std::size_t>(axis) >= ndim)
    ADI_THROW(InvalidArgument, "axis " + std::to_string(axis) + " is out of range for a " + std::to_string(ndim) +
                                   "-D array");
  return static_cast<Axis>(static_cast<int>(ndim) - 1 - axis);
}

Precision precision_of_view(const nb::dlpack::dtype& t, const char* what) {
  if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) && t.lanes == 1) {
    if (t.bits == 32) return Precision::F32;
    if (t.bits == 64) return Precision::F64;
  }
  ADI_THROW(InvalidArgument, std::string(what) + ": expected float32 or float64 values");
}

struct Place {
  int type = 0, id = 0;
  bool operator==(const Place& o) const { return type == o.type && id == o.id; }
};

template <class A>
Place place_of(const A& v) {
  return {v.device_type(), v.device_id()};
}

bool on_cuda(const Place& p) {
  if (p.type == nb::device::cpu::value) return false;
  if (p.type == nb::device::cuda::value) return true;
  ADI_THROW(InvalidArgument, "arrays must live in host memory (NumPy) or CUDA device memory (CuPy, PyTorch); got "
                             "DLPack device type " + std::to_string(p.type));
}

void solve_general(const RoArray& a, const RoArray& b, const RoArray& c, RwArray& d, int axis, bool cyclic,
                   std::uintptr_t stream) {
  const Layout3 L = layout_of(d, "out");
  const Precision prec = precision_of_view(d.dtype(), "out");
  const Place where = place_of(d);
  const char* names[3] = {"a", "b", "c"};
  const RoArray* coef[3] = {&a, &b, &c};
  for (int q = 0; q < 3; ++q) {
    const RoArray& v = *coef[q];
    if (v.ndim() != d.ndim())
      ADI_THROW(InvalidArgument, std::string(names[q]) + " has " + std::to_string(v.ndim()) +
                                     " dimensions, the right-hand side " + std::to_string(d.ndim()));
    const Layout3 Lq = layout_of(v, names[q]);
    for (int s = 0; s < 3; ++s)
      if (Lq.n[s] != L.n[s] || (L.n[s] > 1 && Lq.stride[s] != L.stride[s]))
        ADI_THROW(InvalidArgument, std::string(names[q]) + " must have the shape and strides of the solution (" +
                                       L.str() + "), got " + Lq.str());
    if (precision_of_view(v.dtype(), names[q]) != prec)
      ADI_THROW(InvalidArgument, std::string(names[q]) + " has another dtype than the right-hand side");
    if (!(place_of(v) == where))
      ADI_THROW(InvalidArgument, std::string(names[q]) + " is on another device than the right-hand side");
  }
  const Axis ax = library_axis(d.ndim(), axis);
  const bool gpu = on_cuda(where);
  dispatch_precision(prec, [&](auto tag) {
    using T = decltype(tag);
    const T* pa = static_cast<const T*>(a.data());
    const T* pb = static_cast<const T*>(b.data());
    const T* pc = static_cast<const T*>(c.data());
    T* pd = static_cast<T*>(d.data());
    nb::gil_scoped_release unlocked;
    void* st = reinterpret_cast<void*>(stream);
    if (gpu) {
      if (cyclic)
        adi::cuda::solve_cyclic<T>(ax, pa, pb, pc, pd, L, st);
      else
        adi::cuda::solve_general<T>(ax, pa, pb, pc, pd, L, st);
    } else if (cyclic) {
      adi::cpu::solve_cyclic<T>(ax, pa, pb, pc, pd, L);
    } else {
      adi::cpu::solve_general<T>(ax, pa, pb, pc, pd, L);
    }
  });
}

void solve_constant(const std::vector<double>& lower, const std::vector<double>& diag,
                    const std::vector<double>& upper, RwArray& d, int axis, std::uintptr_t stream) {
  const Layout3 L = layout_of(d, "out");
  const Precision prec = precision_of_view(d.dtype(), "out");
  const Axis ax = library_axis(d.ndim(), axis);
  const index_t n = L.length(ax);
  const std::vector<double>* diags[3] = {&lower, &diag, &upper};
  const char* names[3] = {"lower", "diag", "upper"};
  for (int q = 0; q < 3; ++q)
    if (static_cast<index_t>(diags[q]->size()) != n)
      ADI_THROW(InvalidArgument, std::string(names[q]) + " has " + std::to_string(diags[q]->size()) +
                                     " entries, the lines along axis " + std::to_string(axis) + " have " +
                                     std::to_string(n));
  LineMatrix m(n);
  m.a = lower;
  m.b = diag;
  m.c = upper;
  const bool gpu = on_cuda(place_of(d));
  dispatch_precision(prec, [&](auto tag) {
    using T = decltype(tag);
    const ThomasFactor<T> f = ThomasFactor<T>::factor(m);
    T* pd = static_cast<T*>(d.data());
    nb::gil_scoped_release unlocked;
    if (gpu)
      adi::cuda::solve_constant<T>(ax, f, pd, L, reinterpret_cast<void*>(stream));
    else
      adi::cpu::solve_constant<T>(ax, f, pd, L);
  });
}

}  // namespace

void bind_solves(nb::module_& m) {
  m.def("solve_general", &solve_general, nb::arg("a").noconvert(), nb::arg("b").noconvert(),
        nb::arg("c").noconvert(), nb::arg("d").noconvert(), nb::arg("axis"), nb::arg("cyclic"), nb::arg("stream"),
        "In place: d <- A^{-1} d along array axis `axis`, A's diagonals a, b, c laid out like d.");
  m.def("solve_constant", &solve_constant, nb::arg("lower"), nb::arg("diag"), nb::arg("upper"),
        nb::arg("d").noconvert(), nb::arg("axis"), nb::arg("stream"),
        "In place: d <- A^{-1} d along array axis `axis`, one matrix (its three diagonals) for every line.");
}

}  // namespace adi::python
